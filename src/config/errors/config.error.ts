import { CommitbusError } from '../../support/commitbus-error.js';

/** A configuration value is missing, malformed or out of range. */
export class ConfigError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_CONFIG';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
