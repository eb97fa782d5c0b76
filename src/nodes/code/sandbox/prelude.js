// @ts-check
/*
 * JavaScript evaluated in each QuickJS context after codec.js and before the user's code (both
 * loaded as text by ../sandbox-script.ts): it hardens the context for the run and carries each
 * call across, through the codec.
 *
 * It freezes the clock: `Date.now()` and `new Date()` read the time the host passes for the run
 * (the execution's clock), so code cannot time itself to fingerprint the host, and a re-run of
 * the node sees the time of its own attempt.
 *
 * It meters the memory QuickJS's own limit does not see (quickjs-sandbox.ts, "Memory"): the
 * builtins that allocate ArrayBuffer contents report what they made, and every so many bytes
 * the host measures what the runtime holds (`meter`, a host function the prelude keeps to
 * itself); the string budget below reports when it is spent. Either way the host ends the run
 * `code_memory`, whether or not the code catches the error thrown here.
 *
 * Every intrinsic it needs is captured before user code runs, as in codec.js.
 *
 * A script, not a module (QuickJS evaluates it as a global script): its value is the value of
 * its one expression, `setup(codec, meter, memoryChars)`, which installs the metering (before
 * the user's code runs) and returns `makeInvoker(run)`, which returns
 * `invoke(requestText, rootPath?, maxChars?, memoryChars?)`: the request is the JSON text
 * `[nowMs, deadlineMs, <tagged input>]`, and the other three are given only when they change
 * (one argument per run keeps the host's side of the call cheap). `invoke` answers the codec's
 * answer (`finish`), or a promise of it when `run` returned a thenable. Nothing leaks into the
 * global scope but what it means to replace (`Date`, the metered builtins). Written for QuickJS
 * alone, type-checked by ./tsconfig.json against the language's library (no Node, no DOM).
 */

/** A size of what a metered builtin made: of the result, or (for `resize`) of its receiver. */
/** @typedef {(made: any, receiver?: any) => number} SizeOf */
/** The host's meter: measures the runtime, answers whether it is over; `true`: a budget is spent. */
/** @typedef {(spent?: true) => boolean} Meter */
/** @typedef {(runInput: unknown) => unknown} UserRun */
/** @typedef {(requestText: string, rootPath?: string, maxResultChars?: number, memoryBudgetChars?: number) => string | Promise<string>} Invoke */

