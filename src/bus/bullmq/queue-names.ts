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
  /** BullMQ queue of sync-chain retries and failures. */
  readonly retry: string;
}

/** Derives every name from the config. */
export function queueNames(config: Pick<CommitbusConfig, 'prefix' | 'name'>): QueueNames {
  return {
    stream: `${config.prefix}:${config.name}:stream`,
    group: 'drains',
    drain: `${config.name}-drain`,
    async: `${config.name}-async`,
    retry: `${config.name}-retry`,
  };
}
