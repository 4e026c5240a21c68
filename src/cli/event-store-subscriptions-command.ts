import type { Command } from 'commander';
import type { EventStore } from '../event-store/event-store.js';
import type { SubscriptionStart } from '../event-store/subscriptions/subscription-options.js';
import type { SubscriptionStatus } from '../event-store/subscriptions/subscription-status.js';
import { countOf } from './dead-letter-filter.js';
import { CliError } from './errors/cli.error.js';
import { printJson, printLine, printTable, truncate } from './output.js';
import { withBus } from './with-bus.js';

interface Flags {
  readonly by?: string;
  readonly reason?: string;
  readonly from?: string;
  readonly yes?: boolean;
  readonly dryRun?: boolean;
}

/**
 * Adds the durable subscriptions' commands to `commitbus event-store`:
 * `subscriptions` (list), `subscription-resume <name>` and
 * `subscription-reset <name> --from <v|beginning|end> --yes`.
 */
export function addSubscriptionCommands(group: Command): void {
  group
    .command('subscriptions')
    .description('the durable subscriptions: checkpoint, lag, halted or not, who consumes each')
    .option('--json', 'print the list as one JSON document')
    .action(async (_flags: unknown, command: Command) =>
      withStore(command, async (store, json) => {
        const list = await store.subscriptions.list();
        if (json) printJson(list);
        else if (list.length === 0) printLine('no durable subscriptions');
        else printTable(['name', 'position', 'lag', 'status', 'attempts', 'owner', 'error'], list.map(row));
      }),
    );
  note(
    group
      .command('subscription-resume')
      .description('let a halted subscription try its event again (after a fix)')
      .argument('<name>', 'the subscription'),
  ).action(async (name: string, flags: Flags, command: Command) =>
    withStore(command, async (store, json) => {
      const status = await store.subscriptions.resume(name, noteOf(flags));
      if (json) printJson(status);
      else printLine(`resumed "${name}": next v${status.position + 1}`);
    }),
  );
  note(
    group
      .command('subscription-reset')
      .description("move a subscription's checkpoint so it next gets --from; needs --yes")
      .argument('<name>', 'the subscription')
      .requiredOption('--from <v>', "the next version it gets: a number, 'beginning' or 'end'")
      .option('--yes', 'really move it')
      .option('--dry-run', 'print how many events it would repeat or skip, and change nothing'),
  ).action(async (name: string, flags: Flags, command: Command) => {
    const from = startOf(flags.from ?? '');
    if (flags.yes !== true && flags.dryRun !== true)
      throw new CliError(`reset makes "${name}" skip or repeat events: add --yes to go ahead`);
    await withStore(command, async (store, json) => {
      if (flags.dryRun === true) return dryRunReset(store, name, from, json);
      const status = await store.subscriptions.reset(name, { from, ...noteOf(flags) });
      if (json) printJson(status);
      else printLine(`reset "${name}": next v${status.position + 1}`);
    });
  });
}

/** Prints where a reset would move `name`'s checkpoint and how many events it would repeat or skip. */
async function dryRunReset(store: EventStore, name: string, from: SubscriptionStart, json: boolean) {
  const status = (await store.subscriptions.list()).find((s) => s.name === name);
  if (status === undefined) throw new CliError(`no durable subscription is named ${JSON.stringify(name)}`);
  const next = status.position + 1;
  const to = from === 'beginning' ? 1 : from === 'end' ? (await store.getVersion()) + 1 : from;
  const repeated = Math.max(0, next - to);
  const skipped = Math.max(0, to - next);
  if (json) {
    printJson({ name, next, wouldGet: to, repeated, skipped });
    return;
  }
  printLine(
    `would reset "${name}" from next v${next} to next v${to}: ${repeated} event(s) repeated, ${skipped} skipped (dry run: nothing changed)`,
  );
}

function row(s: SubscriptionStatus): unknown[] {
  return [
    s.name,
    s.position,
    s.lag,
    s.status,
    s.attempts,
    s.owner ?? '',
    truncate(s.error?.message ?? '', 80),
  ];
}

function startOf(raw: string): SubscriptionStart {
  return raw === 'beginning' || raw === 'end' ? raw : countOf(raw, 'the version to start from');
}

function note(command: Command): Command {
  return command
    .option('--by <name>', 'who acts, logged')
    .option('--reason <text>', 'why, logged')
    .option('--json', 'print its status as one JSON document');
}

function noteOf(flags: Flags): { by?: string; reason?: string } {
  return {
    ...(flags.by !== undefined ? { by: flags.by } : {}),
    ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
  };
}

function withStore(command: Command, action: (store: EventStore, json: boolean) => Promise<void>) {
  return withBus(command, async ({ loaded, json }) => {
    if (loaded.eventStore === undefined) {
      throw new CliError(
        'the bus module exports no event store: add `export const eventStore = ...` (or return it from the bus function)',
      );
    }
    return action(loaded.eventStore, json);
  });
}
