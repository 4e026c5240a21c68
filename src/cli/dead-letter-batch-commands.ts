import type { Command } from 'commander';
import type { EventBus } from '../bus/event-bus.js';
import type { DeadLetterFilter } from '../dead-letters/dead-letter-store.js';
import { cliOrigin } from './cli-origin.js';
import {
  checkHandlerFilter,
  type DeadLetterFlags,
  deadLetterFilter,
  handlerNames,
  withDeadLetterFilters,
} from './dead-letter-filter.js';
import { countDeadLetters, forEachDeadLetterPage } from './dead-letter-pages.js';
import { CliError } from './errors/cli.error.js';
import { printJson, printLine } from './output.js';
import { startProgress } from './progress.js';
import { withSharedBus } from './with-bus.js';

/** A letter that could not be re-driven (a `DeadLetterRedriveError`'s `failed` entry). */
interface RedriveFailure {
  readonly id: string;
  readonly error: string;
}

interface BatchFlags extends DeadLetterFlags {
  readonly all?: boolean;
  readonly yes?: boolean;
  readonly dryRun?: boolean;
}

const DRY_RUN = 'print how many letters it would take, and change nothing';

/** Adds `dead-letters redrive` and `dead-letters purge`: one id, or the letters the filters (or `--all`) select, page by page. */
export function addDeadLetterBatchCommands(group: Command): void {
  withDeadLetterFilters(
    group
      .command('redrive')
      .description('give letters another go (one id, the letters the filters select, or --all), page by page')
      .argument('[id]', 'one letter id')
      .option('--all', 'every letter')
      .option('--dry-run', DRY_RUN)
      .option('--json', 'print { redriven, failed } (with --dry-run { wouldRedrive }) as one JSON document'),
  ).action(async (id: string | undefined, flags: BatchFlags, command: Command) =>
    withSharedBus(command, async ({ loaded, json }) => {
      const selected = await checkedTarget(loaded.bus, id, flags, 'redrive');
      if (flags.dryRun === true) {
        const count = await countTarget(loaded.bus, selected);
        if (json) printJson({ wouldRedrive: count });
        else printLine(`would re-drive ${count} dead letter(s) (dry run: nothing changed)`);
        return;
      }
      const result = await redrive(loaded.bus, selected);
      if (json) printJson(result);
      else {
        printLine(`re-drove ${result.redriven} dead letter(s)`);
        for (const f of result.failed) printLine(`not re-driven, stays: ${f.id}: ${f.error}`);
      }
      if (result.failed.length > 0) {
        process.stderr.write(
          `commitbus: ${result.failed.length} letter(s) could not be re-driven and stay\n`,
        );
        process.exitCode = 1;
      }
    }),
  );
  withDeadLetterFilters(
    group
      .command('purge')
      .description('delete letters without running anything (one id, the filters, or --all); needs --yes')
      .argument('[id]', 'one letter id')
      .option('--all', 'every letter, unreadable ones included')
      .option('--yes', 'really delete')
      .option('--dry-run', DRY_RUN)
      .option('--json', 'print { purged } (with --dry-run { wouldPurge }) as one JSON document'),
  ).action(async (id: string | undefined, flags: BatchFlags, command: Command) => {
    const early = target(id, flags, 'purge');
    if (flags.yes !== true && flags.dryRun !== true) {
      throw new CliError(
        'purge deletes dead letters for good: add --yes to go ahead (list them first with dead-letters list)',
      );
    }
    await withSharedBus(command, async ({ loaded, json }) => {
      const selected = await checkedTarget(loaded.bus, id, flags, 'purge', early);
      if (flags.dryRun === true) {
        const count = await countTarget(loaded.bus, selected);
        if (json) printJson({ wouldPurge: count });
        else printLine(`would purge ${count} dead letter(s) (dry run: nothing changed)`);
        return;
      }
      const purged = await purge(loaded.bus, selected);
      if (json) printJson({ purged });
      else printLine(`purged ${purged} dead letter(s)`);
    });
  });
}

/** What a batch command takes: one id, or a filter with an upper time bound (and whether it is `--all`). */
export type Target =
  | { readonly id: string }
  | { readonly filter: DeadLetterFilter & { readonly until: Date }; readonly all: boolean };

/** {@link target}, and a `--handler` the bus knows (or a letter names). */
async function checkedTarget(
  bus: EventBus,
  id: string | undefined,
  flags: BatchFlags,
  verb: string,
  selected: Target = target(id, flags, verb),
): Promise<Target> {
  if (!('id' in selected)) await checkHandlerFilter(selected.filter, handlerNames(bus), bus.deadLetters);
  return selected;
}

