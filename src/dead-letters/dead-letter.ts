import { createHash } from 'node:crypto';
import { InternalError } from '../support/errors/internal.error.js';
import type { AttemptFailure } from './attempt-failure.js';

/**
 * `handler`: a handler that was given up. `undecodable`: a payload no event
 * class could be read from. `event`: an event a drain could not hand on to its
 * handlers at all, or an ordered event its lane could not take (re-driving
 * publishes it again, without its lane). `webhook`: a batch the
 * router could not deliver to a subscriber (re-driving queues its events for
 * that subscriber again).
 */
export type DeadLetterKind = 'handler' | 'undecodable' | 'event' | 'webhook';

/**
 * Why work was given up: `exhausted` (its last attempt threw), `timeout` (its
 * last attempt timed out), `non-retryable` (it threw `NonRetryableError` or
 * BullMQ's `UnrecoverableError`), `unknown-handler` (this worker's
 * `EVENT_HANDLERS` has no such handler for the event), `unknown-event-type`
 * (no registered class for its handling key), `malformed` (not a commitbus
 * envelope, or one `serialize` would have refused), `undeliverable` (the
 * transport refused the handler's job, or the drain failed on the event with
 * an error other than an outage), `crashed` (delivered more than
 * `maxDeliveries` times: its worker died or stalled each time, so it was not
 * run again), `expired` (a webhook batch still undelivered after the router's
 * `maxAgeMs`), `skipped-by-rebase` (an ordered event that came for a position
 * its key's lane had skipped in a re-base: it can no longer run in order, and
 * re-driving it runs its handlers outside the key's order).
 */
export type DeadLetterReason =
  | 'exhausted'
  | 'timeout'
  | 'non-retryable'
  | 'unknown-handler'
  | 'unknown-event-type'
  | 'malformed'
  | 'undeliverable'
  | 'crashed'
  | 'expired'
  | 'skipped-by-rebase';

/** Work that was given up, kept with every attempt's error until it is re-driven or purged. */
export interface DeadLetter {
  /**
   * Stable id: `<event id>.<handler>` for a handler, `undecodable.<hash of
   * the payload>` or `event.<hash of the payload>` for a payload,
   * `webhook.<batch id>` for a webhook batch; the same failure delivered
   * twice is one letter.
   */
  readonly id: string;
  /** What was given up. */
  readonly kind: DeadLetterKind;
  /** The event's id, when the payload has one. */
  readonly eventId?: string;
  /** The event's handling key, when the payload has one. */
  readonly handlingKey?: string;
  /** The handler given up (absent for `undecodable`). */
  readonly handler?: string;
  /** Why it was given up. */
  readonly reason: DeadLetterReason;
  /** The last attempt's error message. */
  readonly error: string;
  /** Every failed attempt, first to last, with its error, stack and time. */
  readonly attempts: readonly AttemptFailure[];
  /** When the first attempt failed. */
  readonly firstFailedAt: Date;
  /** When it was given up. */
  readonly deadAt: Date;
  /** The serialized event, as published. */
  readonly payload: string;
}

/** A handler given up after `attempts` (at least one). */
export function handlerDeadLetter(
  payload: string,
  handler: string,
  reason: DeadLetterReason,
  attempts: readonly AttemptFailure[],
  deadAt: Date = new Date(),
): DeadLetter {
  const envelope = peekEnvelope(payload);
  const id =
    envelope.eventId !== undefined ? `${envelope.eventId}.${handler}` : `${handler}.${payloadHash(payload)}`;
  return letter(id, 'handler', envelope, reason, attempts, deadAt, payload, handler);
}

/** A payload that could not be decoded, with the decode failure as its attempt. */
export function undecodableDeadLetter(
  payload: string,
  reason: DeadLetterReason,
  attempts: readonly AttemptFailure[],
  deadAt: Date = new Date(),
): DeadLetter {
  const id = `undecodable.${payloadHash(payload)}`;
  return letter(id, 'undecodable', peekEnvelope(payload), reason, attempts, deadAt, payload);
}

/**
 * An event a drain could not hand on to its handlers, or an ordered event its
 * lane could not take (`skipped-by-rebase`), with what went wrong as its attempt.
 */
export function eventDeadLetter(
  payload: string,
  reason: DeadLetterReason,
  attempts: readonly AttemptFailure[],
  deadAt: Date = new Date(),
): DeadLetter {
  return letter(
    `event.${payloadHash(payload)}`,
    'event',
    peekEnvelope(payload),
    reason,
    attempts,
    deadAt,
    payload,
  );
}

/**
 * A webhook batch the router gave up: `payload` is `{subscriber, events}` as
 * JSON (see the router's `webhook-dead-letter.ts`).
 */
export function webhookDeadLetter(
  batchId: string,
  payload: string,
  reason: DeadLetterReason,
  attempts: readonly AttemptFailure[],
  deadAt: Date = new Date(),
): DeadLetter {
  return letter(`webhook.${batchId}`, 'webhook', {}, reason, attempts, deadAt, payload);
}

function letter(
  id: string,
  kind: DeadLetterKind,
  envelope: { eventId?: string; handlingKey?: string },
  reason: DeadLetterReason,
  attempts: readonly AttemptFailure[],
  deadAt: Date,
  payload: string,
  handler?: string,
): DeadLetter {
  const first = attempts[0];
  const last = attempts[attempts.length - 1];
  if (first === undefined || last === undefined)
    throw new InternalError('a dead letter needs at least one attempt');
  return {
    id,
    kind,
    ...envelope,
    ...(handler !== undefined ? { handler } : {}),
    reason,
    error: last.error,
    attempts,
    firstFailedAt: first.at,
    deadAt,
    payload,
  };
}

function payloadHash(payload: string): string {
  return createHash('sha256').update(payload).digest('hex').slice(0, 32);
}

/** Reads id and key from an envelope without trusting it. */
/** The event id and handling key of a serialized event, as far as it can be read. */
export function peekEnvelope(payload: string): { eventId?: string; handlingKey?: string } {
  try {
    const parsed = JSON.parse(payload) as { key?: unknown; event?: { id?: unknown } } | null;
    return {
      ...(typeof parsed?.key === 'string' ? { handlingKey: parsed.key } : {}),
      ...(typeof parsed?.event?.id === 'string' ? { eventId: parsed.event.id } : {}),
    };
  } catch {
    return {};
  }
}
