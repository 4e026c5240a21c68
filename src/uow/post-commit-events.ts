import { setTimeout as sleep } from 'node:timers/promises';
import type { Event } from '../bus/event.js';
import type { EventBus } from '../bus/event-bus.js';
import { PublishAfterCommitError } from './publish-after-commit.error.js';

/**
 * The events registered in one unit of work. The first `flush` after commit
 * publishes all of them, in registration order, in one round trip; later
 * calls share its outcome.
 */
export class PostCommitEvents {
  private readonly events: Event[] = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly bus: EventBus) {}

  /** Adds an event; it is serialized now, so a bad event fails at registration. */
  add(event: Event): void {
    if (this.flushing !== undefined) {
      throw new Error('events cannot be registered after the unit of work has committed');
    }
    this.bus.serializer.serialize(event);
    this.events.push(event);
  }

  /** The events registered so far. */
  list(): readonly Event[] {
    return this.events;
  }

  /** Publishes every event once, retrying with backoff; throws {@link PublishAfterCommitError}. */
  flush(): Promise<void> {
    this.flushing ??= this.publishWithRetry();
    return this.flushing;
  }

  private async publishWithRetry(): Promise<void> {
    if (this.events.length === 0) return;
    const { publishAttempts, publishBackoffMs } = this.bus.config;
    let lastError: unknown;
    for (let attempt = 1; attempt <= publishAttempts; attempt++) {
      try {
        await this.bus.publish(this.events);
        return;
      } catch (error) {
        lastError = error;
        if (attempt < publishAttempts) await sleep(publishBackoffMs * 2 ** (attempt - 1));
      }
    }
    throw new PublishAfterCommitError(
      this.events.map((e) => ({ id: e.id, key: e.handlingKey })),
      publishAttempts,
      { cause: lastError },
    );
  }
}
