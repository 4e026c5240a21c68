import { CommitbusError } from '../../support/commitbus-error.js';

/** A worker could not serve its metrics: the port is taken, or the address is not this host's. */
export class MetricsServerError extends CommitbusError {
  /** Stable code of this error. */
  readonly code = 'COMMITBUS_METRICS_SERVER';

  constructor(
    /** The address it tried. */
    readonly host: string,
    /** The port it tried. */
    readonly port: number,
    cause: Error,
  ) {
    super(
      `cannot serve metrics on ${host}:${port} (${cause.message}); pick a free port (or 0 for any) in startWorker({ metrics: { port } })`,
      { cause },
    );
  }
}
