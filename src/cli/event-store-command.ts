import type { Command } from 'commander';
import type { EventStore } from '../event-store/event-store.js';
import type { OperatorNote } from '../event-store/operator-actions.js';
import type { HistoryEvent } from '../event-store/store-event.js';
import type { BusModule } from './bus-module.js';
import { countOf } from './dead-letter-filter.js';
import { CliError } from './errors/cli.error.js';
import { addSubscriptionCommands } from './event-store-subscriptions-command.js';
import { printJson, printLine, printTable, truncate } from './output.js';
import { startProgress } from './progress.js';
import { withBus } from './with-bus.js';

interface NoteFlags {
  readonly by?: string;
  readonly reason?: string;
  readonly yes?: boolean;
  readonly models?: string;
  readonly wait?: string;
  readonly data?: string;
  readonly dryRun?: boolean;
}

/** Adds `commitbus event-store status|halted|retry|skip <v>|replay` and the subscriptions' commands, for a module that exports `eventStore`. */
export function addEventStoreCommand(program: Command): Command {
  const group = program
    .command('event-store')
    .description("the module's event store: status, halted event, retry, skip, replay");
  group
    .command('status')
    .description(
      'the version the tables are at, the events queued behind it, and the event the store is halted at, if any',
    )
    .option('--json', 'print { version, queued, halted } as one JSON document')
    .action(async (_flags: unknown, command: Command) =>
      withStore(command, async (store, json) => {
        const { version, queued, halted } = await store.status();
        if (json) printJson({ version, queued, halted: halted === null ? null : summary(halted) });
        else
          printLine(
            `at version ${version}, ${queued} queued; ${halted === null ? 'not halted' : `halted at v${halted.v} (${halted.type}): ${halted.error?.message ?? ''}`}`,
          );
      }),
    );
  group
    .command('halted')
    .description('the event the store is halted at, with its error')
    .option('--json', 'print the event (or null) as one JSON document')
    .action(async (_flags: unknown, command: Command) =>
      withStore(command, async (store, json) => {
        const halted = await store.halted();
        if (json) printJson(halted ?? null);
        else if (halted === undefined) printLine('the event store is not halted');
        else printEvent(halted);
      }),
    );
  withNote(
    group
      .command('retry')
      .description('retry the halted event now, instead of after its backoff')
      .option('--dry-run', 'print the halted event it would retry, and change nothing'),
  ).action(async (flags: NoteFlags, command: Command) =>
    withStore(command, async (store, json) => {
      if (flags.dryRun === true) {
        const halted = await store.halted();
        if (halted === undefined) throw new CliError('the event store is not halted: nothing to retry');
        return dryRun(store, halted.v, 'retry', json);
      }
      const event = await store.retry(noteOf(flags));
      if (json) printJson(summary(event));
      else printLine(`retried v${event.v} (${event.type}): now ${event.status}`);
    }),
  );
  withNote(
    group
      .command('skip')
      .description('record event v (the halted one, usually) as skipped and go on; needs --yes')
      .argument('<v>', 'the event version')
      .option('--yes', 'really skip')
      .option('--dry-run', 'print the event it would skip, and change nothing'),
  ).action(async (raw: string, flags: NoteFlags, command: Command) => {
    const v = countOf(raw, 'the version');
    if (flags.yes !== true && flags.dryRun !== true)
      throw new CliError(`skip gives up event v${v} for good: add --yes to go ahead`);
    await withStore(command, async (store, json) => {
      if (flags.dryRun === true) return dryRun(store, v, 'skip', json);
      const event = await store.skip(v, noteOf(flags));
      if (json) printJson(summary(event));
      else printLine(`skipped v${event.v} (${event.type})`);
    });
  });
  addCorrectCommand(group);
  addReplayCommand(group);
  addSubscriptionCommands(group);
  return group;
}

/** `event-store correct <v> --data <json> --yes`: replaces a queued event's data and retries it. */
function addCorrectCommand(group: Command): void {
  withNote(
    group
      .command('correct')
      .description(
        'replace the data of queued event v (the halted one, usually), checked as at dispatch, and retry it; needs --yes',
      )
      .argument('<v>', 'the event version')
      .requiredOption('--data <json>', 'the new data, as JSON')
      .option('--yes', 'really replace it')
      .option('--dry-run', 'print the event it would correct, and change nothing'),
  ).action(async (raw: string, flags: NoteFlags, command: Command) => {
    const v = countOf(raw, 'the version');
    const data = jsonOption('--data', flags.data ?? '');
    if (flags.yes !== true && flags.dryRun !== true) {
      throw new CliError(`correct replaces the data of event v${v} for good: add --yes to go ahead`);
    }
    await withStore(command, async (store, json) => {
      if (flags.dryRun === true) {
        const [event] = await store.history(v, v);
        if (event === undefined) throw new CliError(`no event v${v} in the store's history`);
        if (json) printJson({ wouldCorrect: summary(event), data });
        else
          printLine(
            `would correct v${event.v} (${event.type}, ${event.status}) to ${JSON.stringify(data)} (dry run: nothing changed)`,
          );
        return;
      }
      const event = await store.correct(v, data, noteOf(flags));
      if (json) printJson(summary(event));
      else printLine(`corrected v${event.v} (${event.type}): now ${event.status}`);
    });
  });
}

