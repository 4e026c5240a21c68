import { DEFAULTS } from '../../config/config.js';
import type { DeliveredStatus, SubscriptionTuning } from '../../config/event-store-option-groups.js';
import { EventStoreUsageError } from '../errors/event-store-usage.error.js';
import type { HistoryEvent } from '../store-event.js';

export type {
  DeliveredStatus,
  SubscriptionStart,
  SubscriptionTuning,
} from '../../config/event-store-option-groups.js';

/** What a subscription's handler gets beside the event. */
export interface SubscriptionContext {
  /** The subscription's name. */
  readonly name: string;
  /** 1 on the first try of this event, then 2, 3, ... (counted across processes). */
  readonly attempt: number;
  /** Aborted when the call passes `handlerTimeoutMs`, the subscription stops past `stopTimeoutMs` or loses its lease: stop I/O then. */
  readonly signal: AbortSignal;
}

/**
 * Called with each history event, in version order, at least once. Throwing
 * (or rejecting) fails the event: it is retried with backoff, and the
 * subscription halts after `maxAttempts`. Make it idempotent: after a crash
 * the events since the last checkpoint come again.
 */
export type SubscriptionHandler = (event: HistoryEvent, ctx: SubscriptionContext) => unknown;

/**
 * What `store.subscriptions.start` takes: a name, a handler, the types it
 * wants, and the tunable options ({@link SubscriptionTuning}), every one
 * optional with the default shown.
 */
export interface SubscriptionOptions extends SubscriptionTuning {
  /** Its name, 1 to 128 characters: its checkpoint row's key, shared by every process running it. */
  readonly name: string;
  /** Called with each event (see {@link SubscriptionHandler}). */
  readonly handle: SubscriptionHandler;
  /** Only these event types reach the handler (the checkpoint passes the others). @defaultValue every type */
  readonly types?: readonly string[];
}

/** Default values of a subscription's options: `DEFAULTS.eventStore.subscription`. */
export const SUBSCRIPTION_DEFAULTS = DEFAULTS.eventStore.subscription;

/** The options with defaults filled in. */
export type ResolvedSubscriptionOptions = Required<Omit<SubscriptionOptions, 'types'>> &
  Pick<SubscriptionOptions, 'types'>;

const NUMBERS = [
  'batchSize',
  'pollMs',
  'leaseMs',
  'takeoverMs',
  'retryDelayMs',
  'maxRetryDelayMs',
  'maxAttempts',
  'handlerTimeoutMs',
  'stopTimeoutMs',
] as const;
const STATUSES: readonly DeliveredStatus[] = ['handled', 'ignored', 'skipped'];

/** Checks `options` and fills in the defaults; throws `EventStoreUsageError` naming what is wrong. */
export function resolveSubscriptionOptions(options: SubscriptionOptions): ResolvedSubscriptionOptions {
  const fail = (message: string): never => {
    throw new EventStoreUsageError(`store.subscriptions.start: ${message}`);
  };
  if (options === null || typeof options !== 'object') fail('pass { name, handle }');
  checkName(options.name, fail);
  if (typeof options.handle !== 'function') fail('handle must be a function (event, ctx) => ...');
  for (const key of NUMBERS) {
    const value = options[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647))
      fail(`${key} must be a whole number from 1 to 2147483647, got ${String(value)}`);
  }
  const from = options.from;
  if (from !== undefined && from !== 'beginning' && from !== 'end' && !isVersion(from))
    fail(`from must be 'beginning', 'end' or a version from 1 up, got ${String(from)}`);
  if (options.types !== undefined && !Array.isArray(options.types))
    fail('types must be an array of event types');
  const statuses = options.statuses;
  if (statuses !== undefined && (!Array.isArray(statuses) || statuses.some((s) => !STATUSES.includes(s))))
    fail(`statuses must be an array of ${STATUSES.map((s) => `'${s}'`).join(', ')}`);
  const resolved = { ...SUBSCRIPTION_DEFAULTS, ...options };
  if (resolved.leaseMs < 3 * resolved.pollMs)
    fail(`leaseMs (${resolved.leaseMs}) must be at least 3 times pollMs (${resolved.pollMs})`);
  return resolved;
}

/** Checks a subscription name (1 to 128 characters). */
export function checkName(name: unknown, fail: (message: string) => never): asserts name is string {
  if (typeof name !== 'string' || name.length < 1 || name.length > 128)
    fail(`a subscription's name is a string of 1 to 128 characters, got ${JSON.stringify(name)}`);
}

/** Whether `v` is a version (a whole number from 1 up). */
export function isVersion(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
}
