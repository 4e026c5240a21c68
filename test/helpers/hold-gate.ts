/** A held call: `reached` resolves when it arrives; it goes on, to the real method, on `release()`. */
export interface HeldCall {
  /** Resolves once the held call has arrived (and waits). */
  readonly reached: Promise<void>;
  /** Lets it go on. */
  release(): void;
}

/**
 * `target` with the given methods holdable: after `holdNext()`, the next call
 * of any of them waits until released, then runs on the real object. For
 * making two calls overlap at a chosen point (a request's write held while
 * another request runs whole), with no stand-in for the store itself.
 */
export function holdable<T extends object>(
  target: T,
  methods: readonly (keyof T & string)[],
): { readonly target: T; holdNext(): HeldCall } {
  let armed: { arrived: () => void; released: Promise<void> } | undefined;
  const held = new Set<string>(methods);
  const wrapped = new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !held.has(property)) return value.bind(object);
      return async (...args: unknown[]) => {
        const gate = armed;
        armed = undefined;
        if (gate !== undefined) {
          gate.arrived();
          await gate.released;
        }
        return value.apply(object, args);
      };
    },
  });
  return {
    target: wrapped,
    holdNext() {
      let arrived = () => {};
      let release = () => {};
      const reached = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      armed = { arrived, released };
      return { reached, release };
    },
  };
}
