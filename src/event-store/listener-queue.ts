import { describeError, type Logger } from '../support/logger.js';
import { insideWriter } from './event-cycle.js';
import type { Listener } from './event-model.js';
import type { HistoryEvent } from './store-event.js';

// Past this many events waiting for listeners, say so once: a listener is stuck or too slow.
const BACKLOG_WARNING = 10_000;

/**
 * Calls the listeners with each handled event, in order, one event at a
 * time, apart from the writer: a slow listener (or one that never settles)
 * delays the listeners, never the writer. A listener's failure is logged and
 * not retried.
 */
export class ListenerQueue {
  private readonly waiting: HistoryEvent[] = [];
  private running: Promise<void> | undefined;
  private warned = false;

  constructor(
    private readonly listeners: readonly Listener[],
    private readonly logger: Logger,
  ) {}

  /** Queues handled events for the listeners. */
  push(events: readonly HistoryEvent[]): void {
    if (this.listeners.length === 0 || events.length === 0) return;
    this.waiting.push(...events);
    if (this.waiting.length > BACKLOG_WARNING && !this.warned) {
      this.warned = true;
      this.logger.warn(
        { waiting: this.waiting.length },
        'event store: listeners lag more than 10,000 events behind the writer (is one stuck?)',
      );
    }
    this.running ??= this.drain();
  }

  /** Resolves once the listeners caught up, or after `timeoutMs`; false when they did not. */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.running === undefined) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const done = await Promise.race([this.running.then(() => true as const), late]);
    clearTimeout(timer);
    return done;
  }

  private async drain(): Promise<void> {
    try {
      for (let event = this.waiting.shift(); event !== undefined; event = this.waiting.shift()) {
        for (const listener of this.listeners) {
          const current = event;
          try {
            await insideWriter.run('listener', () => listener(current));
          } catch (error) {
            this.logger.warn(
              { v: current.v, type: current.type, error: describeError(error) },
              'event store: a listener failed (the event is handled; listeners are not retried)',
            );
          }
        }
      }
    } finally {
      this.running = undefined;
      this.warned = false;
    }
  }
}
