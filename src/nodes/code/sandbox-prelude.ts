/**
 * JavaScript evaluated inside each QuickJS context before the user's code. It is the sandbox's
 * half of the state codec (src/state/codec.ts, docs/state-codec.md): the host sends the input
 * as the codec's tagged JSON and this revives it into real Dates, Maps, Sets, BigInts and
 * typed arrays; the result goes back the same way, so the host's `decodeValue` rebuilds it.
 * Values the codec refuses (functions, symbols, class instances, cycles) are reported with
 * the codec's path syntax instead, and the host raises `StateSerializationError`.
 *
 * It also freezes the clock: `Date.now()` and `new Date()` read the time the host passes for
 * the run (the execution's clock), so code cannot time itself to fingerprint the host, and a
 * re-run of the node sees the time of its own attempt.
 *
 * Every intrinsic it needs is captured before user code runs: user code may replace
 * `JSON.parse` or `Array.prototype.map` for itself, but not change what the codec does.
 *
 * It also meters the memory QuickJS's own limit does not see (quickjs-sandbox.ts, "Memory"):
 * the builtins that allocate ArrayBuffer contents report what they made, and every so many
 * bytes the host measures what the runtime holds (`meter`, a host function the prelude keeps
 * to itself); the string budget below reports when it is spent. Either way the host ends the
 * run `code_memory`, whether or not the code catches the error thrown here.
 *
 * The expression evaluates to `setup(meter, memoryChars)`, which installs the metering (before
 * the user's code runs) and returns `makeInvoker(run)`, which returns
 * `invoke(requestText, rootPath?, maxChars?, memoryChars?)`: the request is the JSON text
 * `[nowMs, deadlineMs, <tagged input>]`, and the other three are given only when they change
 * (one argument per run keeps the host's side of the call cheap). `invoke` answers a string whose first
 * character says what it is: `v` + tagged JSON (the result), `u` + JSON `[path, valueType]`
 * (not storable), `o` + the length (over `maxChars`); or a promise of such a string when
 * `run` returned a thenable.
 */
