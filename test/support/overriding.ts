/**
 * `target` with one method replaced and the real object answering everything else: fault
 * injection over a real store, queue or client, never a mock of a driver. `replace` receives
 * the real method, bound to `target`.
 */
export function overriding<T extends object, K extends keyof T & string>(
  target: T,
  name: K,
  replace: (real: T[K]) => T[K],
): T {
  const method = target[name] as unknown as (...args: unknown[]) => unknown;
  const replacement = replace(method.bind(target) as T[K]);
  return new Proxy(target, {
    get(real, property) {
      if (property === name) return replacement;
      const value: unknown = Reflect.get(real, property, real);
      return typeof value === 'function' ? (value as () => unknown).bind(real) : value;
    },
  });
}
