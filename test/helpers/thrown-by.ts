import { expect } from 'vitest';

/** What `fn` throws; fails the test when it returns. */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return expect.unreachable('expected a throw');
}
