import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { FailedRun, HandledRun } from '../handlers/bus-observer.js';
import { consoleLogger } from '../support/logger.js';
import { packageVersion } from '../support/package-version.js';
import { type MetricsEventStore, registerEventStoreGauges } from './event-store-gauges.js';
import type { MetricsSource } from './metrics-source.js';
import { registerStatusGauges } from './status-gauges.js';

/** Options of {@link createBusMetrics}. */
export interface BusMetricsOptions {
  /**
   * The registry to register the metrics in (your service's, to serve them
   * beside its own).
   * @defaultValue a new registry of their own
   */
  readonly registry?: Registry;
  /**
   * What every metric's name starts with.
   * @defaultValue `'commitbus_'`
   */
  readonly prefix?: string;
  /**
   * The handler duration histogram's buckets, in seconds.
   * @defaultValue 1 ms to 60 s
   */
  readonly durationBuckets?: readonly number[];
  /**
   * Whether to add the gauges read from `bus.status()` at each scrape
   * (backlog, jobs, parked work, dead letters, halted keys, outbox). A
   * status read lists every job and dead letter: turn them off where those
   * run into the hundreds of thousands, or scrape them from one process only.
   * @defaultValue `true`
   */
  readonly statusGauges?: boolean;
  /**
   * Whether to add Node.js's process metrics (prom-client's default
   * metrics: CPU, memory, event loop lag, GC, handles), under the same prefix.
   * @defaultValue `true` on a registry of their own, `false` on yours (which
   * may collect them already)
   */
  readonly processMetrics?: boolean;
  /**
   * An event store whose gauges to add, read from its `status()` at each
   * scrape (see `registerEventStoreGauges`): `createEventStore`'s store.
   * @defaultValue none
   */
  readonly eventStore?: MetricsEventStore;
}

/** The label a handling key no registered class has gets: such keys come from foreign payloads. */
const UNKNOWN_KEY = 'unregistered';

/** What may follow a failed run, each a `next` label of the failure counter. */
const AFTER_FAILURE = ['retry', 'dead-letter', 'halt'] as const;

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * A bus's Prometheus metrics: counters of what this process published and
 * of its handler runs, and a histogram of their durations, driven by the
 * bus's observer hooks; gauges of the bus's work read from `bus.status()`
 * at scrape time (see `registerStatusGauges`). Labels are bounded: a handler's name, a handling key
 * of a registered class, and small enumerations; never an event id.
 */
export class BusMetrics {
  /** The registry the metrics are in. */
  readonly registry: Registry;
  /** `<prefix>events_published_total{key}`: events this process published. */
  readonly published: Counter<'key'>;
  /** `<prefix>handler_runs_handled_total{handler,key}`: handler runs that succeeded. */
  readonly handled: Counter<'handler' | 'key'>;
  /** `<prefix>handler_runs_failed_total{handler,key,next}`: runs that threw or timed out. */
  readonly failed: Counter<'handler' | 'key' | 'next'>;
  /** `<prefix>handler_retries_total{handler,key}`: failed runs scheduled to run again. */
  readonly retried: Counter<'handler' | 'key'>;
  /** `<prefix>handler_runs_parked_total{handler,key}`: runs a pause held. */
  readonly parked: Counter<'handler' | 'key'>;
  /** `<prefix>dead_letters_total{handler,key,kind,reason}`: dead letters this process stored. */
  readonly deadLettered: Counter<'handler' | 'key' | 'kind' | 'reason'>;
  /**
   * `<prefix>ordered_late_events_total{key}`: ordered events that came for a
   * position their key's lane had skipped in a re-base, kept as dead letters
   * (`skipped-by-rebase`) by this process.
   */
  readonly lateOrdered: Counter<'key'>;
  /** `<prefix>handler_duration_seconds{handler,key,outcome}`: each run's duration. */
  readonly duration: Histogram<'handler' | 'key' | 'outcome'>;
  private readonly stop: () => void;

