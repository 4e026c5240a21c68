import type { OperatorOrigin } from '../support/operator-action-log.js';
import { defaultActor } from '../support/operator-audit.js';

/**
 * Who runs this command, for the bus's audit trail: source `cli`, actor
 * `<user>@<host>` (`unknown@<host>` where the user has no name); `asked`,
 * what the command was asked for (its filter), recorded as the target.
 */
export function cliOrigin(asked?: string): OperatorOrigin {
  const origin: OperatorOrigin = { source: 'cli', actor: defaultActor() };
  return asked === undefined ? origin : { ...origin, asked };
}
