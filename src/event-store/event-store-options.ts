import type { DataSource } from 'typeorm';
import { DEFAULTS } from '../config/config.js';
import type { EventStoreTuning } from '../config/event-store-option-groups.js';
import type { Logger } from '../support/logger.js';
import type { RetryPolicy } from '../support/retry-policy.js';
import type { UnitOfWorkBus } from '../uow/unit-of-work-bus.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { EventModel, Listener } from './event-model.js';

export type { EventStoreTuning } from '../config/event-store-option-groups.js';

/**
 * What {@link createEventStore} takes: the DataSource, models, bus, listeners
 * and logger, and the tunable options ({@link EventStoreTuning}), every one
 * optional with the default shown.
 */
export interface EventStoreOptions extends EventStoreTuning {
  /** The DataSource holding the store's tables and the models' tables (PostgreSQL or SQLite). */
  readonly dataSource: DataSource;
  /** The models, each owning one table; reducers run in this order's results. */
  // biome-ignore lint/suspicious/noExplicitAny: models of different row types live in one list
  readonly models: readonly EventModel<any>[];
  /** The bus that `ctx.uow.register(new SendEventOp(e))` in the cycle sends through (its outbox). */
  readonly bus?: UnitOfWorkBus;
  /** Called after each event's transaction commits, in the writer process, with its history. */
  readonly listeners?: readonly Listener[];
  /** Where the writer reports failures. @defaultValue `consoleLogger` */
  readonly logger?: Logger;
}

/** The options with defaults filled in. */
export type ResolvedEventStoreOptions = Required<Omit<EventStoreOptions, 'bus'>> &
  Pick<EventStoreOptions, 'bus'>;

const { subscription: _subscription, ...storeDefaults } = DEFAULTS.eventStore;

/** Default values of the tunable options: `DEFAULTS.eventStore` without `subscription`, frozen. */
export const EVENT_STORE_DEFAULTS = Object.freeze(storeDefaults);

/**
 * The retry policy of a halted event (the writer's) and of a failed event of
 * a subscription: `retryDelayMs`, doubling per attempt, at most `maxRetryDelayMs`.
 */
export function haltRetryPolicy(options: {
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}): RetryPolicy {
  return { type: 'exponential', delayMs: options.retryDelayMs, maxDelayMs: options.maxRetryDelayMs };
}

/** Checks what {@link createEventStore} was given; throws `EventStoreUsageError` saying what is wrong. */
export function checkOptions(options: EventStoreOptions): void {
  const fail = (message: string): never => {
    throw new EventStoreUsageError(`createEventStore: ${message}`);
  };
  if (options === null || typeof options !== 'object' || options.dataSource === undefined)
    fail('pass { dataSource, models }');
  if (!Array.isArray(options.models)) fail('models must be an array of defineModel(...) models');
  for (const key of [
    'maxEventBytes',
    'batchSize',
    'pollMs',
    'takeoverMs',
    'leaseMs',
    'retryDelayMs',
    'maxRetryDelayMs',
    'writerIdleTimeoutMs',
    'stepTimeoutMs',
  ] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647)) {
      fail(`${key} must be a whole number from 1 to 2147483647, got ${String(value)}`);
    }
  }
  if (options.sqliteWal !== undefined && typeof options.sqliteWal !== 'boolean') {
    fail(`sqliteWal must be true or false, got ${String(options.sqliteWal)}`);
  }
  if (
    options.unknownTypes !== undefined &&
    options.unknownTypes !== 'halt' &&
    options.unknownTypes !== 'record'
  ) {
    fail(`unknownTypes must be 'halt' or 'record', got ${String(options.unknownTypes)}`);
  }
}
