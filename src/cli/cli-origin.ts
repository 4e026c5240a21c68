import { hostname, userInfo } from 'node:os';
import type { OperatorOrigin } from '../support/operator-action-log.js';

/**
 * Who runs this command, for the bus's audit trail: source `cli`, actor
 * `<user>@<host>` (`unknown@<host>` where the user has no name); `asked`,
 * what the command was asked for (its filter), recorded as the target.
 */
export function cliOrigin(asked?: string): OperatorOrigin {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers): the host still says where.
  }
  const origin: OperatorOrigin = { source: 'cli', actor: `${user}@${hostname()}` };
  return asked === undefined ? origin : { ...origin, asked };
}
