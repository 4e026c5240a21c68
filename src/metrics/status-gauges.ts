import { Counter, Gauge, type Registry } from 'prom-client';
import type { DeadLetterKind } from '../dead-letters/dead-letter.js';
import type { RuleKind } from '../handlers/handler-gate.js';
import { describeError, type Logger } from '../support/logger.js';
import type { MetricsStatus } from './metrics-source.js';
import { one, type Samples, scrapeGauge, sharedScrapeRead } from './scrape-gauge.js';

const seconds = (ms: number | null) => (ms === null ? 0 : ms / 1000);

// Every kind, so a kind whose letters were all removed reads 0 rather than vanishing (the compiler keeps it whole).
const DEAD_LETTER_KINDS = Object.keys({
  handler: 0,
  undecodable: 0,
  event: 0,
  webhook: 0,
} satisfies Record<DeadLetterKind, 0>) as DeadLetterKind[];

const RULE_KINDS = Object.keys({ pause: 0, block: 0 } satisfies Record<RuleKind, 0>) as RuleKind[];

/**
 * Registers the gauges read from `bus.status()` at scrape time (collect
 * callbacks): backlog and its oldest event's age, ordered and delayed
 * events, handler jobs and parked work per handler, stored dead letters by
 * kind (0 for a kind with none), halted keys, the outbox's pending rows and
 * relay lag, the bus's workers alive (`<prefix>workers`, from their beats),
 * the pause and block rules in force (`<prefix>rules_active{kind}`), whether
 * each BullMQ queue is paused (`<prefix>bullmq_queue_paused{queue}`, for the
 * queues `queueNames` gives and any paused one); and `<prefix>dropped_runs_total`,
 * `<prefix>ordered_keys_rebased_total` and `<prefix>dead_letters_dropped_total`,
 * counters set to the bus's counts of runs dropped by blocks, of order keys
 * re-based and of dead letters dropped by the retention (counts that only grow). One status read
 * serves a scrape; when it fails the gauges keep their last values and
 * `<prefix>status_up` is 0.
 */
export function registerStatusGauges(
  registry: Registry,
  prefix: string,
  status: () => Promise<MetricsStatus>,
  logger: Logger,
  queueNames: () => readonly string[] = () => [],
): void {
  const read = sharedScrapeRead(status, (error) =>
    logger.warn(
      { error: describeError(error).message },
      'bus.status() failed during a metrics scrape; the status gauges keep their last values',
    ),
  );
  const gauge = (
    name: string,
    help: string,
    labelNames: readonly string[],
    pick: (s: MetricsStatus) => Samples,
  ) => scrapeGauge(registry, read, { name: `${prefix}${name}`, help, labelNames }, pick);
  // Set to a count the bus keeps (in Redis, or in the SQL transport's tables), which only ever grows.
  const counter = (name: string, help: string, value: (s: MetricsStatus) => number) => {
    const metric: Counter = new Counter({
      name: `${prefix}${name}`,
      help,
      registers: [registry],
      collect: async () => {
        const figures = await read();
        if (figures === undefined) return;
        metric.reset();
        metric.inc(value(figures));
      },
    });
  };
  const up: Gauge = new Gauge({
    name: `${prefix}status_up`,
    help: 'Whether the last scrape could read bus.status() (1) or not (0)',
    registers: [registry],
    collect: async () => up.set((await read()) === undefined ? 0 : 1),
  });
  gauge('backlog_events', 'Published events in the drain log, waiting or being handled', [], (s) =>
    one(s.backlog.events),
  );
  gauge('backlog_oldest_age_seconds', 'Age of the oldest event in the drain log (0 when empty)', [], (s) =>
    one(seconds(s.backlog.oldestAgeMs)),
  );
  gauge('ordered_events_waiting', "Ordered events waiting in their keys' lanes", [], (s) =>
    one(s.backlog.ordered),
  );
  gauge('delayed_events', 'Events published with a delay that are not yet due', [], (s) =>
    one(s.backlog.delayed),
  );
  gauge('handler_jobs', 'Handler jobs not finished, per handler and state', ['handler', 'state'], (s) =>
    Object.entries(s.handlers).flatMap(([handler, h]) =>
      (['waiting', 'running', 'retrying'] as const).map((state): [Record<string, string>, number] => [
        { handler, state },
        h[state],
      ]),
    ),
  );
  gauge('parked_runs', 'Work held back by a pause, per handler', ['handler'], (s) =>
    Object.entries(s.handlers).map(([handler, h]): [Record<string, string>, number] => [
      { handler },
      h.parked,
    ]),
  );
  counter(
    'dropped_runs_total',
    'Handler runs dropped by block rules, on the whole bus, since its count began',
    (s) => s.dropped,
  );
  gauge('dead_letters_stored', 'Dead letters kept now, per kind (0 for a kind with none)', ['kind'], (s) =>
    DEAD_LETTER_KINDS.map((kind): [Record<string, string>, number] => [
      { kind },
      s.deadLetters.byKind[kind] ?? 0,
    ]),
  );
  counter(
    'dead_letters_dropped_total',
    'Dead letters dropped, oldest first, to keep deadLetters.maxCount and deadLetters.maxAgeMs, on the whole bus',
    (s) => s.deadLetters.dropped,
  );
  gauge('ordered_keys_halted', 'Ordered lanes halted by a handler that gave up', [], (s) =>
    one(s.halted.count),
  );
  counter(
    'ordered_keys_rebased_total',
    "Times an order key's lane stopped waiting for a position that never came and went on from the first it held (after the gap wait, or by bus.ordering.rebase), on the whole bus",
    (s) => s.rebased.count,
  );
  gauge(
    'workers',
    'Workers of the bus alive now (beating within workers.goneAfterMs), on the whole bus',
    [],
    (s) => one(s.workers.alive),
  );
  gauge(
    'outbox_pending_rows',
    'Outbox rows committed and not yet known to be published (0 without an outbox)',
    [],
    (s) => one(s.outbox?.pending ?? 0),
  );
  gauge(
    'outbox_relay_lag_seconds',
    'Age of the oldest pending outbox row: how far the relay is behind (0 when none)',
    [],
    (s) => one(seconds(s.outbox?.oldestAgeMs ?? null)),
  );
  gauge(
    'rules_active',
    'Pause and block rules in force now, per kind (0 for a kind with none)',
    ['kind'],
    (s) =>
      RULE_KINDS.map((kind): [Record<string, string>, number] => [
        { kind },
        s.rules.filter((rule) => rule.kind === kind).length,
      ]),
  );
  gauge(
    'bullmq_queue_paused',
    "Whether each of the transport's BullMQ queues is paused (1: no worker takes its jobs) or not (0)",
    ['queue'],
    (s) => {
      const names = new Set([...queueNames(), ...s.pausedQueues]);
      return [...names].map((queue): [Record<string, string>, number] => [
        { queue },
        s.pausedQueues.includes(queue) ? 1 : 0,
      ]);
    },
  );
}