/** Prints the event `v` an action would take (1 event, or none), changing nothing. */
async function dryRun(store: EventStore, v: number, verb: string, json: boolean): Promise<void> {
  const [event] = await store.history(v, v);
  if (event === undefined) throw new CliError(`no event v${v} in the store's history`);
  if (json) printJson({ dryRun: verb, event: summary(event) });
  else
    printLine(
      `would ${verb} 1 event: v${event.v} (${event.type}, ${event.status}) (dry run: nothing changed)`,
    );
}

/** `event-store replay [--models a,b] [--wait <ms>]`. */
function addReplayCommand(group: Command): void {
  group
    .command('replay')
    .description(
      'rebuild models from history (all, or --models), as the writer; fails at once while another process is the writer',
    )
    .option('--models <names>', 'comma-separated model names')
    .option('--wait <ms>', 'how long to wait for the writer role another process holds', '0')
    .option('--dry-run', 'print how many events of history it would read, and change nothing')
    .option('--json', 'print the replay report as one JSON document')
    .action(async (flags: NoteFlags, command: Command) => {
      const waitMs = waitOption(flags.wait ?? '0');
      const models = flags.models
        ?.split(',')
        .map((m) => m.trim())
        .filter((m) => m !== '');
      await withStore(command, async (store, json) => {
        if (flags.dryRun === true) {
          const unknown = models?.filter((m) => !store.modelNames.includes(m)) ?? [];
          if (unknown.length > 0)
            throw new CliError(
              `no model is named ${unknown.map((m) => JSON.stringify(m)).join(', ')} (models: ${store.modelNames.join(', ')})`,
            );
          const version = await store.getVersion();
          const which = models === undefined ? 'every model' : models.join(', ');
          if (json) printJson({ dryRun: 'replay', models: models ?? null, version });
          else printLine(`would replay events v1..v${version} into ${which} (dry run: nothing changed)`);
          return;
        }
        const progress = startProgress('replaying history', 0);
        try {
          const report = await store
            .replay({
              ...(models !== undefined ? { models } : {}),
              timeoutMs: waitMs,
              onProgress: (p) => progress.update(p.v, p.total),
            })
            .catch((error: unknown) => {
              throw writerHeld(error) ? new CliError(WRITER_HELD, { cause: error }) : error;
            });
          progress.stop();
          if (json) printJson(report);
          else
            printLine(
              `replayed ${report.events} event(s) into ${report.models.join(', ')}; at version ${report.version}`,
            );
        } finally {
          progress.stop();
        }
      });
    });
}

const WRITER_HELD =
  "another process (a worker running this event store) is the event store's writer, and a replay must be: stop the event store in the workers, replay, then start them again (or pass --wait <ms> to wait for the role)";

/** Whether the store refused a replay because another process holds the writer role. */
function writerHeld(error: unknown): boolean {
  return (
    (error as { code?: unknown }).code === 'COMMITBUS_EVENT_STORE_USAGE' &&
    /^another process has been the event store's writer/.test((error as Error).message)
  );
}

function waitOption(raw: string): number {
  const ms = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(ms) || ms < 0)
    throw new CliError(`--wait must be a whole number of ms from 0, got ${JSON.stringify(raw)}`);
  return ms;
}

function jsonOption(flag: string, raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new CliError(`${flag} must be JSON, got ${JSON.stringify(raw)}: ${(error as Error).message}`);
  }
}

function withNote(command: Command): Command {
  return command
    .option('--by <name>', 'who acts, kept in the audit trail')
    .option('--reason <text>', 'why, kept in the audit trail')
    .option('--json', 'print the event as one JSON document');
}

/** The note of an operator action: `--by` (else, on the bus's trail, `user@host`), `--reason`, from the CLI. */
function noteOf(flags: NoteFlags): OperatorNote {
  return {
    source: 'cli',
    ...(flags.by !== undefined ? { by: flags.by } : {}),
    ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
  };
}

function withStore(
  command: Command,
  action: (store: EventStore, json: boolean) => Promise<void>,
): Promise<void> {
  return withBus(command, async ({ loaded, json }) => action(storeOf(loaded), json));
}

function storeOf(loaded: BusModule): EventStore {
  if (loaded.eventStore === undefined) {
    throw new CliError(
      'the bus module exports no event store: add `export const eventStore = ...` (or return it from the bus function)',
    );
  }
  return loaded.eventStore;
}

function summary(e: HistoryEvent) {
  return { v: e.v, type: e.type, status: e.status, attempts: e.attempts, error: e.error?.message ?? null };
}

function printEvent(e: HistoryEvent): void {
  printTable(
    ['v', 'type', 'status', 'attempts', 'step', 'error'],
    [[e.v, e.type, e.status, e.attempts, e.error?.step, truncate(e.error?.message ?? '', 100)]],
  );
}
