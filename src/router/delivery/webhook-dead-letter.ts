import type { AttemptFailure } from '../../dead-letters/attempt-failure.js';
import { type DeadLetter, type DeadLetterReason, webhookDeadLetter } from '../../dead-letters/dead-letter.js';
import type { DeadLetterKinds, DeadLetterRedriver } from '../../dead-letters/dead-letter-kinds.js';
import { CorruptDeadLetterError } from '../../dead-letters/errors/corrupt-dead-letter.error.js';
import type { Batch } from '../batch.js';
import type { BatchStore } from '../batch-store.js';

/** The payload of a `webhook` dead letter. */
export interface WebhookLetterPayload {
  /** The subscriber the batch was for. */
  readonly subscriber: string;
  /** The batch's events, each the JSON object delivered. */
  readonly events: readonly unknown[];
  /** When the batch was made, epoch ms. */
  readonly createdAt: number;
  /** Deliveries tried in all. */
  readonly attempts: number;
}

/**
 * The dead letter of a batch given up after its last delivery failed with
 * `error`. Its id is `webhook.<batch id>`, so writing it twice (a crash
 * before the batch was discarded) keeps one letter. The port keeps the
 * previous failure's message only: it is the letter's first attempt when
 * there is one, with no time of its own (the batch's creation stands in).
 */
export function batchDeadLetter(batch: Batch, reason: DeadLetterReason, error: string, at: Date): DeadLetter {
  const payload: WebhookLetterPayload = {
    subscriber: batch.subscriber,
    events: batch.events.map((event) => JSON.parse(event) as unknown),
    createdAt: batch.createdAt,
    attempts: batch.attempts + 1,
  };
  const attempts: AttemptFailure[] = [];
  if (batch.lastError !== undefined && batch.attempts > 0) {
    attempts.push({
      attempt: batch.attempts,
      at: new Date(batch.createdAt),
      error: batch.lastError,
      name: 'WebhookDeliveryError',
    });
  }
  attempts.push({ attempt: batch.attempts + 1, at, error, name: 'WebhookDeliveryError' });
  return webhookDeadLetter(batch.id, JSON.stringify(payload), reason, attempts, at);
}

/**
 * The re-driver of `webhook` dead letters (run by `registerWebhookKind`): each letter's events go back to its subscriber as a new
 * ready batch. A letter whose payload is not a webhook batch's throws, naming
 * it, before any is queued.
 */
export function webhookRedriver(
  batches: Pick<BatchStore, 'requeue'>,
  now: () => number = Date.now,
): (letters: readonly DeadLetter[]) => Promise<void> {
  return async (letters) => {
    const batchesToQueue = letters.map((letter) => ({ letter, payload: readPayload(letter) }));
    for (const { payload } of batchesToQueue) {
      await batches.requeue(
        payload.subscriber,
        payload.events.map((event) => JSON.stringify(event)),
        now(),
      );
    }
  };
}

function readPayload(letter: DeadLetter): WebhookLetterPayload {
  let parsed: unknown;
  try {
    parsed = JSON.parse(letter.payload);
  } catch {
    parsed = undefined;
  }
  const payload = parsed as Partial<WebhookLetterPayload> | undefined;
  if (typeof payload?.subscriber !== 'string' || !Array.isArray(payload.events)) {
    throw new CorruptDeadLetterError(letter.id, 'not a webhook batch ({subscriber, events})');
  }
  return payload as WebhookLetterPayload;
}

/**
 * The `webhook` kind, registered on `kinds` by the router where it is wired:
 * letter by letter, each letter's events go back to its subscriber through
 * {@link webhookRedriver} over `batches()` (read when a letter is re-driven),
 * and the letter is removed as soon as they are queued.
 */
export function registerWebhookKind(
  kinds: DeadLetterKinds,
  batches: () => Pick<BatchStore, 'requeue'>,
  now: () => number = Date.now,
): void {
  const redriver: DeadLetterRedriver<DeadLetter> = {
    prepare: (letter) => letter,
    run: (letters) => webhookRedriver(batches(), now)(letters),
    oneByOne: true,
  };
  kinds.register('webhook', redriver);
}
