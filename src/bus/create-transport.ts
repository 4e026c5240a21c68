import type { CommitbusConfig } from '../config/config.js';
import type { Logger } from '../support/logger.js';
import { MemoryTransport } from '../transports/memory/memory.transport.js';
import { BullmqTransport } from '../transports/redis/bullmq.transport.js';
import type { Transport } from './transport.js';

/** The adapter `config.transport` names; typed as {@link Transport}, so both must provide every port. */
export function createTransport(config: CommitbusConfig, logger: Logger): Transport {
  return config.transport === 'bullmq' ? new BullmqTransport(config, logger) : new MemoryTransport(config);
}
