import type { CommitbusConfig } from '../../config/config.js';

/** The Redis names one bus uses, all under `config.prefix`. */
export interface QueueNames {
  /** Stream holding published, not yet handled events. */
  readonly stream: string;
  /** Sorted set of delayed events, scored by delivery time. */
  readonly delayed: string;
  /** Prefix of the keys remembering accepted event ids (the id follows). */
  readonly seen: string;
  /** Consumer group of the drains. */
  readonly group: string;
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
  /** Prefix of the ordered lanes' keys (see `ordered-steps.lua`). */
  readonly ordering: string;
}

/** Derives every name from the config. */
export function queueNames(config: Pick<CommitbusConfig, 'prefix' | 'name'>): QueueNames {
  return {
    stream: `${config.prefix}:${config.name}:stream`,
    delayed: `${config.prefix}:${config.name}:delayed`,
    seen: `${config.prefix}:${config.name}:seen:`,
    group: 'drains',
    drain: `${config.name}-drain`,
    async: `${config.name}-async`,
    retry: `${config.name}-retry`,
    rules: `${config.prefix}:${config.name}:rules`,
    parked: `${config.prefix}:${config.name}:parked`,
    parkedHandlers: `${config.prefix}:${config.name}:parked-handlers`,
    dropped: `${config.prefix}:${config.name}:dropped`,
    deadLetters: `${config.prefix}:${config.name}:dead-letters`,
    deadLettersByTime: `${config.prefix}:${config.name}:dead-letters-by-time`,
    ordering: `${config.prefix}:${config.name}:ord:`,
  };
}
