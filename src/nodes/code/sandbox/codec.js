// @ts-check
/*
 * The sandbox's half of the state codec (src/state/codec.ts, docs/state-codec.md), evaluated in
 * each QuickJS context before prelude.js and the user's code (both loaded as text by
 * ../sandbox-script.ts). The host sends the input as the codec's tagged JSON and `revive`
 * turns it into real Dates, Maps, Sets, BigInts and typed arrays; `finish` sends the result
 * back the same way, so the host's `decodeValue` rebuilds it. Values the codec refuses
 * (functions, symbols, class instances, cycles) are reported with the codec's path syntax
 * instead, and the host raises `StateSerializationError`.
 *
 * Every intrinsic it needs is captured here, before prelude.js wraps some of them and before
 * user code runs: user code may replace `JSON.parse` or `Array.prototype.map` for itself, but
 * not change what the codec does, and the codec's own work is not charged to the run's budgets.
 *
 * A script, not a module (QuickJS evaluates it as a global script): its value is the value of
 * its one expression, the Codec `{revive, finish}`, which only prelude.js receives. Nothing
 * leaks into the global scope: everything lives in the one function expression. Written for
 * QuickJS alone, type-checked by ./tsconfig.json against the language's library (no Node, no
 * DOM).
 */

/** What the codec's JSON holds once parsed, tagged values (`{"~t": …}`) included. */
/** @typedef {null | boolean | number | string | TaggedArray | TaggedObject} TaggedJson */
/** @typedef {Array<TaggedJson>} TaggedArray */
/** @typedef {{ [key: string]: TaggedJson }} TaggedObject */
/** A step of a path: a name, an index, a rendered piece (`<set item #0>`), or none (the root). */
/** @typedef {string | number | { text: string } | null} Segment */
/**
 * @typedef {object} Codec
 * @property {(value: any) => unknown} revive the input's tagged JSON (parsed) as values: revived in place
 * @property {(value: unknown, root: string, maxChars: number) => string} finish the answer for a result:
 *   `v` + its tagged JSON, `u` + JSON `[path, valueType]` (not storable), or `o` + the JSON's
 *   length (over `maxChars`)
 */

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
    RealPromise = G.Promise,
    RealMap = G.Map,
    RealSet = G.Set;
  var RealUint8Array = G.Uint8Array;
  var jsonStringify = JSON.stringify;
  var keysOf = Object.keys,
    protoOf = Object.getPrototypeOf,
    defineProp = Object.defineProperty;
  var ownSymbols = Object.getOwnPropertySymbols,
    isArray = Array.isArray,
    objectIs = Object.is;
  var hasOwn = uncurry(Object.prototype.hasOwnProperty);
  var isEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  var push = uncurry(Array.prototype.push),
    pop = uncurry(Array.prototype.pop);
  var indexOf = uncurry(Array.prototype.indexOf),
    join = uncurry(Array.prototype.join);
  var dateTime = uncurry(RealDate.prototype.getTime);
  var dateIso = uncurry(RealDate.prototype.toISOString);
  var setValues = uncurry(RealSet.prototype.values),
    setAdd = uncurry(RealSet.prototype.add);
  var mapEntries = uncurry(RealMap.prototype.entries),
    mapSet = uncurry(RealMap.prototype.set);
  /** @type {(it: Iterator<any>) => IteratorResult<any>} */
  var iterNext = function (it) {
    return it.next();
  };
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
  var regexpSource = getter(RegExp.prototype, 'source');
  var regexpFlags = getter(RegExp.prototype, 'flags');
  var bufferOf = getter(protoOf(RealUint8Array.prototype), 'buffer');
  var viewOffset = getter(protoOf(RealUint8Array.prototype), 'byteOffset');
  var viewLength = getter(protoOf(RealUint8Array.prototype), 'byteLength');
  var dvBuffer = getter(DataView.prototype, 'buffer');
  var dvOffset = getter(DataView.prototype, 'byteOffset');
  var dvLength = getter(DataView.prototype, 'byteLength');
  var abLength = getter(ArrayBuffer.prototype, 'byteLength');
  var fromCharCode = String.fromCharCode;
  var TAG = '~t',
    MAX_DEPTH = 1000,
    NAME = /^[A-Za-z0-9_$-]+$/;
  var regexpTest = uncurry(RegExp.prototype.test);

  // The host codec's binary classes; Buffer arrives as a Uint8Array (there is no Buffer here).
  /** @type {Array<[string, { new (...args: any[]): object; prototype: object }]>} */
  var BINARY = [
    ['ArrayBuffer', ArrayBuffer],
    ['DataView', DataView],
    ['Uint8Array', Uint8Array],
    ['Int8Array', Int8Array],
    ['Uint8ClampedArray', Uint8ClampedArray],
    ['Int16Array', Int16Array],
    ['Uint16Array', Uint16Array],
    ['Int32Array', Int32Array],
    ['Uint32Array', Uint32Array],
    ['Float32Array', Float32Array],
    ['Float64Array', Float64Array],
    ['BigInt64Array', BigInt64Array],
    ['BigUint64Array', BigUint64Array],
  ];

  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  /** @type {Record<string, number>} */
  var B64_INDEX = {};
  for (var b = 0; b < 64; b++) B64_INDEX[B64[b]] = b;

  /** @param {Uint8Array} bytes */
  function toBase64(bytes) {
    var parts = /** @type {string[]} */ ([]),
      i = 0,
      n = bytes.length;
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

  /** @param {string} text */
  function fromBase64(text) {
    var end = text.length;
    while (end > 0 && text[end - 1] === '=') end--;
    var bytes = new RealUint8Array((end * 3) >> 2),
      acc = 0,
      bits = 0,
      j = 0;
    for (var i = 0; i < end; i++) {
      acc = ((acc << 6) | B64_INDEX[text[i]]) & 0xffffff;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes[j++] = (acc >> bits) & 255;
      }
    }
    return bytes;
  }

  /** @param {string} text */
  function unescapeString(text) {
    return text.replace(/\\(\\|u[0-9a-f]{4})/g, function (_m, body) {
      return body === '\\' ? '\\' : fromCharCode(parseInt(body.slice(1), 16));
    });
  }

  /** @param {any} obj @param {string} name @param {unknown} value */
  function setKey(obj, name, value) {
    if (name === '__proto__')
      defineProp(obj, name, { value: value, writable: true, enumerable: true, configurable: true });
    else obj[name] = value;
  }

  // ---- input: tagged JSON → values ----
  /** @param {any} value parsed tagged JSON, revived in place */
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

  /** @param {string} tag @param {any} payload */
  function reviveTag(tag, payload) {
    switch (tag) {
      case 'undefined':
        return undefined;
      case 'number':
        return payload === 'NaN'
          ? NaN
          : payload === 'Infinity'
            ? Infinity
            : payload === '-Infinity'
              ? -Infinity
              : -0;
      case 'bigint':
        return BigInt(payload);
      case 'string':
        return unescapeString(payload);
      case 'Date':
        return new RealDate(payload === null ? NaN : payload);
      case 'RegExp':
        var slash = payload.lastIndexOf('/');
        return new RegExp(payload.slice(1, slash), payload.slice(slash + 1));
      case 'Set':
        var set = new RealSet();
        for (var s = 0; s < payload.length; s++) setAdd(set, revive(payload[s]));
        return set;
      case 'Map':
        var map = new RealMap();
        for (var m = 0; m < payload.length; m++)
          mapSet(map, revive(payload[m][0]), revive(payload[m][1]));
        return map;
      case 'object':
        var obj = {};
        for (var e = 0; e < payload.length; e++) {
          var name = payload[e][0];
          setKey(
            obj,
            typeof name === 'string' ? name : unescapeString(name.v),
            revive(payload[e][1]),
          );
        }
        return obj;
      case 'Buffer':
        return fromBase64(payload);
    }
    for (var t = 0; t < BINARY.length; t++) {
      if (BINARY[t][0] !== tag) continue;
      var bytes = fromBase64(payload);
      return tag === 'ArrayBuffer' ? bufferOf(bytes) : new BINARY[t][1](bufferOf(bytes));
    }
    throw new TypeError('unknown tag ' + tag);
  }

  // ---- output: values → tagged JSON, or the path of what cannot be stored ----
  /** @constructor @param {string} path @param {string} valueType */
  function Unstorable(path, valueType) {
    this.path = path;
    this.valueType = valueType;
  }

  /** @constructor @param {string} root */
  function Walk(root) {
    this.root = root;
    /** @type {object[]} */
    this.ancestors = [];
    /** @type {Segment[]} */
    this.segments = [];
  }
  /** @param {object} container @param {Segment} key */
  Walk.prototype.enter = function (container, key) {
    if (indexOf(this.ancestors, container) >= 0) throw this.fail(key, 'cycle');
    if (this.ancestors.length >= MAX_DEPTH)
      throw this.fail(key, 'nesting deeper than ' + MAX_DEPTH + ' levels');
    push(this.ancestors, container);
    push(this.segments, key);
  };
  Walk.prototype.leave = function () {
    pop(this.ancestors);
    pop(this.segments);
  };
  /** @param {Segment} key @param {string} valueType */
  Walk.prototype.fail = function (key, valueType) {
    var path = this.root;
    for (var i = 0; i < this.segments.length; i++) path += renderSegment(this.segments[i]);
    return new Unstorable(path + renderSegment(key), valueType);
  };

  /** @param {Segment} segment */
  function renderSegment(segment) {
    if (segment === null) return '';
    if (typeof segment === 'number') return '[' + segment + ']';
    if (typeof segment === 'string')
      return regexpTest(NAME, segment) ? '.' + segment : '[' + jsonStringify(segment) + ']';
    return segment.text;
  }

  /** @param {string} text */
  function special(text) {
    return { text: text };
  }

  /** @param {unknown} key a primitive */
  function describeKey(key) {
    if (typeof key === 'string') return jsonStringify(key);
    if (typeof key === 'bigint') return String(key) + 'n';
    return String(key);
  }

  /** @param {unknown} value @param {Segment} key @param {Walk} walk @returns {TaggedJson} */
  function tagValue(value, key, walk) {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        if (value !== value) return { '~t': 'number', v: 'NaN' };
        if (value === Infinity) return { '~t': 'number', v: 'Infinity' };
        if (value === -Infinity) return { '~t': 'number', v: '-Infinity' };
        return objectIs(value, -0) ? { '~t': 'number', v: '-0' } : value;
      case 'undefined':
        return { '~t': 'undefined' };
      case 'bigint':
        return { '~t': 'bigint', v: String(value) };
      case 'function':
        throw walk.fail(key, 'function ' + (value.name || '(anonymous)'));
      case 'symbol':
        throw walk.fail(key, 'symbol ' + String(value));
    }
    return value === null ? null : tagObject(value, key, walk);
  }

  /** @param {any} value an object @param {Segment} key @param {Walk} walk @returns {TaggedJson} */
  function tagObject(value, key, walk) {
    var proto = protoOf(value);
    if (proto === Object.prototype || proto === null) return tagPlain(value, key, walk);
    if (proto === Array.prototype) return tagArray(value, key, walk);
    if (proto === RealDate.prototype) {
      var time = dateTime(value);
      return { '~t': 'Date', v: time !== time ? null : dateIso(value) };
    }
    if (proto === RegExp.prototype)
      return { '~t': 'RegExp', v: '/' + regexpSource(value) + '/' + regexpFlags(value) };
    if (proto === RealSet.prototype) return tagSet(value, key, walk);
    if (proto === RealMap.prototype) return tagMap(value, key, walk);
    for (var t = 0; t < BINARY.length; t++) {
      if (BINARY[t][1].prototype !== proto) continue;
      var name = BINARY[t][0],
        bytes;
      if (name === 'ArrayBuffer') bytes = new RealUint8Array(value, 0, abLength(value));
      else if (name === 'DataView')
        bytes = new RealUint8Array(dvBuffer(value), dvOffset(value), dvLength(value));
      else bytes = new RealUint8Array(bufferOf(value), viewOffset(value), viewLength(value));
      return { '~t': name, v: toBase64(bytes) };
    }
    throw walk.fail(key, describeInstance(value, proto));
  }

  /** @param {Record<string, unknown>} obj @param {Segment} key @param {Walk} walk */
  function tagPlain(obj, key, walk) {
    walk.enter(obj, key);
    var names = keysOf(obj),
      out = /** @type {TaggedObject} */ ({}),
      escape = false,
      entries = /** @type {Array<[string, TaggedJson]>} */ ([]);
    for (var i = 0; i < names.length; i++) {
      var name = names[i];
      if (name === TAG) escape = true;
      var tagged = tagValue(obj[name], name, walk);
      setKey(out, name, tagged);
      push(entries, [name, tagged]);
    }
    var symbols = ownSymbols(obj);
    for (var s = 0; s < symbols.length; s++) {
      if (isEnumerable(obj, symbols[s]))
        throw walk.fail(special('[' + String(symbols[s]) + ']'), 'symbol-keyed property');
    }
    walk.leave();
    return escape ? { '~t': 'object', v: entries } : out;
  }

  /** @param {unknown[]} array @param {Segment} key @param {Walk} walk */
  function tagArray(array, key, walk) {
    walk.enter(array, key);
    var out = /** @type {TaggedJson[]} */ ([]);
    for (var i = 0; i < array.length; i++) {
      var item = array[i];
      push(out, item === undefined && !(i in array) ? { '~t': 'hole' } : tagValue(item, i, walk));
    }
    walk.leave();
    return out;
  }

  /** @param {Set<unknown>} set @param {Segment} key @param {Walk} walk */
  function tagSet(set, key, walk) {
    walk.enter(set, key);
    var items = /** @type {TaggedJson[]} */ ([]),
      it = setValues(set),
      step;
    while (!(step = iterNext(it)).done)
      push(items, tagValue(step.value, special('<set item #' + items.length + '>'), walk));
    walk.leave();
    return { '~t': 'Set', v: items };
  }

  /** @param {Map<unknown, unknown>} map @param {Segment} key @param {Walk} walk */
  function tagMap(map, key, walk) {
    walk.enter(map, key);
    var entries = /** @type {TaggedJson[]} */ ([]),
      it = mapEntries(map),
      step;
    while (!(step = iterNext(it)).done) {
      var i = entries.length,
        k = step.value[0];
      var primitive =
        k === null || (typeof k !== 'object' && typeof k !== 'function' && typeof k !== 'symbol');
      push(entries, [
        tagValue(k, special('<map entry #' + i + ' key>'), walk),
        tagValue(
          step.value[1],
          special(primitive ? '<map key ' + describeKey(k) + '>' : '<map entry #' + i + '>'),
          walk,
        ),
      ]);
    }
    walk.leave();
    return { '~t': 'Map', v: entries };
  }

  /** @param {object} value @param {any} proto */
  function describeInstance(value, proto) {
    if (proto === RealPromise.prototype) return 'promise';
    if (proto === WeakMap.prototype) return 'WeakMap';
    if (proto === WeakSet.prototype) return 'WeakSet';
    if (proto === WeakRef.prototype) return 'WeakRef';
    var ctor = hasOwn(proto, 'constructor') ? proto.constructor : undefined;
    if (typeof ctor === 'function' && ctor.name !== '') return 'instance of ' + ctor.name;
    return 'object with a custom prototype';
  }

  /** @param {unknown} value @param {string} root @param {number} maxChars */
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

  /** @type {Codec} */
  var codec = { revive: revive, finish: finish };
  return codec;
})();
