import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * An expected failure of a `commitbus` command: a bad argument, a refused
 * destructive action, a module that does not export a bus. The command prints
 * its message (no stack) and exits with code 1.
 */
export class CliError extends CommitbusError {
  /** Stable code. */
  readonly code = 'COMMITBUS_CLI';
}