(function () {
  'use strict';
  /** @type {typeof globalThis & Record<string, any>} */
  var G = globalThis;
  var call = Function.prototype.call;
  /** @type {<A extends any[], R>(fn: (...args: A) => R) => (self: any, ...args: A) => R} */
  var uncurry = function (fn) {
    return call.bind(fn);
  };
  var RealDate = G.Date,
    RealPromise = G.Promise;
  var RealUint8Array = G.Uint8Array,
    RealReflect = G.Reflect;
  var jsonParse = JSON.parse;
  var protoOf = Object.getPrototypeOf,
    defineProp = Object.defineProperty;
  var push = uncurry(Array.prototype.push);
  var slice = uncurry(Array.prototype.slice);
  var dateString = uncurry(RealDate.prototype.toString);
  /**
   * The getter of `owner`'s accessor `name`, taking its receiver first.
   * @param {object} owner
   * @param {string} name
   * @returns {(self: any) => any}
   */
  function getter(owner, name) {
    return uncurry(
      /** @type {() => any} */ (
        /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(owner, name)).get
      ),
    );
  }
  var viewLength = getter(protoOf(RealUint8Array.prototype), 'byteLength');
  var abLength = getter(ArrayBuffer.prototype, 'byteLength');
  var promiseResolve = RealPromise.resolve.bind(RealPromise);
  var promiseThen = uncurry(RealPromise.prototype.then);

  // The run's time, set by invoke: the sandbox never reads the host's clock.
  var now = 0;
  /** @this {unknown} */
  function SandboxDate() {
    if (new.target === undefined) return dateString(new RealDate(now));
    var args = arguments.length === 0 ? [now] : slice(arguments);
    return RealReflect.construct(RealDate, args, new.target);
  }
  SandboxDate.prototype = RealDate.prototype;
  SandboxDate.now = function now_() {
    return now;
  };
  SandboxDate.UTC = RealDate.UTC;
  SandboxDate.parse = RealDate.parse;
  defineProp(RealDate.prototype, 'constructor', {
    value: SandboxDate,
    writable: true,
    configurable: true,
  });
  defineProp(G, 'Date', { value: SandboxDate, writable: true, configurable: true });

  // ---- budgets QuickJS does not enforce by itself ----
  // QuickJS polls the interrupt handler every ~10,000 branches, and this build does not charge
  // string memory to the runtime's limit: a loop of 100 KB String#repeat calls runs for seconds
  // between polls and grows the heap without bound. The builtins that make big strings are
  // wrapped: each call checks the run's real deadline and charges big results to a budget.
  var realNow = RealDate.now,
    RealInternalError = G.InternalError;
  var deadline = Infinity,
    charBudget = Infinity;
  // The host's meter: meter() measures the runtime and answers whether it is over its limit;
  // meter(true) says a budget here is spent. Set by setup; never reachable from user code.
  /** @type {Meter} */
  var meter = function () {
    return false;
  };
  function outOfMemory() {
    return new RealInternalError('out of memory');
  }
  /** @param {unknown} result */
  function charge(result) {
    if (typeof result === 'string' && result.length > 4096) {
      charBudget -= result.length;
      if (charBudget < 0) {
        meter(true);
        throw outOfMemory();
      }
    }
    if (realNow() > deadline) throw new RealInternalError('interrupted');
    return result;
  }
  /** @param {any} owner @param {string} name */
  function guard(owner, name) {
    var original = owner[name];
    if (typeof original !== 'function') return;
    var wrapped = {
      [name]: /** @this {unknown} */ function () {
        return charge(RealReflect.apply(original, this, arguments));
      },
    }[name];
    defineProp(owner, name, { value: wrapped, writable: true, configurable: true });
  }
  var STRING_METHODS = [
    'repeat',
    'padStart',
    'padEnd',
    'concat',
    'slice',
    'substring',
    'substr',
    'replace',
    'replaceAll',
    'toUpperCase',
    'toLowerCase',
    'toLocaleUpperCase',
    'toLocaleLowerCase',
    'normalize',
    'trim',
    'trimStart',
    'trimEnd',
    'split',
  ];
  for (var g = 0; g < STRING_METHODS.length; g++) guard(String.prototype, STRING_METHODS[g]);
  guard(Array.prototype, 'join');
  guard(Array.prototype, 'toString');
  guard(Array.prototype, 'fill');
  guard(JSON, 'stringify');
  guard(String, 'fromCharCode');
  guard(String, 'fromCodePoint');
  guard(String, 'raw');

  // ---- binary allocations, metered ----
  // QuickJS's limit does not count ArrayBuffer contents. The constructors become proxies that
  // report what they made (and their prototypes' 'constructor', so that slice, map, subarray
  // and from construct through them), and so do the methods that allocate without one. A view
  // is counted as if it allocated: that only brings the next measurement nearer.
  var meterEvery = Infinity,
    sinceMeter = 0,
    mathMax = Math.max,
    RealProxy = G.Proxy;
  var abMaxLength = getter(ArrayBuffer.prototype, 'maxByteLength');
  /** @param {number} bytes */
  function allocated(bytes) {
    sinceMeter += bytes;
    if (sinceMeter < meterEvery) return;
    sinceMeter = 0;
    if (meter()) throw outOfMemory();
  }
  /** @param {number} memoryChars */
  function meterEveryOf(memoryChars) {
    // Some sixteen measurements (~60 µs each) to fill the limit; at least one MiB apart.
    return mathMax(1048576, memoryChars / 8);
  }
  /** @type {SizeOf} */
  function viewSize(view) {
    return viewLength(view);
  }
  /** @type {SizeOf} */
  function bufferSize(buffer) {
    return abMaxLength(buffer);
  }
  /** @type {SizeOf} */
  function resizedSize(_made, buffer) {
    return abLength(buffer);
  }
  /** @param {string} name @param {SizeOf} size */
  function meterConstructor(name, size) {
    var Real = G[name];
    if (typeof Real !== 'function') return;
    var proxy = new RealProxy(Real, {
      /** @param {Function} target @param {any[]} args @param {Function} newTarget */
      construct: function (target, args, newTarget) {
        var made = RealReflect.construct(target, args, newTarget);
        allocated(size(made));
        return made;
      },
    });
    defineProp(Real.prototype, 'constructor', { value: proxy, writable: true, configurable: true });
    defineProp(G, name, { value: proxy, writable: true, configurable: true });
  }
  /** @param {any} owner @param {string} name @param {SizeOf} size */
  function meterMethod(owner, name, size) {
    var original = owner && owner[name];
    if (typeof original !== 'function') return;
    var wrapped = {
      [name]: /** @this {unknown} */ function () {
        var made = RealReflect.apply(original, this, arguments);
        allocated(size(made, this));
        return made;
      },
    }[name];
    defineProp(owner, name, { value: wrapped, writable: true, configurable: true });
  }
  function installMetering() {
    var typed = [
      'Uint8Array',
      'Int8Array',
      'Uint8ClampedArray',
      'Int16Array',
      'Uint16Array',
      'Int32Array',
      'Uint32Array',
      'Float32Array',
      'Float64Array',
      'BigInt64Array',
      'BigUint64Array',
    ];
    if (typeof G.Float16Array === 'function') push(typed, 'Float16Array');
    var TypedArrayPrototype = protoOf(RealUint8Array.prototype);
    meterMethod(TypedArrayPrototype, 'toReversed', viewSize);
    meterMethod(TypedArrayPrototype, 'toSorted', viewSize);
    meterMethod(TypedArrayPrototype, 'with', viewSize);
    meterMethod(RealUint8Array, 'fromBase64', viewSize);
    meterMethod(RealUint8Array, 'fromHex', viewSize);
    for (var i = 0; i < typed.length; i++) meterConstructor(typed[i], viewSize);
    meterMethod(ArrayBuffer.prototype, 'resize', resizedSize);
    meterMethod(ArrayBuffer.prototype, 'transfer', bufferSize);
    meterMethod(ArrayBuffer.prototype, 'transferToFixedLength', bufferSize);
    meterConstructor('ArrayBuffer', bufferSize);
    // A growable SharedArrayBuffer of this QuickJS build grows without reallocating: its view
    // then reads and writes past its block, into what other sandboxes keep in the same heap.
    // A sandbox has no other thread to share memory with: there is no SharedArrayBuffer.
    delete (/** @type {{ SharedArrayBuffer?: unknown }} */ (G).SharedArrayBuffer);
  }

  var root = '$',
    maxChars = Infinity,
    memoryChars = Infinity;
  // The codec (codec.js), given by setup.
  /** @type {Codec} */
  var codec;
  /** @param {UserRun} run @returns {Invoke} */
  function makeInvoker(run) {
    return function invoke(requestText, rootPath, maxResultChars, memoryBudgetChars) {
      if (rootPath !== undefined) {
        root = rootPath;
        maxChars = /** @type {number} */ (maxResultChars);
        memoryChars = /** @type {number} */ (memoryBudgetChars);
        meterEvery = meterEveryOf(memoryChars);
      }
      var request = jsonParse(requestText);
      now = request[0];
      deadline = request[1];
      charBudget = memoryChars;
      var result = run(codec.revive(request[2]));
      var thenable =
        result !== null &&
        typeof result === 'object' &&
        typeof (/** @type {{ then?: unknown }} */ (result).then) === 'function';
      if (!thenable) return codec.finish(result, root, maxChars);
      return promiseThen(promiseResolve(result), function (value) {
        return codec.finish(value, root, maxChars);
      });
    };
  }
  /** @param {Codec} sandboxCodec @param {Meter} hostMeter @param {number} memoryBudgetChars */
  return function setup(sandboxCodec, hostMeter, memoryBudgetChars) {
    codec = sandboxCodec;
    meter = hostMeter;
    meterEvery = meterEveryOf(memoryBudgetChars);
    installMetering();
    return makeInvoker;
  };
})();
