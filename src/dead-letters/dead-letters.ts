import type { Event } from '../bus/event.js';
import type { EventSerializer } from '../bus/event-serializer.js';
import { describeError } from '../bus/logger.js';
import type { HandlerJob } from '../handlers/handler-job.js';
import type { HandlerTable } from '../handlers/handler-table.js';
import type { DeadLetter } from './dead-letter.js';
import { DeadLetterRedriveError, type RedriveFailure } from './dead-letter-redrive.error.js';
import type { DeadLetterFilter, DeadLetterStore } from './dead-letter-store.js';

/** Which dead letters to re-drive or purge: one id, a filter, or `'all'`. */
export type DeadLetterTarget = 'all' | string | DeadLetterFilter;

/** What {@link DeadLetters} needs from its bus. */
export interface DeadLettersDeps {
  /** Where the letters are. */
  readonly store: DeadLetterStore;
  /** This process's `EVENT_HANDLERS`, for each re-driven handler's attempts and backoff. */
  readonly handlers: HandlerTable;
  /** Decodes payloads, as a worker would. */
  readonly serializer: EventSerializer;
  /** Adds handler jobs to the transport. */
  readonly enqueue: (jobs: readonly HandlerJob[]) => Promise<void>;
  /** Publishes events (re-driven undecodable payloads). */
  readonly publish: (events: readonly Event[]) => Promise<void>;
}

/**
 * The dead letters of a bus (`bus.deadLetters`): work given up after its last
 * attempt, kept until it is re-driven or purged.
 */
export class DeadLetters {
  constructor(private readonly deps: DeadLettersDeps) {}

  /** Letters matching `filter` (all when left out), oldest first. */
  list(filter?: DeadLetterFilter): Promise<DeadLetter[]> {
    return this.deps.store.list(filter);
  }

  /** One letter by id, or `undefined`. */
  get(id: string): Promise<DeadLetter | undefined> {
    return this.deps.store.get(id);
  }

  /**
   * Gives letters another go and removes them; returns how many. A `handler`
   * letter runs only its handler (a sync one too, without the rest of its
   * chain or the event's other handlers), as a fresh job with that handler's
   * attempts and backoff; if those fail, it comes back as a new letter. An
   * `undecodable` letter is published again as an event (e.g. once its class
   * is deployed). Letters that still cannot be decoded, or whose handler this
   * process does not know, stay, and a {@link DeadLetterRedriveError} names them.
   */
  async redrive(target: DeadLetterTarget): Promise<number> {
    const letters = await this.select(target);
    const jobs: HandlerJob[] = [];
    const events: Event[] = [];
    const redriven: DeadLetter[] = [];
    const failed: RedriveFailure[] = [];
    const errors: unknown[] = [];
    for (const letter of letters) {
      try {
        const event = this.deps.serializer.deserialize(letter.payload);
        if (letter.kind === 'undecodable') {
          events.push(event);
        } else {
          jobs.push(this.redriveJob(letter, event));
        }
        redriven.push(letter);
      } catch (error) {
        failed.push({ id: letter.id, error: describeError(error).message });
        errors.push(error);
      }
    }
    await Promise.all([
      jobs.length > 0 ? this.deps.enqueue(jobs) : undefined,
      events.length > 0 ? this.deps.publish(events) : undefined,
    ]);
    // By version: a letter that already failed again since is a new failure and stays.
    await this.deps.store.remove(redriven.map(({ id, deadAt }) => ({ id, deadAt })));
    if (failed.length > 0) {
      const cause = errors.length === 1 ? errors[0] : new AggregateError(errors, 'redrive failures');
      throw new DeadLetterRedriveError(redriven.length, failed, { cause });
    }
    return redriven.length;
  }

  /** Deletes letters without running anything; returns how many. */
  async purge(target: DeadLetterTarget): Promise<number> {
    if (typeof target === 'string' && target !== 'all') return this.deps.store.remove([target]);
    const letters = await this.select(target);
    return this.deps.store.remove(letters.map((l) => l.id));
  }

  private async select(target: DeadLetterTarget): Promise<DeadLetter[]> {
    if (target === 'all') return this.deps.store.list();
    if (typeof target === 'string') {
      const letter = await this.deps.store.get(target);
      return letter === undefined ? [] : [letter];
    }
    if (Object.keys(target).length === 0) {
      throw new TypeError("an empty filter would select every dead letter: pass 'all' to mean that");
    }
    return this.deps.store.list(target);
  }

  private redriveJob(letter: DeadLetter, event: Event): HandlerJob {
    const handler = this.deps.handlers.find(event.handlingKey, letter.handler ?? '');
    return {
      kind: 'async',
      // One job per version of the letter: re-driving it twice at once adds one job.
      jobId: `${letter.id}.redrive.${letter.deadAt.getTime()}`,
      payload: letter.payload,
      handler: handler.name,
      attempts: handler.attempts,
      backoff: handler.backoff,
      delayMs: 0,
    };
  }
}
