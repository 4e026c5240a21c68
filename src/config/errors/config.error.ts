/** A configuration value is missing, malformed or out of range. */
export class ConfigError extends Error {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_CONFIG';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}
