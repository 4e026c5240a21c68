import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * An error the API answers with `status` and a JSON body
 * `{error, message}`. The message says what is wrong and what to do;
 * it never quotes a token or the root key. It never leaves the router's
 * HTTP server: clients see the body.
 */
export class ApiError extends CommitbusError {
  /** Stable code, the same for every API error; the HTTP body's `error` names the problem. */
  readonly code = 'COMMITBUS_ROUTER_API';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The body's stable, machine-readable `error`, e.g. `bad_topic`. */
    readonly error: string,
    message: string,
  ) {
    super(message);
  }

  /** The JSON body sent. */
  body(): { error: string; message: string } {
    return { error: this.error, message: this.message };
  }
}

/** A 400 with `code` and `message`. */
export function badRequest(code: string, message: string): ApiError {
  return new ApiError(400, code, message);
}

/** A 404 with `code` and `message`. */
export function notFound(code: string, message: string): ApiError {
  return new ApiError(404, code, message);
}
