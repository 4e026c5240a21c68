import type { CommitbusConfig } from '../../config/config.js';

/** The Redis names one bus uses, all under `config.prefix`. */
export interface QueueNames {
  /** Stream holding published, not yet handled events. */
  readonly stream: string;
  /** Consumer group of the drains. */
  readonly group: string;
  /** BullMQ queue of `handle-events` drain jobs. */
  readonly drain: string;
  /** BullMQ queue of async handler jobs. */
  readonly async: string;
  /** BullMQ queue of sync-chain retries. */
  readonly retry: string;
  /** Hash of dead letters: letter id to letter JSON. */
  readonly deadLetters: string;
  /** Sorted set of dead-letter ids by the time they were given up. */
  readonly deadLettersByTime: string;
}

/** Derives every name from the config. */
export function queueNames(config: Pick<CommitbusConfig, 'prefix' | 'name'>): QueueNames {
  return {
    stream: `${config.prefix}:${config.name}:stream`,
    group: 'drains',
    drain: `${config.name}-drain`,
    async: `${config.name}-async`,
    retry: `${config.name}-retry`,
    deadLetters: `${config.prefix}:${config.name}:dead-letters`,
    deadLettersByTime: `${config.prefix}:${config.name}:dead-letters-by-time`,
  };
}
