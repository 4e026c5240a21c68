export { CommitbusError, isCommitbusError } from './commitbus-error.js';
export { InternalError } from './errors/internal.error.js';
export { OperatorActionQueryError } from './errors/operator-action-query.error.js';
export { TransportUnavailableError } from './errors/transport-unavailable.error.js';
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export type {
  OperatorAction,
  OperatorActionQuery,
  OperatorOrigin,
  OperatorSource,
} from './operator-action-log.js';
export type { OperatorAudit } from './operator-audit.js';
