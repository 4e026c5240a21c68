import { DEFAULTS } from '../config/config.js';
import { RouterUsageError } from './errors/router-usage.error.js';
import type { SubscriberRecord } from './subscriber.js';

/**
 * A new subscriber's batch settings when its subscription leaves them out, as
 * Routemaster has them: `DEFAULTS.router.subscriber`.
 */
export const SUBSCRIBER_DEFAULTS = DEFAULTS.router.subscriber;

/**
 * What `POST /subscription` sets of a subscriber. `paused` and
 * `signingSecrets` are left out: they change only through their own atomic
 * operations, so a resubscription overlapping a pause or a secret rotation
 * cannot undo it.
 */
export type SubscriberSettings = Omit<
  SubscriberRecord,
  'paused' | 'signingSecrets' | 'ordered' | 'maxEvents' | 'timeoutMs'
> & {
  /** In-order delivery; left out, an existing subscriber keeps its own (a new one: `false`). */
  readonly ordered?: boolean;
  /**
   * Events in a full batch; left out, an existing subscriber keeps its own
   * (a new one: {@link SUBSCRIBER_DEFAULTS}), as in Routemaster.
   */
  readonly maxEvents?: number;
  /** ms a batch waits for more events; left out, kept as `maxEvents` is. */
  readonly timeoutMs?: number;
};

/** Which signing secrets {@link SubscriberStore.removeSigningSecrets} removes: all but the newest, or all. */
export type SigningSecretsToRemove = 'previous' | 'all';

/** Signing secrets a subscriber keeps by default: the newest and the previous, for a rotation. */
export const SIGNING_SECRETS_KEPT = 2;

/** `keep` for {@link SubscriberStore.addSigningSecret}, checked: a whole number >= 1. */
export function keptSecrets(keep: number): number {
  if (!Number.isSafeInteger(keep) || keep < 1) {
    throw new RouterUsageError(
      `keep must be a whole number >= 1 (signing secrets kept), got ${keep}: pass 1 or more, or leave it out for ${SIGNING_SECRETS_KEPT}`,
    );
  }
  return keep;
}

/** The port of the subscribers' catalogue. */
export interface SubscriberStore {
  /**
   * Creates or updates a subscriber: its settings and its topics (it stops
   * receiving topics left out), in one atomic step. Its queued events stay,
   * and so do its `paused` state and signing secrets, and its `ordered`,
   * `maxEvents` and `timeoutMs` when left out; a new subscriber starts not
   * paused, with no secrets and {@link SUBSCRIBER_DEFAULTS}.
   */
  saveSubscriber(subscriber: SubscriberSettings): Promise<void>;
  /** One subscriber, or `undefined`. */
  getSubscriber(name: string): Promise<SubscriberRecord | undefined>;
  /** Every subscriber, by name. */
  listSubscribers(): Promise<SubscriberRecord[]>;
  /** Removes a subscriber with its topics and its queued batches; `false` when there was none. */
  removeSubscriber(name: string): Promise<boolean>;
  /** Stops one subscriber receiving one topic. */
  unsubscribe(name: string, topic: string): Promise<'removed' | 'no-subscriber' | 'not-subscribed'>;
  /** Pauses or resumes a subscriber's deliveries; `false` when there is no such subscriber. */
  setPaused(name: string, paused: boolean): Promise<boolean>;
  /**
   * Puts `secret` first among a subscriber's signing secrets, keeping at most
   * `keep` (default {@link SIGNING_SECRETS_KEPT}: the new one and the
   * previous, for a rotation), in one atomic step; `false` when there is no
   * such subscriber.
   */
  addSigningSecret(name: string, secret: string, keep?: number): Promise<boolean>;
  /**
   * Removes a subscriber's signing secrets (`which`), in one atomic step:
   * `'none'` when there was nothing to remove.
   */
  removeSigningSecrets(
    name: string,
    which: SigningSecretsToRemove,
  ): Promise<'removed' | 'none' | 'no-subscriber'>;
}
