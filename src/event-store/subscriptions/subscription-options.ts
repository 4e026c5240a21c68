import { EventStoreUsageError } from '../errors/event-store-usage.error.js';
import type { HistoryEvent, StoreEventStatus } from '../store-event.js';

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

/** The statuses of history events a subscription can be given. */
export type DeliveredStatus = Exclude<StoreEventStatus, 'queued'>;

/** Where a new subscription starts: at v1, after the version handled now, or at version `v`. */
export type SubscriptionStart = 'beginning' | 'end' | number;

/** What `store.subscriptions.start` takes. Every number is optional, with the default shown. */
export interface SubscriptionOptions {
  /** Its name, 1 to 128 characters: its checkpoint row's key, shared by every process running it. */
  readonly name: string;
  /** Called with each event (see {@link SubscriptionHandler}). */
  readonly handle: SubscriptionHandler;
  /**
   * Where it starts when it has no checkpoint yet: `'beginning'` (v1),
   * `'end'` (after the version handled when it is first started) or a version
   * (the first one it gets). An existing checkpoint is kept; move it with
   * `store.subscriptions.reset`.
   * @defaultValue `'beginning'`
   */
  readonly from?: SubscriptionStart;
  /** Only these event types reach the handler (the checkpoint passes the others). @defaultValue every type */
  readonly types?: readonly string[];
  /**
   * Only events of these statuses reach the handler (the checkpoint passes
   * the others). `skipped` events are those an operator stepped over: they
   * changed nothing.
   * @defaultValue `['handled', 'ignored']`
   */
  readonly statuses?: readonly DeliveredStatus[];
  /** Events read in one page; the checkpoint is stored after each page (so at most this many come again after a crash). @defaultValue 100 */
  readonly batchSize?: number;
  /** How often an idle consumer looks for new versions, in ms (the writer's process also wakes it at once). @defaultValue 100 */
  readonly pollMs?: number;
  /** The consumer's lease on the checkpoint row, in ms; renewed every third of it. A crashed consumer's work is taken over after it. @defaultValue 15000 */
  readonly leaseMs?: number;
  /** How often a process that is not the consumer tries to become it, in ms. @defaultValue 1000 */
  readonly takeoverMs?: number;
  /** First wait before a failed event is tried again, in ms; doubles per attempt. @defaultValue 1000 */
  readonly retryDelayMs?: number;
  /** Longest wait between tries of a failed event, in ms. @defaultValue 60000 */
  readonly maxRetryDelayMs?: number;
  /** Tries of one event before the subscription halts at it. @defaultValue 10 */
  readonly maxAttempts?: number;
  /** How long one call of the handler may take, in ms; past it the try fails (`SubscriptionHandlerTimeoutError`) and is retried. @defaultValue 60000 */
  readonly handlerTimeoutMs?: number;
  /** How long `stop()` waits for the handler running, in ms, before it aborts `ctx.signal` and lets go. @defaultValue 30000 */
  readonly stopTimeoutMs?: number;
}

/** Default values of a subscription's options. */
export const SUBSCRIPTION_DEFAULTS = {
  from: 'beginning',
  statuses: ['handled', 'ignored'],
  batchSize: 100,
  pollMs: 100,
  leaseMs: 15_000,
  takeoverMs: 1_000,
  retryDelayMs: 1_000,
  maxRetryDelayMs: 60_000,
  maxAttempts: 10,
  handlerTimeoutMs: 60_000,
  stopTimeoutMs: 30_000,
} as const satisfies Partial<SubscriptionOptions>;

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
