import type { DataSource } from 'typeorm';
import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import type { Event } from '../events/event.js';
import type { EventSerializer } from '../events/event-serializer.js';
import { type EventClass, orderingPolicyOf } from '../events/event-type.decorator.js';
import { Dispatcher } from '../handlers/dispatcher.js';
import type { HandlerGate } from '../handlers/handler-gate.js';
import { HandlerPipeline } from '../handlers/handler-pipeline.js';
import { HandlerRunner } from '../handlers/handler-runner.js';
import type { HandlerTable } from '../handlers/handler-table.js';
import type { TransportWorker } from '../handlers/handler-worker.js';
import type { ObserverSet } from '../handlers/observer-set.js';
import { IdempotencyNotConfiguredError } from '../idempotency/errors/idempotency-not-configured.error.js';
import { IdempotentRunner } from '../idempotency/idempotent-runner.js';
import type { MetricsRegistry } from '../metrics/metrics-registry.js';
import type { MetricsServer, MetricsServerOptions, ReadinessProbe } from '../metrics/metrics-server.js';
import { LaneRunner } from '../ordering/lane-runner.js';
import { OrderedConsumer } from '../ordering/ordered-consumer.js';
import type { Schedules } from '../scheduling/schedules.js';
import type { SchedulingRules } from '../scheduling/scheduling-rules.js';
import type { Logger } from '../support/logger.js';
import { PeriodicTask } from '../support/periodic-task.js';
import { SoloGate } from '../support/solo-gate.js';
import type { UnitOfWorkBus } from '../uow/unit-of-work-bus.js';
import type { RunningWorker, StartWorkerOptions } from './event-bus-options.js';
import type { Transport } from './transport.js';
import { startWorkerBeats } from './worker-beats.js';
import { workerReadiness } from './worker-readiness.js';

const RELEASE_BATCH = 1_000;

/** What a worker is built from: the bus's parts. */
export interface WorkerParts {
  /** The bus's configuration. */
  readonly config: ResolvedCommitbusOptions;
  /** Where the worker logs. */
  readonly logger: Logger;
  /** The handlers to run. */
  readonly handlers: HandlerTable;
  /** Decodes events. */
  readonly serializer: EventSerializer;
  /** The adapter's ports. */
  readonly transport: Transport;
  /** The scheduling rules, of which the worker keeps a copy. */
  readonly rules: SchedulingRules;
  /** The bus's DataSource, for idempotent handlers. */
  readonly dataSource: DataSource | undefined;
  /** Whether to run the ordered lanes' consumer (`config.ordering`). */
  readonly orderedLanes: boolean;
  /** The bus's schedules, which tick while one of its workers runs in this process. */
  readonly schedules: Pick<Schedules, 'attach'>;
  /** The bus, as idempotent runs' units of work see it. */
  readonly bus: UnitOfWorkBus;
  /** What `ctx.publish` of a handler does. */
  readonly publish: (events: readonly Event[]) => Promise<void>;
  /** The bus's observers, told of every handler run, retry, parked run and dead letter. */
  readonly observer: ObserverSet;
  /** The registry `metrics` serves when it names none: the bus's own metrics, loaded when asked for. */
  readonly metricsRegistry: () => Promise<MetricsRegistry>;
}

/** A started worker's closing steps, in order. */
interface Started {
  readonly inner: TransportWorker;
  readonly stopTasks: () => Promise<void>;
  readonly stopLanes: (timeoutMs: number) => Promise<void>;
  readonly closeGate: () => Promise<void>;
}

/**
 * Starts a worker in this process: the transport's drains, handler jobs and
 * retries, the ordered lanes' consumer, the delayed-event release, the
 * idempotency cleanup and the bus's schedules. `onClosed` runs when it has closed; `closeBus` on
 * SIGINT/SIGTERM (with `handleSignals`).
 */
export async function startBusWorker(
  parts: WorkerParts,
  options: StartWorkerOptions,
  hooks: { readonly onClosed: (worker: RunningWorker) => void; readonly closeBus: () => Promise<void> },
): Promise<RunningWorker> {
  const { config, logger } = parts;
  let closing: Promise<void> | undefined;
  let running = false;
  const ready = workerReadiness({ ...parts, running: () => running && closing === undefined });
  // First: a port in use fails the start before any work is taken.
  // The metrics server (and the bus's own metrics, with prom-client) load only for a worker that serves them.
  const served = options.metrics === undefined ? undefined : await serve(options.metrics, parts, ready);
  const started = await startParts(parts, options).catch(async (error: unknown) => {
    await served?.close();
    throw error;
  });
  running = true;
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  let bySignal = false;
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down: finishing in-flight work');
    bySignal = true;
    // `stopped` resolves once the whole bus is closed, so the caller may destroy the DataSource then.
    worker
      .close()
      .then(hooks.closeBus)
      .catch((error: unknown) => logger.error({ error: String(error) }, 'shutdown failed'))
      .finally(resolveStopped);
  };
  const worker: RunningWorker = {
    stopped,
    ...(served === undefined ? {} : { metrics: { host: served.host, port: served.port, url: served.url } }),
    close: () => {
      closing ??= (async () => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        // A step that fails lets the later ones run (the gate closes, the metrics port is freed); the first failure is thrown.
        const failures: unknown[] = [];
        const step = (run: () => Promise<void> | undefined) =>
          Promise.resolve()
            .then(run)
            .catch((error: unknown) => void failures.push(error));
        await step(() => started.stopTasks());
        await Promise.all([
          step(() => started.inner.close(config.shutdownTimeoutMs)),
          step(() => started.stopLanes(config.shutdownTimeoutMs)),
        ]);
        await step(() => started.closeGate());
        await step(() => served?.close());
        hooks.onClosed(worker);
        if (!bySignal) resolveStopped();
        if (failures.length > 0) throw failures[0];
      })();
      return closing;
    },
  };
  if (options.handleSignals ?? true) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  return worker;
}

