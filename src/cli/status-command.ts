import type { Command } from 'commander';
import type { BusStatus } from '../bus/bus-status.js';
import { formatAge, printJson, printLine, printTable, truncate } from './output.js';
import { withSharedBus } from './with-bus.js';

/** Adds `commitbus status [--json]`: what `bus.status()` reads, as tables or one JSON document. */
export function addStatusCommand(program: Command): Command {
  return program
    .command('status')
    .description(
      'show the bus: backlog, jobs, parked work, dead letters, halted keys, rules, paused BullMQ queues, per handler, outbox, workers',
    )
    .option('--json', 'print the BusStatus as one JSON document')
    .action(async (_flags: unknown, command: Command) =>
      withSharedBus(command, async ({ loaded, json }) => {
        const status = await loaded.bus.status();
        if (json) printJson(status);
        else printStatus(status);
      }),
    );
}

function printStatus(s: BusStatus): void {
  printLine(`bus ${s.bus.name} (prefix ${s.bus.prefix}, transport ${s.bus.transport}) at ${s.readAt}`);
  printTable(
    ['what', 'count', 'oldest'],
    [
      ['backlog (events to drain)', s.backlog.events, formatAge(s.backlog.oldestAgeMs)],
      ['ordered events in lanes', s.backlog.ordered, ''],
      ['delayed events', s.backlog.delayed, ''],
      ['jobs waiting', s.jobs.waiting, ''],
      ['jobs running', s.jobs.running, ''],
      ['jobs retrying', s.jobs.retrying, ''],
      ['parked (paused)', s.parked, ''],
      ['dropped (blocked)', s.dropped, ''],
      ['dead letters', s.deadLetters.count, ''],
      ['dead letters dropped (retention, so far)', s.deadLetters.dropped, ''],
      ['halted order keys', s.halted.count, ''],
      ['order keys re-based (so far)', s.rebased.count, ''],
      ...(s.outbox === null ? [] : [['outbox rows', s.outbox.pending, formatAge(s.outbox.oldestAgeMs)]]),
      ['paused BullMQ queues', s.pausedQueues.length, ''],
    ],
  );
  if (s.pausedQueues.length > 0) {
    printLine(
      `paused BullMQ queues (no worker takes their jobs until resumed, e.g. in bull-board): ${s.pausedQueues.join(', ')}`,
    );
  }
  const handlers = Object.entries(s.handlers);
  if (handlers.length > 0) {
    printTable(
      ['handler', 'waiting', 'running', 'retrying', 'parked', 'dead letters'],
      handlers.map(([name, h]) => [name, h.waiting, h.running, h.retrying, h.parked, h.deadLetters]),
    );
  }
  if (s.rules.length > 0) {
    printTable(
      ['rule', 'handler', 'handling key', 'since'],
      s.rules.map((r) => [r.kind, r.handler, r.handlingKey, r.since]),
    );
  }
  if (s.halted.count > 0) {
    printTable(
      ['halted key', 'lane', 'handler', 'reason', 'waiting', 'halted at', 'error'],
      s.halted.first.map((h) => [
        h.key,
        h.lane,
        h.handler,
        h.reason,
        h.waiting,
        h.haltedAt,
        truncate(h.error),
      ]),
    );
    if (s.halted.count > s.halted.first.length) {
      printLine(`... and ${s.halted.count - s.halted.first.length} more: commitbus ordering halted`);
    }
  }
  if (s.rebased.recent.length > 0) {
    printTable(
      ['re-based key', 'from', 'to', 'why', 'at'],
      s.rebased.recent.map((r) => [r.key, r.from, r.to, r.why, r.rebasedAt]),
    );
  }
  printWorkers(s);
}

/** The workers line (how many alive, when one counts as gone) and their table, alive first. */
function printWorkers(s: BusStatus): void {
  const { workers } = s;
  const gone = workers.list.length - workers.alive;
  printLine(
    `workers: ${workers.alive === 0 ? 'none' : workers.alive} alive${gone > 0 ? `, ${gone} gone` : ''} (gone after ${formatAge(workers.goneAfterMs)} without a beat)`,
  );
  if (workers.list.length === 0) return;
  const readAt = Date.parse(s.readAt);
  printTable(
    ['worker', 'state', 'host', 'pid', 'version', 'transport', 'busy', 'concurrency', 'started', 'last beat'],
    [...workers.list]
      .sort((a, b) => Number(b.alive) - Number(a.alive))
      .map((w) => [
        w.id.slice(0, 8),
        w.alive ? 'alive' : 'gone',
        w.host,
        w.pid,
        w.version,
        w.transport,
        w.busy,
        w.concurrency,
        w.startedAt,
        `${formatAge(Math.max(0, readAt - Date.parse(w.lastBeatAt)))} ago`,
      ]),
  );
}