  /**
   * @param bus - the bus to observe (and whose `status()` the gauges read).
   * @param options - registry, prefix, buckets, whether to add the status gauges.
   */
  constructor(
    private readonly bus: MetricsSource,
    options: BusMetricsOptions = {},
  ) {
    this.registry = options.registry ?? new Registry();
    const prefix = options.prefix ?? 'commitbus_';
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
      new Counter<L>({ name: `${prefix}${name}`, help, labelNames, registers });
    this.published = counter('events_published_total', 'Events this process published', ['key']);
    this.handled = counter('handler_runs_handled_total', 'Handler runs that succeeded', ['handler', 'key']);
    this.failed = counter(
      'handler_runs_failed_total',
      'Handler runs that threw or timed out, by what follows (retry, dead-letter, halt)',
      ['handler', 'key', 'next'],
    );
    this.retried = counter('handler_retries_total', 'Failed handler runs scheduled to run again', [
      'handler',
      'key',
    ]);
    this.parked = counter('handler_runs_parked_total', 'Handler runs a pause rule held', ['handler', 'key']);
    this.deadLettered = counter(
      'dead_letters_total',
      'Dead letters this process stored, by kind and reason',
      ['handler', 'key', 'kind', 'reason'],
    );
    this.lateOrdered = counter(
      'ordered_late_events_total',
      'Ordered events that came for a position their lane skipped in a re-base, kept as dead letters',
      ['key'],
    );
    this.duration = new Histogram({
      name: `${prefix}handler_duration_seconds`,
      help: 'Duration of handler runs, by outcome (handled, failed)',
      labelNames: ['handler', 'key', 'outcome'],
      buckets: [...(options.durationBuckets ?? DURATION_BUCKETS)],
      registers,
    });
    this.startAtZero();
    new Gauge({
      name: `${prefix}build_info`,
      help: 'Always 1: the commitbus and Node.js versions this process runs, as labels',
      labelNames: ['version', 'node'],
      registers,
    }).set({ version: packageVersion(), node: process.versions.node }, 1);
    if (options.processMetrics ?? options.registry === undefined) {
      collectDefaultMetrics({ register: this.registry, prefix });
    }
    const { status } = bus;
    if ((options.statusGauges ?? true) && status !== undefined) {
      const queueNames = () => (bus.transport?.bullmqQueues ?? []).map((queue) => queue.name);
      registerStatusGauges(
        this.registry,
        prefix,
        () => status.call(bus),
        bus.logger ?? consoleLogger,
        queueNames,
      );
    }
    if (options.eventStore !== undefined) {
      registerEventStoreGauges(this.registry, prefix, options.eventStore, bus.logger ?? consoleLogger);
    }
    this.stop = bus.observe({
      onPublished: (events) => {
        for (const event of events) this.published.inc({ key: event.handlingKey });
      },
      onHandled: (run) => {
        this.handled.inc(labels(run));
        this.duration.observe({ ...labels(run), outcome: 'handled' }, run.durationMs / 1000);
      },
      onHandlerFailed: (run) => this.onFailed(run),
      onRetry: (retry) => this.retried.inc(labels(retry)),
      onParked: (run) => this.parked.inc(labels(run)),
      onDeadLetter: (letter) => this.onDeadLetter(letter),
    });
  }

  /** The text exposition of every metric in the registry, for `/metrics`. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** Stops counting (the metrics stay in the registry with their values). */
  close(): void {
    this.stop();
  }

  /** Every registered handler's counters at 0: a first failure is an increase `rate()` can see. */
  private startAtZero(): void {
    for (const run of this.bus.handlers?.runs() ?? []) {
      const labelled = { handler: run.handler, key: run.key };
      this.handled.inc(labelled, 0);
      this.retried.inc(labelled, 0);
      for (const next of AFTER_FAILURE) this.failed.inc({ ...labelled, next }, 0);
    }
  }

  private onFailed(run: FailedRun): void {
    this.failed.inc({ ...labels(run), next: run.next });
    this.duration.observe({ ...labels(run), outcome: 'failed' }, run.durationMs / 1000);
  }

  private onDeadLetter(letter: DeadLetter): void {
    const handling = letter.handlingKey;
    const key = handling === undefined ? '' : this.bus.knowsHandlingKey(handling) ? handling : UNKNOWN_KEY;
    this.deadLettered.inc({ handler: letter.handler ?? '', key, kind: letter.kind, reason: letter.reason });
    if (letter.reason === 'skipped-by-rebase') this.lateOrdered.inc({ key });
  }
}

function labels(run: Pick<HandledRun, 'event' | 'handler'>): { handler: string; key: string } {
  return { handler: run.handler, key: run.event.handlingKey };
}

/**
 * Builds a bus's Prometheus metrics (see {@link BusMetrics}) and starts
 * counting. Serve `metrics.registry` yourself, or let a worker serve it:
 * `bus.startWorker({ metrics: { port } })` serves the bus's own.
 */
export function createBusMetrics(bus: MetricsSource, options: BusMetricsOptions = {}): BusMetrics {
  return new BusMetrics(bus, options);
}
