import type { FunctionRegistry } from '../function-registry.js';
import { isRecord, valueKind } from '../value-kind.js';
import { callError, ownValue, recordArg, setOwn, stringArg } from './arguments.js';
import { defineBuiltins } from './define-builtins.js';

function get(fn: string, o: unknown, k: unknown, fallback: unknown = null): unknown {
  const record = recordArg(fn, o, 1);
  if (Array.isArray(k) || isRecord(k)) throw callError(fn, `an ${valueKind(k)} cannot be a key`);
  // Object keys are strings, so a number or null key is simply absent, as in the original.
  if (typeof k !== 'string') return fallback;
  const value = ownValue(record, k);
  return value === undefined ? fallback : value;
}

function set(fn: string, o: unknown, k: unknown, value: unknown): null {
  setOwn(recordArg(fn, o, 1), stringArg(fn, k, 2), value);
  return null;
}

function remove(fn: string, o: unknown, k: unknown): unknown {
  const record = recordArg(fn, o, 1);
  const key = stringArg(fn, k, 2);
  if (!Object.hasOwn(record, key)) throw callError(fn, `key ${JSON.stringify(key)} is not present`);
  const value = record[key];
  delete record[key];
  return value ?? null;
}

function clear(fn: string, o: unknown): null {
  if (Array.isArray(o)) {
    o.length = 0;
    return null;
  }
  const record = recordArg(fn, o, 1);
  for (const key of Object.keys(record)) delete record[key];
  return null;
}

const keys = (fn: string) => (o: unknown) => Object.keys(recordArg(fn, o, 1));
const values = (fn: string) => (o: unknown) => Object.values(recordArg(fn, o, 1));

export function registerDictFunctions(registry: FunctionRegistry): void {
  defineBuiltins(registry, 'dict', {
    keys: { fn: keys('keys'), minArgs: 1, maxArgs: 1, description: 'Keys, in order' },
    values: { fn: values('values'), minArgs: 1, maxArgs: 1, description: 'Values, in key order' },
    items: {
      fn: (o) => Object.entries(recordArg('items', o, 1)),
      minArgs: 1,
      maxArgs: 1,
      description: '[key, value] pairs, in key order',
    },
    get: {
      fn: (o, k, d) => get('get', o, k, d),
      minArgs: 2,
      maxArgs: 3,
      description: 'o[k] if present, else d',
    },
    getDictValue: {
      fn: (o, k, d) => get('getDictValue', o, k, d),
      minArgs: 2,
      maxArgs: 3,
      description: 'Alias of get',
    },
    getDictKeys: { fn: keys('getDictKeys'), minArgs: 1, maxArgs: 1, description: 'Alias of keys' },
    getDictValues: {
      fn: values('getDictValues'),
      minArgs: 1,
      maxArgs: 1,
      description: 'Alias of values',
    },
    set: {
      fn: (o, k, v) => set('set', o, k, v),
      minArgs: 3,
      maxArgs: 3,
      sideEffects: true,
      description: 'o[k] = v',
    },
    delete: {
      fn: (o, k) => remove('delete', o, k),
      minArgs: 2,
      maxArgs: 2,
      sideEffects: true,
      description: 'Remove and return o[k]',
    },
    clear: {
      fn: (o) => clear('clear', o),
      minArgs: 1,
      maxArgs: 1,
      sideEffects: true,
      description: 'Empty o',
    },
    setDictValue: {
      fn: (o, k, v) => set('setDictValue', o, k, v),
      minArgs: 3,
      maxArgs: 3,
      sideEffects: true,
      description: 'Alias of set',
    },
    delDictValue: {
      fn: (o, k) => remove('delDictValue', o, k),
      minArgs: 2,
      maxArgs: 2,
      sideEffects: true,
      description: 'Alias of delete',
    },
    clearDict: {
      fn: (o) => clear('clearDict', o),
      minArgs: 1,
      maxArgs: 1,
      sideEffects: true,
      description: 'Alias of clear',
    },
  });
}
