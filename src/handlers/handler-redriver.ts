import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { DeadLetterKinds, DeadLetterRedriver } from '../dead-letters/dead-letter-kinds.js';
import type { Event } from '../events/event.js';
import type { HandlerJob } from './handler-job.js';
import type { HandlerTable } from './handler-table.js';
import { redriveJob } from './redrive-job.js';

/** What re-driving `handler` letters needs from the bus. */
export interface HandlerRedriverDeps {
  /** The handlers this process knows, with their attempts and backoff. */
  readonly table: HandlerTable;
  /** Decodes a payload, as a worker would (throws the serializer's typed errors). */
  readonly decode: (payload: string) => Event;
  /** Adds handler jobs to the transport. */
  readonly enqueue: (jobs: readonly HandlerJob[]) => Promise<void>;
}

/**
 * The `handler` kind, registered on `kinds` by the handlers' owner: a letter
 * runs only its handler once more, as a fresh job ({@link redriveJob});
 * prepared letters' jobs are enqueued in one call.
 */
export function registerHandlerKind(kinds: DeadLetterKinds, deps: HandlerRedriverDeps): void {
  const redriver: DeadLetterRedriver<HandlerJob> = {
    prepare: (letter: DeadLetter) => redriveJob(deps.table, letter, deps.decode(letter.payload)),
    run: (jobs) => deps.enqueue(jobs),
  };
  kinds.register('handler', redriver);
}
