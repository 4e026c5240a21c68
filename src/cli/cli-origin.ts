import { hostname, userInfo } from 'node:os';
import type { OperatorOrigin } from '../support/operator-action-log.js';

/**
 * Who runs this command, for the bus's audit trail: source `cli`, actor
 * `<user>@<host>` (`unknown@<host>` where the user has no name).
 */
export function cliOrigin(): OperatorOrigin {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers): the host still says where.
  }
  return { source: 'cli', actor: `${user}@${hostname()}` };
}
