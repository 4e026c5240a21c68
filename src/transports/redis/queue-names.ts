import type { RedisOptions } from '../../config/option-groups.js';

/**
 * The Redis names one bus uses. Every key starts with the bus's hash tag
 * `{<prefix>:<name>}` (BullMQ's too, through its `prefix`), so a Redis
 * Cluster keeps all of them in one slot and every script and BullMQ call is
 * single-slot.
 */
export interface QueueNames {
  /** The hash tag every key starts with: `{<prefix>:<name>}`. */
  readonly tag: string;
  /** Stream holding published, not yet handled events. */
  readonly stream: string;
  /** Sorted set of delayed events, scored by delivery time. */
  readonly delayed: string;
  /** Prefix of the keys remembering accepted event ids (the id follows). */
  readonly seen: string;
  /** Consumer group of the drains. */
  readonly group: string;
  /** The `prefix` of the bus's BullMQ queues: the hash tag. */
  readonly bullmqPrefix: string;
  /** BullMQ queue of `handle-events` drain jobs. */
  readonly drain: string;
  /** BullMQ queue of async handler jobs. */
  readonly async: string;
  /** BullMQ queue of sync-chain retries. */
  readonly retry: string;
  /** Hash of scheduling rules: field `<kind>:handler:<name>` or `<kind>:key:<KEY>`, value since (epoch ms). */
  readonly rules: string;
  /** Parked work: one list per handler at `<parked>:<handler>`, its release lock at `<parked>:<handler>:lock`. */
  readonly parked: string;
  /** Set of the handlers with parked work. */
  readonly parkedHandlers: string;
  /** Hash: handler name to runs dropped by blocks. */
  readonly dropped: string;
  /** Hash of dead letters: letter id to letter JSON. */
  readonly deadLetters: string;
  /** Sorted set of dead-letter ids by the time they were given up. */
  readonly deadLettersByTime: string;
  /** Hash: dead-letter id to its group (handler, kind, reason as a JSON array), for the counts. */
  readonly deadLetterGroups: string;
  /** Hash: dead-letter group to how many letters it holds. */
  readonly deadLetterCounts: string;
  /** Dead letters dropped by the retention so far. */
  readonly deadLettersDropped: string;
  /** Hash of schedules' last ticks: field the schedule's name, value the tick (epoch ms). */
  readonly scheduleTicks: string;
  /** Hash of the bus's workers: field the worker's id, value `<lastBeatAt ms>|<beat JSON>`. */
  readonly workers: string;
  /** Hash of the bus's history: field a minute's start (epoch ms), value its counts (see `history-record.lua`). */
  readonly history: string;
  /** Stream of the bus's operator actions, newest last, trimmed to `audit.maxEntries`. */
  readonly operatorActions: string;
  /** Prefix of the ordered lanes' keys (see `lane-keys.ts` and `ordered-steps.lua`). */
  readonly ordering: string;
}

/** The names of a bus's keys, from its options (`redis.prefix`, `name`). */
export function queueNamesOf(config: {
  readonly name: string;
  readonly redis: Pick<RedisOptions, 'prefix'>;
}): QueueNames {
  return queueNames({ prefix: config.redis.prefix, name: config.name });
}

/** Derives every name from a bus's key prefix and name: all under the hash tag `{<prefix>:<name>}`. */
export function queueNames(bus: { readonly prefix: string; readonly name: string }): QueueNames {
  const tag = `{${bus.prefix}:${bus.name}}`;
  return {
    tag,
    stream: `${tag}:stream`,
    delayed: `${tag}:delayed`,
    seen: `${tag}:seen:`,
    group: 'drains',
    bullmqPrefix: tag,
    drain: `${bus.name}-drain`,
    async: `${bus.name}-async`,
    retry: `${bus.name}-retry`,
    rules: `${tag}:rules`,
    parked: `${tag}:parked`,
    parkedHandlers: `${tag}:parked-handlers`,
    dropped: `${tag}:dropped`,
    deadLetters: `${tag}:dead-letters`,
    deadLettersByTime: `${tag}:dead-letters-by-time`,
    deadLetterGroups: `${tag}:dead-letter-groups`,
    deadLetterCounts: `${tag}:dead-letter-counts`,
    deadLettersDropped: `${tag}:dead-letters-dropped`,
    ordering: `${tag}:ord:`,
    scheduleTicks: `${tag}:schedule-ticks`,
    workers: `${tag}:workers`,
    history: `${tag}:history`,
    operatorActions: `${tag}:operator-actions`,
  };
}