/** Serves `metrics` (the bus's own when it names no registry), loading the metrics server only now. */
async function serve(
  metrics: MetricsServerOptions,
  parts: WorkerParts,
  ready: ReadinessProbe,
): Promise<MetricsServer> {
  const { serveMetrics } = await import('../metrics/metrics-server.js');
  return serveMetrics(metrics.registry ?? (await parts.metricsRegistry()), metrics, parts.logger, ready);
}

async function startParts(parts: WorkerParts, options: StartWorkerOptions): Promise<Started> {
  const { config, logger, transport, dataSource } = parts;
  const idempotent = parts.handlers.all().filter((h) => h.idempotent);
  if (idempotent.length > 0 && dataSource === undefined) {
    throw new IdempotencyNotConfiguredError(
      idempotent.map((h) => h.name).join(', '),
      'the bus has no dataSource',
    );
  }
  const idempotency = dataSource === undefined ? undefined : new IdempotentRunner(dataSource, parts.bus);
  // The worker's copy of the scheduling rules, loaded before it takes any work.
  const gate = await parts.rules.openGate();
  const runner = new HandlerRunner(parts.publish, logger, idempotency);
  const pipeline = new HandlerPipeline({
    plans: parts.handlers,
    decode: (payload) => parts.serializer.deserialize(payload),
    runner,
    rules: gate,
    settings: config.handlers,
    logger,
    observer: parts.observer,
  });
  const dispatcher = new Dispatcher(pipeline, gate);
  // One per process: an event handed out again after its worker died runs alone.
  const solo = new SoloGate();
  const inner = await transport
    .startWorker({
      dispatcher,
      config,
      logger,
      solo,
      ...(options.onDrain ? { onDrain: options.onDrain } : {}),
    })
    .catch(async (error: unknown) => {
      await gate.close();
      throw error;
    });
  const stopLanes = parts.orderedLanes
    ? await startLanes(parts, pipeline, gate, solo).catch(async (error: unknown) => {
        await inner.close(0);
        await gate.close();
        throw error;
      })
    : async () => {};
  const releaser = new PeriodicTask(
    'delayed-event release',
    config.publishing.delayedPollMs,
    async () => {
      while ((await transport.releaseDue(RELEASE_BATCH)) >= RELEASE_BATCH);
    },
    logger,
  ).start();
  const retention = config.idempotency.retentionMs;
  const cleanup =
    idempotency !== undefined && idempotent.length > 0
      ? new PeriodicTask(
          'idempotency record cleanup',
          Math.min(Math.ceil(retention / 10), 3_600_000),
          () => idempotency.forgetOlderThan(retention),
          logger,
        ).start()
      : undefined;
  const detachSchedules = parts.schedules.attach();
  const beats = startWorkerBeats({
    registry: transport.workers,
    settings: config.workers,
    transport: transport.name,
    concurrency: config.handlers.concurrency,
    busy: () => runner.busy,
    logger,
  });
  return {
    inner,
    stopTasks: async () => {
      await Promise.all([releaser.stop(), cleanup?.stop(), detachSchedules(), beats.stop()]);
    },
    stopLanes,
    closeGate: () => gate.close(),
  };
}

/**
 * Starts the consumer of ordered lanes on a handle of its own (on Redis, two
 * connections and an upkeep call every `ordering.upkeepMs`); resolves to its stop.
 */
async function startLanes(
  parts: WorkerParts,
  pipeline: HandlerPipeline,
  gate: HandlerGate,
  solo: SoloGate,
): Promise<(timeoutMs: number) => Promise<void>> {
  const { config, logger, transport } = parts;
  const lanes = transport.workerOrdering();
  const ordered = await new OrderedConsumer({
    store: lanes.store,
    runner: new LaneRunner({
      pipeline,
      rules: gate,
      deadLetters: transport.deadLetters,
      policyOf: (event) =>
        orderingPolicyOf(event.constructor as EventClass<Event>)?.afterLastAttempt ?? 'halt',
      pauseRecheckMs: config.scheduling.rulesRefreshMs,
    }),
    concurrency: config.ordering.concurrency,
    leaseMs: config.ordering.leaseMs,
    maintainEveryMs: config.ordering.upkeepMs,
    blockMs: config.drains.blockMs,
    logger,
    solo,
  })
    .start()
    .catch((error: unknown) => {
      lanes.close();
      throw error;
    });
  return async (timeoutMs) => {
    await ordered.close(timeoutMs);
    lanes.close();
  };
}
