import { CommitbusError } from '../../support/commitbus-error.js';

/** A command could not listen: another process holds the port (`EADDRINUSE`). */
export class PortInUseError extends CommitbusError {
  /** Stable code. */
  readonly code = 'COMMITBUS_PORT_IN_USE';

  constructor(
    /** The flag that gave the port, `--port` or `--metrics-port`. */
    readonly flag: string,
    /** The address it tried. */
    readonly host: string,
    /** The port it tried. */
    readonly port: number,
    options?: ErrorOptions,
  ) {
    super(
      `port ${port} on ${host} is in use (another process listens there): pick another with ${flag} <port>, or ${flag} 0 for any free port`,
      options,
    );
  }
}
