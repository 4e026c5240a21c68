export { CommitbusError, isCommitbusError } from './commitbus-error.js';
export { InternalError } from './errors/internal.error.js';
export { TransportUnavailableError } from './errors/transport-unavailable.error.js';
export { consoleLogger, type Logger, silentLogger } from './logger.js';
