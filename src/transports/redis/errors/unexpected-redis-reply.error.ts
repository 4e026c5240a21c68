import { CommitbusError } from '../../../support/commitbus-error.js';

/** Redis (or a Redis Cluster) answered in a way commitbus cannot use: not a Redis server, or a cluster without a node for a slot. */
export class UnexpectedRedisReplyError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNEXPECTED_REDIS_REPLY';
}
