import type { Command } from 'commander';
import type { EventStore } from '../event-store/event-store.js';
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
}

/** Adds `commitbus event-store status|halted|retry|skip <v>|replay` and the subscriptions' commands, for a module that exports `eventStore`. */
export function addEventStoreCommand(program: Command): Command {
  const group = program
    .command('event-store')
    .description("the module's event store: status, halted event, retry, skip, replay");
  group
    .command('status')
    .description('the version the tables are at, and the event the store is halted at, if any')
    .option('--json', 'print { version, halted } as one JSON document')
    .action(async (_flags: unknown, command: Command) =>
      withStore(command, async (store, json) => {
        const [version, halted] = await Promise.all([store.getVersion(), store.halted()]);
        if (json) printJson({ version, halted: halted === undefined ? null : summary(halted) });
        else
          printLine(
            `at version ${version}; ${halted === undefined ? 'not halted' : `halted at v${halted.v} (${halted.type}): ${halted.error?.message ?? ''}`}`,
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
    group.command('retry').description('retry the halted event now, instead of after its backoff'),
  ).action(async (flags: NoteFlags, command: Command) =>
    withStore(command, async (store, json) => {
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
      .option('--yes', 'really skip'),
  ).action(async (raw: string, flags: NoteFlags, command: Command) => {
    const v = countOf(raw, 'the version');
    if (flags.yes !== true) throw new CliError(`skip gives up event v${v} for good: add --yes to go ahead`);
    await withStore(command, async (store, json) => {
      const event = await store.skip(v, noteOf(flags));
      if (json) printJson(summary(event));
      else printLine(`skipped v${event.v} (${event.type})`);
    });
  });
  group
    .command('replay')
    .description('rebuild models from history (all, or --models), as the writer')
    .option('--models <names>', 'comma-separated model names')
    .option('--json', 'print the replay report as one JSON document')
    .action(async (flags: NoteFlags, command: Command) =>
      withStore(command, async (store, json) => {
        const progress = startProgress('replaying history', 0);
        const models = flags.models
          ?.split(',')
          .map((m) => m.trim())
          .filter((m) => m !== '');
        try {
          const report = await store.replay({
            ...(models !== undefined ? { models } : {}),
            onProgress: (p) => progress.update(p.v, p.total),
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
      }),
    );
  addSubscriptionCommands(group);
  return group;
}

function withNote(command: Command): Command {
  return command
    .option('--by <name>', 'who acts, kept in the audit trail')
    .option('--reason <text>', 'why, kept in the audit trail')
    .option('--json', 'print the event as one JSON document');
}

function noteOf(flags: NoteFlags): { by?: string; reason?: string } {
  return {
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