/** How many letters `selected` takes now: 1 or 0 for an id, else the matching letters. */
async function countTarget(bus: EventBus, selected: Target): Promise<number> {
  if ('id' in selected) return (await bus.deadLetters.get(selected.id)) === undefined ? 0 : 1;
  return countDeadLetters(bus.deadLetters, selected.filter);
}

/** The letters `id` or the flags select; refuses none, or contradictory ones (an id with filters, `--all` with filters). */
export function target(id: string | undefined, flags: BatchFlags, verb: string): Target {
  const filter = deadLetterFilter(flags);
  const filtered = Object.keys(filter).length > 0;
  if (id !== undefined) {
    if (filtered || flags.all === true)
      throw new CliError(`${verb} takes an id or filters (or --all), not both`);
    return { id };
  }
  if (filtered && flags.all === true) {
    throw new CliError(
      `${verb} --all takes every letter: drop --all to ${verb} only the letters the filters (${filterFlags(flags)}) select, or drop the filters`,
    );
  }
  if (!filtered && flags.all !== true) {
    throw new CliError(
      `${verb} needs a letter id, filters (--handler, --kind, ...), or --all for every letter`,
    );
  }
  // An upper bound fixed now: a letter that dies (again) while the command runs is not
  // re-driven again in the same run (a handler that fails fast would loop forever), nor purged.
  return { filter: { ...filter, until: filter.until ?? new Date() }, all: flags.all === true };
}

/** `--handler, --limit`: the filter flags given. */
function filterFlags(flags: DeadLetterFlags): string {
  const names: Record<keyof DeadLetterFlags, string> = {
    handler: '--handler',
    kind: '--kind',
    key: '--key',
    event: '--event',
    reason: '--reason',
    since: '--since',
    until: '--until',
    limit: '--limit',
  };
  return (Object.keys(names) as (keyof DeadLetterFlags)[])
    .filter((flag) => flags[flag] !== undefined)
    .map((flag) => names[flag])
    .join(', ');
}

async function redrive(
  bus: EventBus,
  selected: Target,
): Promise<{ redriven: number; failed: RedriveFailure[] }> {
  const failed: RedriveFailure[] = [];
  let redriven = 0;
  const asked = 'id' in selected ? undefined : askedOf(selected);
  const run = async (ids: string | readonly string[]) => {
    try {
      redriven += await bus.deadLetters.redrive(ids, cliOrigin(asked));
    } catch (error) {
      const partial = error as { code?: unknown; redriven?: number; failed?: RedriveFailure[] };
      if (partial.code !== 'COMMITBUS_DEAD_LETTER_REDRIVE') throw error;
      redriven += partial.redriven ?? 0;
      failed.push(...(partial.failed ?? []));
    }
  };
  if ('id' in selected) {
    if ((await bus.deadLetters.get(selected.id)) === undefined) {
      throw new CliError(`no dead letter with id ${JSON.stringify(selected.id)}`);
    }
    await run(selected.id);
    return { redriven, failed };
  }
  const progress = startProgress('re-driving dead letters');
  try {
    await forEachDeadLetterPage(bus.deadLetters, selected.filter, async (page) => {
      await run(page.map((letter) => letter.id));
      progress.update(redriven + failed.length);
    });
  } finally {
    progress.stop();
  }
  return { redriven, failed };
}

/** What a paged command was asked for, for the audit trail: `all`, or its filter. */
function askedOf(selected: Exclude<Target, { id: string }>): string {
  return selected.all ? 'all' : JSON.stringify(selected.filter);
}

async function purge(bus: EventBus, selected: Target): Promise<number> {
  if ('id' in selected) return bus.deadLetters.purge(selected.id, cliOrigin());
  let purged = 0;
  const progress = startProgress('purging dead letters');
  try {
    await forEachDeadLetterPage(bus.deadLetters, selected.filter, async (page) => {
      purged += await bus.deadLetters.purge(
        page.map((letter) => letter.id),
        cliOrigin(askedOf(selected)),
      );
      progress.update(purged);
    });
  } finally {
    progress.stop();
  }
  // Letters that cannot be read match no filter: --all removes them too, up to `until` only.
  return selected.all
    ? purged + (await bus.deadLetters.purge({ until: selected.filter.until }, cliOrigin()))
    : purged;
}
