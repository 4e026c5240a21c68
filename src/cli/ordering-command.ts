import type { Command } from 'commander';
import type { EventBus } from '../bus/event-bus.js';
import { ConfigError } from '../config/errors/config.error.js';
import type { HaltedKey } from '../ordering/halted-key.js';
import { cliOrigin } from './cli-origin.js';
import { countOf } from './dead-letter-filter.js';
import { CliError } from './errors/cli.error.js';
import { listFooter, printJson, printLine, printTable, truncate } from './output.js';
import { withSharedBus } from './with-bus.js';

/** Adds `commitbus ordering halted|redrive <key>|skip <key>|rebase <key>|rebased` over `bus.ordering`. */
export function addOrderingCommand(program: Command): Command {
  const group = program
    .command('ordering')
    .description('order keys halted by a handler that gave up, or waiting for a position that never comes');
  group
    .command('halted')
    .description('list the halted order keys, oldest halt first, with an "N of M" footer')
    .option('--newest-first', 'the newest halts first')
    .option('--limit <n>', 'at most this many')
    .option('--json', 'print the halted keys as one JSON array')
    .action(async (flags: { newestFirst?: boolean; limit?: string }, command: Command) => {
      const limit = flags.limit === undefined ? undefined : countOf(flags.limit, '--limit');
      await withSharedBus(command, async ({ loaded, json }) => {
        const all = await loaded.bus.ordering.halted();
        const ordered = flags.newestFirst === true ? [...all].reverse() : all;
        const halted = limit === undefined ? ordered : ordered.slice(0, limit);
        if (json) printJson(halted.map(({ payload: _payload, ...rest }) => rest));
        else {
          printHalted(halted);
          printLine(listFooter(halted.length, all.length, 'halted lane(s)', flags.newestFirst === true));
        }
      });
    });
  group
    .command('redrive')
    .description('run the halted event of a key again with fresh attempts (fix the cause first)')
    .argument('<key>', 'the order key, e.g. record:42')
    .option('--dry-run', DRY_RUN)
    .option('--json', 'print { key, resumed } (with --dry-run { key, lanes, waiting }) as one JSON document')
    .action(async (key: string, flags: { dryRun?: boolean }, command: Command) =>
      withSharedBus(command, async ({ loaded, json }) => {
        if (flags.dryRun === true) return dryRun(loaded.bus.ordering, key, 're-drive', json);
        const resumed = await loaded.bus.ordering.redrive(key, cliOrigin());
        report(key, resumed, 're-driven', json);
      }),
    );
  group
    .command('skip')
    .description(
      "give up a halted key's failed handler for good (kept as a dead letter) and go on; needs --yes",
    )
    .argument('<key>', 'the order key')
    .option('--yes', 'really skip')
    .option('--dry-run', DRY_RUN)
    .option('--json', 'print { key, resumed } (with --dry-run { key, lanes, waiting }) as one JSON document')
    .action(async (key: string, flags: { yes?: boolean; dryRun?: boolean }, command: Command) => {
      if (flags.yes !== true && flags.dryRun !== true) {
        throw new CliError(`skip gives up the halted event of ${key} for good: add --yes to go ahead`);
      }
      await withSharedBus(command, async ({ loaded, json }) => {
        if (flags.dryRun === true) return dryRun(loaded.bus.ordering, key, 'skip', json);
        const resumed = await loaded.bus.ordering.skip(key, cliOrigin());
        report(key, resumed, 'skipped', json);
      });
    });
  addRebaseCommands(group);
  return group;
}

/** `ordering rebase <key>` and `ordering rebased`. */
function addRebaseCommands(group: Command): void {
  group
    .command('rebase')
    .description(
      "go on with a key's lane from the first position it holds (or --position), instead of waiting for one that never comes; needs --yes",
    )
    .argument('<key>', 'the order key')
    .option('--position <n>', 'the position to go on from (default: the first the lane holds)')
    .option('--yes', 'really re-base')
    .option('--json', 'print { key, from, to } as one JSON document')
    .action(async (key: string, flags: { position?: string; yes?: boolean }, command: Command) => {
      const position = flags.position === undefined ? undefined : positionOption(flags.position);
      if (flags.yes !== true) {
        throw new CliError(
          `rebase makes ${key} stop waiting for the position it is at, for good: add --yes to go ahead`,
        );
      }
      await withSharedBus(command, async ({ loaded, json }) => {
        const rebased = await loaded.bus.ordering.rebase(
          key,
          position === undefined ? {} : { position },
          cliOrigin(),
        );
        if (json) printJson({ key, from: rebased.from, to: rebased.to });
        else printLine(`${key}: re-based from position ${rebased.from} to ${rebased.to}`);
      });
    });
  group
    .command('rebased')
    .description('list the keys re-based (on their own after a lost position, or on purpose), newest first')
    .option('--json', 'print { count, recent } as one JSON document')
    .action(async (_flags: unknown, command: Command) =>
      withSharedBus(command, async ({ loaded, json }) => {
        const rebased = await loaded.bus.ordering.rebased();
        if (json) printJson(rebased);
        else {
          printLine(`${rebased.count} re-base(s) so far`);
          printTable(
            ['key', 'from', 'to', 'why', 'at'],
            rebased.recent.map((r) => [r.key, r.from, r.to, r.why, r.rebasedAt]),
          );
        }
      }),
    );
}

const DRY_RUN = "print the key's halted lanes and the events waiting in them, and change nothing";

/** Prints how many lanes of `key` are halted and how many events wait in them, changing nothing. */
async function dryRun(
  ordering: Pick<EventBus['ordering'], 'halted'>,
  key: string,
  verb: string,
  json: boolean,
): Promise<void> {
  const lanes = (await ordering.halted()).filter((h) => h.key === key);
  if (lanes.length === 0)
    throw new CliError(`order key ${JSON.stringify(key)} is not halted (see: commitbus ordering halted)`);
  const waiting = lanes.reduce((sum, lane) => sum + lane.waiting, 0);
  if (json) printJson({ key, lanes: lanes.length, waiting });
  else
    printLine(
      `would ${verb} ${lanes.length} halted lane(s) of ${key}, ${waiting} event(s) waiting in them (dry run: nothing changed)`,
    );
}

function positionOption(raw: string): number {
  const position = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(position) || position < 1) {
    throw new ConfigError(`--position must be a whole number from 1, got ${JSON.stringify(raw)}`);
  }
  return position;
}

function report(key: string, resumed: number, done: string, json: boolean): void {
  if (resumed === 0)
    throw new CliError(`order key ${JSON.stringify(key)} is not halted (see: commitbus ordering halted)`);
  if (json) printJson({ key, resumed });
  else printLine(`${key}: ${resumed} lane(s) ${done}`);
}

function printHalted(halted: readonly HaltedKey[]): void {
  printTable(
    ['key', 'lane', 'handler', 'event', 'reason', 'attempts', 'waiting', 'halted at', 'error'],
    halted.map((h) => [
      h.key,
      h.lane,
      h.handler,
      h.handlingKey,
      h.reason,
      h.attempts,
      h.waiting,
      h.haltedAt,
      truncate(h.error),
    ]),
  );
}
