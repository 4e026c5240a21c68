/** The bench cannot run as asked (a section it does not have, a database out of reach): printed as one line, exit code 1. */
export class BenchSetupError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'BenchSetupError';
  }
}
