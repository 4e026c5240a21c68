/**
 * The router's option groups that have defaults (their values are in
 * `DEFAULTS.router`, `config.ts`): pure shapes, so that the defaults of the
 * bus, the router and the event store live in one object in this room.
 * The router room re-exports them where they were (`commitbus/router`).
 */

/** How long a failed batch waits before its next delivery. */
export interface DeliveryBackoff {
  /**
   * Routemaster's base: a subscriber with `hp` health points waits
   * `round(baseMs * 2^-hp)`, so a subscriber failing for long waits up to `baseMs`.
   * @defaultValue 60_000
   */
  readonly baseMs: number;
  /**
   * A floor doubling per attempt of the batch: `floorMs * 2^(attempts-1)`.
   * At full health Routemaster's wait is ~0, so without it a new failing
   * subscriber would use up `maxAttempts` in a second.
   * @defaultValue 1_000
   */
  readonly floorMs: number;
  /**
   * No wait is longer than this (before the jitter).
   * @defaultValue 3_600_000
   */
  readonly maxMs: number;
}

/** What a delivery worker (`DeliveryWorker`) tunes. */
export interface DeliverySettings {
  /**
   * Batches delivered at once by one worker.
   * @defaultValue 64
   */
  readonly concurrency: number;
  /**
   * Batches of one subscriber out at once across all workers (an ordered
   * subscriber: 1): enough for one busy subscriber to be fed at full speed,
   * few enough that a hanging one holds only a quarter of a worker's slots.
   * @defaultValue 16
   */
  readonly maxInFlightPerSubscriber: number;
  /**
   * A taken batch not acked or nacked within this is recovered by the upkeep (its
   * worker died). Longer than the sender's connect + request timeouts.
   * @defaultValue 30_000, or those timeouts + 8 s when that is more
   */
  readonly leaseMs: number;
  /**
   * Longest wait for work before looking again (retries come due without a wake-up).
   * @defaultValue 250
   */
  readonly idleWaitMs: number;
  /** The wait before a failed batch's next delivery. @defaultValue `DEFAULTS.router.delivery.backoff` */
  readonly backoff: DeliveryBackoff;
  /**
   * A batch whose delivery failed this many times becomes a dead letter.
   * @defaultValue 25
   */
  readonly maxAttempts: number;
  /**
   * A batch still failing this long after it was made becomes a dead letter.
   * @defaultValue 259_200_000 (3 days)
   */
  readonly maxAgeMs: number;
}

/** What the router's upkeep (`RouterUpkeep`) tunes. */
export interface UpkeepSettings {
  /**
   * How often early batches past their deadline are made ready. With `timeout` 0 this
   * bounds the publish-to-delivery latency.
   * @defaultValue 10
   */
  readonly promoteEveryMs: number;
  /**
   * How often batches whose lease ended (their worker died) are put back.
   * @defaultValue 1_000
   */
  readonly recoverEveryMs: number;
  /**
   * How often memory is checked for the autodrop.
   * @defaultValue 10_000
   */
  readonly autodropEveryMs: number;
  /**
   * Above this many bytes used by the store (Redis `used_memory`: all of that
   * Redis, the bus's own keys included), the oldest batches are dropped and
   * their events lost. Off (`0`) unless set: turn it on only with a Redis
   * given to the router, or a mark well above what the rest uses.
   * @defaultValue 0 (off)
   */
  readonly autodropHighBytes: number;
  /**
   * ... until the store uses at most this many bytes.
   * @defaultValue 80 % of `autodropHighBytes`
   */
  readonly autodropLowBytes: number;
  /**
   * Batches dropped per step, memory being read again between steps.
   * @defaultValue 100
   */
  readonly autodropBatchSize: number;
  /**
   * Most batches one check drops; the next check (`autodropEveryMs` later)
   * reads memory again, so a mark the router's batches cannot reach (memory
   * held by other keys, or freed lazily) does not empty the queue at once.
   * @defaultValue 1_000
   */
  readonly autodropMaxBatchesPerRun: number;
}

/**
 * The router API's settings that have defaults; `ApiSettings` adds the root
 * key and the TLS material, which have none.
 */
export interface RouterApiTuning {
  /**
   * Accept `http:` entity and callback URLs as well as `https:` (development only).
   * @defaultValue false
   */
  readonly allowHttpUrls?: boolean;
  /**
   * The largest `data` of a published event, in bytes of {@link RouterApiTuning.dataLimitEncoding}.
   * Routemaster's limit is 64 bytes of MessagePack.
   * @defaultValue 65_536
   */
  readonly maxDataBytes?: number;
  /**
   * How `data` is measured against {@link RouterApiTuning.maxDataBytes}: as JSON text, or as
   * MessagePack packed as Ruby's msgpack packs it, smallest headers first (Routemaster's way).
   * @defaultValue 'json'
   */
  readonly dataLimitEncoding?: 'json' | 'msgpack';
  /**
   * The largest request body, in bytes; a larger one gets 413.
   * @defaultValue 1_048_576
   */
  readonly bodyLimit?: number;
  /**
   * How long a client token looked up in the store is trusted without asking
   * again, for ingest throughput. A token deleted through another router
   * process may keep working here for up to this long (a deletion through this
   * one takes effect at once). 0 turns the cache off.
   * @defaultValue 5_000
   */
  readonly tokenCacheMs?: number;
  /**
   * Require the root key for `GET /metrics` (otherwise it is open, for a scraper on a private network).
   * @defaultValue false
   */
  readonly metricsNeedRootKey?: boolean;
  /**
   * `GET /pulse/scaling` counts the batches due within this many ms
   * (Routemaster's `ROUTEMASTER_SCALING_DEADLINE`).
   * @defaultValue 1_000
   */
  readonly scalingDeadlineMs?: number;
  /**
   * `GET /pulse/scaling` advises scaling up (answers after a second, with
   * `scale_up: true`) from this many due batches on (Routemaster's
   * `ROUTEMASTER_SCALING_THRESHOLD`).
   * @defaultValue 100
   */
  readonly scalingThreshold?: number;
  /**
   * The realm named in `WWW-Authenticate` on a 401.
   * @defaultValue 'commitbus'
   */
  readonly realm?: string;
}

/** A new subscriber's batch settings when its subscription leaves them out, as Routemaster has them. */
export interface SubscriberBatching {
  /**
   * A batch is ready when it holds this many events.
   * @defaultValue 100
   */
  readonly maxEvents: number;
  /**
   * ... or this long after its first event, ms.
   * @defaultValue 500
   */
  readonly timeoutMs: number;
}

/** The router's defaults, one group per component (`DEFAULTS.router`). */
export interface RouterDefaults {
  /** The delivery workers', with their backoff. */
  readonly delivery: DeliverySettings;
  /** The upkeep's (the autodrop's low mark is worked out from the high one when not given). */
  readonly upkeep: UpkeepSettings;
  /** The HTTP API's. */
  readonly api: Required<RouterApiTuning>;
  /** A new subscriber's batches. */
  readonly subscriber: SubscriberBatching;
}
