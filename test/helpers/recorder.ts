import { defineHandler, type Event, type Handler, type HandlerContext } from '../../src/index.js';

/** One run of a handler, as a {@link Recorder} saw it. */
export interface HandlerRun {
  readonly handler: string;
  readonly eventId: string;
  readonly key: string;
  readonly attempt: number;
}

/**
 * Records every handler run (before the handler's own behaviour, so runs that
 * throw count too), in the order they happened in this process.
 */
export class Recorder {
  readonly runs: HandlerRun[] = [];

  /** A handler named `name` that records its run, then does `behaviour` (which may throw). */
  handler<E extends Event = Event>(
    name: string,
    behaviour?: (event: E, ctx: HandlerContext) => void | Promise<void>,
  ): Handler<E> {
    return defineHandler<E>(name, async (event, ctx) => {
      this.runs.push({ handler: name, eventId: event.id, key: event.handlingKey, attempt: ctx.attempt });
      await behaviour?.(event, ctx);
    });
  }

  /** How many times `handler` ran (for `eventId`, if given). */
  count(handler: string, eventId?: string): number {
    return this.runs.filter((r) => r.handler === handler && (eventId === undefined || r.eventId === eventId))
      .length;
  }

  /** The handlers that ran for an event, in order (only those in `among`, if given). */
  order(eventId: string, among?: readonly string[]): string[] {
    return this.runs
      .filter((r) => r.eventId === eventId && (among === undefined || among.includes(r.handler)))
      .map((r) => r.handler);
  }

  /**
   * What breaks "`handler` ran exactly once for each of `eventIds`": `id×n` for
   * ids run n ≠ 1 times, including ids not in the list. Empty when it holds.
   */
  notRunOnce(handler: string, eventIds: readonly string[]): string[] {
    const counts = new Map(eventIds.map((id) => [id, 0]));
    for (const r of this.runs) {
      if (r.handler === handler) counts.set(r.eventId, (counts.get(r.eventId) ?? 0) + 1);
    }
    const expected = new Set(eventIds);
    return [...counts].filter(([id, n]) => n !== 1 || !expected.has(id)).map(([id, n]) => `${id}×${n}`);
  }
}