export const SANDBOX_PRELUDE = String.raw`(function () {
  'use strict';
  var G = globalThis;
  var call = Function.prototype.call;
  var uncurry = function (fn) { return call.bind(fn); };
  var RealDate = G.Date, RealPromise = G.Promise, RealMap = G.Map, RealSet = G.Set;
  var RealUint8Array = G.Uint8Array, RealReflect = G.Reflect;
  var jsonParse = JSON.parse, jsonStringify = JSON.stringify;
  var keysOf = Object.keys, protoOf = Object.getPrototypeOf, defineProp = Object.defineProperty;
  var ownSymbols = Object.getOwnPropertySymbols, isArray = Array.isArray, objectIs = Object.is;
  var hasOwn = uncurry(Object.prototype.hasOwnProperty);
  var isEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  var push = uncurry(Array.prototype.push), pop = uncurry(Array.prototype.pop);
  var indexOf = uncurry(Array.prototype.indexOf), join = uncurry(Array.prototype.join);
  var slice = uncurry(Array.prototype.slice);
  var dateTime = uncurry(RealDate.prototype.getTime);
  var dateIso = uncurry(RealDate.prototype.toISOString);
  var dateString = uncurry(RealDate.prototype.toString);
  var setValues = uncurry(RealSet.prototype.values), setAdd = uncurry(RealSet.prototype.add);
  var mapEntries = uncurry(RealMap.prototype.entries), mapSet = uncurry(RealMap.prototype.set);
  var iterNext = function (it) { return it.next(); };
  var regexpSource = uncurry(Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get);
  var regexpFlags = uncurry(Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags').get);
  var bufferOf = uncurry(Object.getOwnPropertyDescriptor(protoOf(RealUint8Array.prototype), 'buffer').get);
  var viewOffset = uncurry(Object.getOwnPropertyDescriptor(protoOf(RealUint8Array.prototype), 'byteOffset').get);
  var viewLength = uncurry(Object.getOwnPropertyDescriptor(protoOf(RealUint8Array.prototype), 'byteLength').get);
  var dvBuffer = uncurry(Object.getOwnPropertyDescriptor(DataView.prototype, 'buffer').get);
  var dvOffset = uncurry(Object.getOwnPropertyDescriptor(DataView.prototype, 'byteOffset').get);
  var dvLength = uncurry(Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get);
  var abLength = uncurry(Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get);
  var promiseResolve = RealPromise.resolve.bind(RealPromise);
  var promiseThen = uncurry(RealPromise.prototype.then);
  var fromCharCode = String.fromCharCode;
  var TAG = '~t', MAX_DEPTH = 1000, NAME = /^[A-Za-z0-9_$-]+$/;
  var regexpTest = uncurry(RegExp.prototype.test);

  // The run's time, set by invoke: the sandbox never reads the host's clock.
  var now = 0;
  function SandboxDate() {
    if (new.target === undefined) return dateString(new RealDate(now));
    var args = arguments.length === 0 ? [now] : slice(arguments);
    return RealReflect.construct(RealDate, args, new.target);
  }
  SandboxDate.prototype = RealDate.prototype;
  SandboxDate.now = function now_() { return now; };
  SandboxDate.UTC = RealDate.UTC;
  SandboxDate.parse = RealDate.parse;
  defineProp(RealDate.prototype, 'constructor', { value: SandboxDate, writable: true, configurable: true });
  defineProp(G, 'Date', { value: SandboxDate, writable: true, configurable: true });

  // ---- budgets QuickJS does not enforce by itself ----
  // QuickJS polls the interrupt handler every ~10,000 branches, and this build does not charge
  // string memory to the runtime's limit: a loop of 100 KB String#repeat calls runs for seconds
  // between polls and grows the heap without bound. The builtins that make big strings are
  // wrapped: each call checks the run's real deadline and charges big results to a budget.
  var realNow = RealDate.now, RealInternalError = G.InternalError;
  var deadline = Infinity, charBudget = Infinity;
  // The host's meter: meter() measures the runtime and answers whether it is over its limit;
  // meter(true) says a budget here is spent. Set by setup; never reachable from user code.
  var meter = function () { return false; };
  function outOfMemory() { return new RealInternalError('out of memory'); }
  function charge(result) {
    if (typeof result === 'string' && result.length > 4096) {
      charBudget -= result.length;
      if (charBudget < 0) { meter(true); throw outOfMemory(); }
    }
    if (realNow() > deadline) throw new RealInternalError('interrupted');
    return result;
  }
  function guard(owner, name) {
    var original = owner[name];
    if (typeof original !== 'function') return;
    var wrapped = ({ [name]: function () { return charge(RealReflect.apply(original, this, arguments)); } })[name];
    defineProp(owner, name, { value: wrapped, writable: true, configurable: true });
  }
  var STRING_METHODS = ['repeat', 'padStart', 'padEnd', 'concat', 'slice', 'substring', 'substr',
    'replace', 'replaceAll', 'toUpperCase', 'toLowerCase', 'toLocaleUpperCase', 'toLocaleLowerCase',
    'normalize', 'trim', 'trimStart', 'trimEnd', 'split'];
  for (var g = 0; g < STRING_METHODS.length; g++) guard(String.prototype, STRING_METHODS[g]);
  guard(Array.prototype, 'join'); guard(Array.prototype, 'toString'); guard(Array.prototype, 'fill');
  guard(JSON, 'stringify'); guard(String, 'fromCharCode'); guard(String, 'fromCodePoint'); guard(String, 'raw');

  // The host codec's binary classes; Buffer arrives as a Uint8Array (there is no Buffer here).
  var BINARY = [['ArrayBuffer', ArrayBuffer], ['DataView', DataView], ['Uint8Array', Uint8Array],
    ['Int8Array', Int8Array], ['Uint8ClampedArray', Uint8ClampedArray], ['Int16Array', Int16Array],
    ['Uint16Array', Uint16Array], ['Int32Array', Int32Array], ['Uint32Array', Uint32Array],
    ['Float32Array', Float32Array], ['Float64Array', Float64Array],
    ['BigInt64Array', BigInt64Array], ['BigUint64Array', BigUint64Array]];

  // ---- binary allocations, metered ----
  // QuickJS's limit does not count ArrayBuffer contents. The constructors become proxies that
  // report what they made (and their prototypes' 'constructor', so that slice, map, subarray
  // and from construct through them), and so do the methods that allocate without one. A view
  // is counted as if it allocated: that only brings the next measurement nearer.
  var meterEvery = Infinity, sinceMeter = 0, mathMax = Math.max, RealProxy = G.Proxy;
  var abMaxLength = uncurry(Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'maxByteLength').get);
  function allocated(bytes) {
    sinceMeter += bytes;
    if (sinceMeter < meterEvery) return;
    sinceMeter = 0;
    if (meter()) throw outOfMemory();
  }
  function meterEveryOf(memoryChars) {
    // Some sixteen measurements (~60 µs each) to fill the limit; at least one MiB apart.
    return mathMax(1048576, memoryChars / 8);
  }
  function viewSize(view) { return viewLength(view); }
  function bufferSize(buffer) { return abMaxLength(buffer); }
  function resizedSize(_made, buffer) { return abLength(buffer); }
  function meterConstructor(name, size) {
    var Real = G[name];
    if (typeof Real !== 'function') return;
    var proxy = new RealProxy(Real, {
      construct: function (target, args, newTarget) {
        var made = RealReflect.construct(target, args, newTarget);
        allocated(size(made));
        return made;
      },
    });
    defineProp(Real.prototype, 'constructor', { value: proxy, writable: true, configurable: true });
    defineProp(G, name, { value: proxy, writable: true, configurable: true });
  }
  function meterMethod(owner, name, size) {
    var original = owner && owner[name];
    if (typeof original !== 'function') return;
    var wrapped = ({ [name]: function () {
      var made = RealReflect.apply(original, this, arguments);
      allocated(size(made, this));
      return made;
    } })[name];
    defineProp(owner, name, { value: wrapped, writable: true, configurable: true });
  }
  function installMetering() {
    var typed = ['Uint8Array', 'Int8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
      'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
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
    delete G.SharedArrayBuffer;
  }

  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  var B64_INDEX = {};
  for (var b = 0; b < 64; b++) B64_INDEX[B64[b]] = b;

  function toBase64(bytes) {
    var parts = [], i = 0, n = bytes.length;
    for (; i + 2 < n; i += 3) {
      var w = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
      push(parts, B64[(w >> 18) & 63] + B64[(w >> 12) & 63] + B64[(w >> 6) & 63] + B64[w & 63]);
    }
    if (n - i === 1) {
      var one = bytes[i] << 16;
      push(parts, B64[(one >> 18) & 63] + B64[(one >> 12) & 63] + '==');
    } else if (n - i === 2) {
      var two = (bytes[i] << 16) | (bytes[i + 1] << 8);
      push(parts, B64[(two >> 18) & 63] + B64[(two >> 12) & 63] + B64[(two >> 6) & 63] + '=');
    }
    return join(parts, '');
  }

  function fromBase64(text) {
    var end = text.length;
    while (end > 0 && text[end - 1] === '=') end--;
    var bytes = new RealUint8Array((end * 3) >> 2), acc = 0, bits = 0, j = 0;
    for (var i = 0; i < end; i++) {
      acc = ((acc << 6) | B64_INDEX[text[i]]) & 0xffffff;
      bits += 6;
      if (bits >= 8) { bits -= 8; bytes[j++] = (acc >> bits) & 255; }
    }
    return bytes;
  }

  function unescapeString(text) {
    return text.replace(/\\(\\|u[0-9a-f]{4})/g, function (_m, body) {
      return body === '\\' ? '\\' : fromCharCode(parseInt(body.slice(1), 16));
    });
  }

  function setKey(obj, name, value) {
    if (name === '__proto__') defineProp(obj, name, { value: value, writable: true, enumerable: true, configurable: true });
    else obj[name] = value;
  }

  // ---- input: tagged JSON → values ----
  function revive(value) {
    if (typeof value !== 'object' || value === null) return value;
    if (isArray(value)) {
      for (var i = 0; i < value.length; i++) {
        var item = value[i];
        if (typeof item !== 'object' || item === null) continue;
        if (item[TAG] === 'hole' && keysOf(item).length === 1) delete value[i];
        else value[i] = revive(item);
      }
      return value;
    }
    if (hasOwn(value, TAG)) return reviveTag(value[TAG], value.v);
    var names = keysOf(value);
    for (var k = 0; k < names.length; k++) {
      var child = value[names[k]];
      if (typeof child === 'object' && child !== null) setKey(value, names[k], revive(child));
    }
    return value;
  }

  function reviveTag(tag, payload) {
    switch (tag) {
      case 'undefined': return undefined;
      case 'number': return payload === 'NaN' ? NaN : payload === 'Infinity' ? Infinity : payload === '-Infinity' ? -Infinity : -0;
      case 'bigint': return BigInt(payload);
      case 'string': return unescapeString(payload);
      case 'Date': return new RealDate(payload === null ? NaN : payload);
      case 'RegExp': var slash = payload.lastIndexOf('/'); return new RegExp(payload.slice(1, slash), payload.slice(slash + 1));
      case 'Set': var set = new RealSet(); for (var s = 0; s < payload.length; s++) setAdd(set, revive(payload[s])); return set;
      case 'Map': var map = new RealMap(); for (var m = 0; m < payload.length; m++) mapSet(map, revive(payload[m][0]), revive(payload[m][1])); return map;
      case 'object':
        var obj = {};
        for (var e = 0; e < payload.length; e++) {
          var name = payload[e][0];
          setKey(obj, typeof name === 'string' ? name : unescapeString(name.v), revive(payload[e][1]));
        }
        return obj;
      case 'Buffer': return fromBase64(payload);
    }
    for (var t = 0; t < BINARY.length; t++) {
      if (BINARY[t][0] !== tag) continue;
      var bytes = fromBase64(payload);
      return tag === 'ArrayBuffer' ? bufferOf(bytes) : new BINARY[t][1](bufferOf(bytes));
    }
    throw new TypeError('unknown tag ' + tag);
  }

  // ---- output: values → tagged JSON, or the path of what cannot be stored ----
  function Unstorable(path, valueType) { this.path = path; this.valueType = valueType; }

  function Walk(root) { this.root = root; this.ancestors = []; this.segments = []; }
  Walk.prototype.enter = function (container, key) {
    if (indexOf(this.ancestors, container) >= 0) throw this.fail(key, 'cycle');
    if (this.ancestors.length >= MAX_DEPTH) throw this.fail(key, 'nesting deeper than ' + MAX_DEPTH + ' levels');
    push(this.ancestors, container);
    push(this.segments, key);
  };
  Walk.prototype.leave = function () { pop(this.ancestors); pop(this.segments); };
  Walk.prototype.fail = function (key, valueType) {
    var path = this.root;
    for (var i = 0; i < this.segments.length; i++) path += renderSegment(this.segments[i]);
    return new Unstorable(path + renderSegment(key), valueType);
  };

  function renderSegment(segment) {
    if (segment === null) return '';
    if (typeof segment === 'number') return '[' + segment + ']';
    if (typeof segment === 'string') return regexpTest(NAME, segment) ? '.' + segment : '[' + jsonStringify(segment) + ']';
    return segment.text;
  }

  function special(text) { return { text: text }; }

  function describeKey(key) {
    if (typeof key === 'string') return jsonStringify(key);
    if (typeof key === 'bigint') return String(key) + 'n';
    return String(key);
  }

  function tagValue(value, key, walk) {
    switch (typeof value) {
      case 'string': case 'boolean': return value;
      case 'number':
        if (value !== value) return { '~t': 'number', v: 'NaN' };
        if (value === Infinity) return { '~t': 'number', v: 'Infinity' };
        if (value === -Infinity) return { '~t': 'number', v: '-Infinity' };
        return objectIs(value, -0) ? { '~t': 'number', v: '-0' } : value;
      case 'undefined': return { '~t': 'undefined' };
      case 'bigint': return { '~t': 'bigint', v: String(value) };
      case 'function': throw walk.fail(key, 'function ' + (value.name || '(anonymous)'));
      case 'symbol': throw walk.fail(key, 'symbol ' + String(value));
    }
    return value === null ? null : tagObject(value, key, walk);
  }

  function tagObject(value, key, walk) {
    var proto = protoOf(value);
    if (proto === Object.prototype || proto === null) return tagPlain(value, key, walk);
    if (proto === Array.prototype) return tagArray(value, key, walk);
    if (proto === RealDate.prototype) {
      var time = dateTime(value);
      return { '~t': 'Date', v: time !== time ? null : dateIso(value) };
    }
    if (proto === RegExp.prototype) return { '~t': 'RegExp', v: '/' + regexpSource(value) + '/' + regexpFlags(value) };
    if (proto === RealSet.prototype) return tagSet(value, key, walk);
    if (proto === RealMap.prototype) return tagMap(value, key, walk);
    for (var t = 0; t < BINARY.length; t++) {
      if (BINARY[t][1].prototype !== proto) continue;
      var name = BINARY[t][0], bytes;
      if (name === 'ArrayBuffer') bytes = new RealUint8Array(value, 0, abLength(value));
      else if (name === 'DataView') bytes = new RealUint8Array(dvBuffer(value), dvOffset(value), dvLength(value));
      else bytes = new RealUint8Array(bufferOf(value), viewOffset(value), viewLength(value));
      return { '~t': name, v: toBase64(bytes) };
    }
    throw walk.fail(key, describeInstance(value, proto));
  }

  function tagPlain(obj, key, walk) {
    walk.enter(obj, key);
    var names = keysOf(obj), out = {}, escape = false, entries = [];
    for (var i = 0; i < names.length; i++) {
      var name = names[i];
      if (name === TAG) escape = true;
      var tagged = tagValue(obj[name], name, walk);
      setKey(out, name, tagged);
      push(entries, [name, tagged]);
    }
    var symbols = ownSymbols(obj);
    for (var s = 0; s < symbols.length; s++) {
      if (isEnumerable(obj, symbols[s])) throw walk.fail(special('[' + String(symbols[s]) + ']'), 'symbol-keyed property');
    }
    walk.leave();
    return escape ? { '~t': 'object', v: entries } : out;
  }

  function tagArray(array, key, walk) {
    walk.enter(array, key);
    var out = [];
    for (var i = 0; i < array.length; i++) {
      var item = array[i];
      push(out, item === undefined && !(i in array) ? { '~t': 'hole' } : tagValue(item, i, walk));
    }
    walk.leave();
    return out;
  }

  function tagSet(set, key, walk) {
    walk.enter(set, key);
    var items = [], it = setValues(set), step;
    while (!(step = iterNext(it)).done) push(items, tagValue(step.value, special('<set item #' + items.length + '>'), walk));
    walk.leave();
    return { '~t': 'Set', v: items };
  }

  function tagMap(map, key, walk) {
    walk.enter(map, key);
    var entries = [], it = mapEntries(map), step;
    while (!(step = iterNext(it)).done) {
      var i = entries.length, k = step.value[0];
      var primitive = k === null || (typeof k !== 'object' && typeof k !== 'function' && typeof k !== 'symbol');
      push(entries, [
        tagValue(k, special('<map entry #' + i + ' key>'), walk),
        tagValue(step.value[1], special(primitive ? '<map key ' + describeKey(k) + '>' : '<map entry #' + i + '>'), walk),
      ]);
    }
    walk.leave();
    return { '~t': 'Map', v: entries };
  }

  function describeInstance(value, proto) {
    if (proto === RealPromise.prototype) return 'promise';
    if (proto === WeakMap.prototype) return 'WeakMap';
    if (proto === WeakSet.prototype) return 'WeakSet';
    if (proto === WeakRef.prototype) return 'WeakRef';
    var ctor = hasOwn(proto, 'constructor') ? proto.constructor : undefined;
    if (typeof ctor === 'function' && ctor.name !== '') return 'instance of ' + ctor.name;
    return 'object with a custom prototype';
  }

  function finish(value, root, maxChars) {
    var tree;
    try {
      tree = tagValue(value === undefined ? null : value, null, new Walk(root));
    } catch (error) {
      if (error instanceof Unstorable) return 'u' + jsonStringify([error.path, error.valueType]);
      throw error;
    }
    var text = jsonStringify(tree);
    return text.length > maxChars ? 'o' + text.length : 'v' + text;
  }

  var root = '$', maxChars = Infinity, memoryChars = Infinity;
  function makeInvoker(run) {
    return function invoke(requestText, rootPath, maxResultChars, memoryBudgetChars) {
      if (rootPath !== undefined) {
        root = rootPath; maxChars = maxResultChars; memoryChars = memoryBudgetChars;
        meterEvery = meterEveryOf(memoryChars);
      }
      var request = jsonParse(requestText);
      now = request[0];
      deadline = request[1];
      charBudget = memoryChars;
      var result = run(revive(request[2]));
      var thenable = result !== null && typeof result === 'object' && typeof result.then === 'function';
      if (!thenable) return finish(result, root, maxChars);
      return promiseThen(promiseResolve(result), function (value) { return finish(value, root, maxChars); });
    };
  }
  return function setup(hostMeter, memoryBudgetChars) {
    meter = hostMeter;
    meterEvery = meterEveryOf(memoryBudgetChars);
    installMetering();
    return makeInvoker;
  };
})()`;
