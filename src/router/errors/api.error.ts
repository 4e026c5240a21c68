/**
 * An error the API answers with `status` and a JSON body
 * `{error: code, message}`. The message says what is wrong and what to do;
 * it never quotes a token or the root key.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** A stable, machine-readable code, e.g. `bad_topic`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** The JSON body sent. */
  body(): { error: string; message: string } {
    return { error: this.code, message: this.message };
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
