import type { Command } from 'commander';
import { countOf } from './dead-letter-filter.js';
import { listFooter, printJson, printLine, printTable, truncate } from './output.js';
import { withSharedBus } from './with-bus.js';

/** How many actions `audit` shows without `--limit`. */
const AUDIT_DEFAULT_LIMIT = 50;

/** Adds `commitbus audit [--limit N] [--json]`: the bus's audit trail of operator actions, newest first. */
export function addAuditCommand(program: Command): Command {
  return program
    .command('audit')
    .description(
      `list the operator actions taken on the bus (re-drives, purges, rules, ordering, event store), newest first (at most ${AUDIT_DEFAULT_LIMIT} unless --limit says), with an "N of M" footer`,
    )
    .option('--limit <n>', 'at most this many, newest first')
    .option('--json', 'print the actions as one JSON array')
    .action(async (flags: { limit?: string }, command: Command) =>
      withSharedBus(command, async ({ loaded, json }) => {
        const limit = flags.limit === undefined ? AUDIT_DEFAULT_LIMIT : countOf(flags.limit, '--limit');
        const { audit } = loaded.bus;
        const [actions, total] = await Promise.all([audit.list({ limit }), audit.count()]);
        if (json) {
          printJson(actions);
          return;
        }
        printTable(
          ['at', 'source', 'actor', 'action', 'target', 'count'],
          actions.map((a) => [
            a.at.toISOString(),
            a.source,
            a.actor,
            a.action,
            truncate(a.target),
            a.count === null ? '-' : a.count,
          ]),
        );
        printLine(listFooter(actions.length, total, 'operator action(s)', true));
      }),
    );
}
