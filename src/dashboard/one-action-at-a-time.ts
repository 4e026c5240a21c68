import type { FastifyInstance } from 'fastify';

/** Runs `act` once the dashboard's actions before it have settled; resolves or rejects as `act` does. */
export type ActionQueue = <T>(act: () => Promise<T>) => Promise<T>;

const queues = new WeakMap<FastifyInstance, ActionQueue>();

/**
 * The one queue of dead-letter actions of the dashboard served by `app`. A
 * re-drive reads its letters, runs them, then removes them: two at once (a
 * double click, a confirmation sent twice) would both read the same letters
 * and run each twice. In turn, the second finds them gone (a confirmation
 * then answers 409: its preview no longer matches). Other processes (the
 * CLI, a second dashboard) are not held back by it.
 */
export function actionQueueOf(app: FastifyInstance): ActionQueue {
  const known = queues.get(app);
  if (known !== undefined) return known;
  let last: Promise<unknown> = Promise.resolve();
  const queue: ActionQueue = <T>(act: () => Promise<T>) => {
    const next = last.then(act, act);
    last = next.catch(() => undefined);
    return next;
  };
  queues.set(app, queue);
  return queue;
}
