/**
 * `target` with one method replaced by `wrap(original)`, every other method
 * bound to it: a hook or a fault at one port call (a store's claim, a git
 * command), the rest of the port real.
 */
export function withMethod<T extends object, K extends keyof T>(
  target: T,
  name: K,
  wrap: (original: T[K]) => T[K],
): T {
  const replaced = wrap((target[name] as (...a: unknown[]) => unknown).bind(target) as T[K]);
  return new Proxy(target, {
    get(t, prop, recv) {
      if (prop === name) return replaced;
      const v = Reflect.get(t, prop, recv);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}
