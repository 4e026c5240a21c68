export { CommitbusError, isCommitbusError } from './commitbus-error.js';
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export { TransportUnavailableError } from './transport-unavailable.error.js';
