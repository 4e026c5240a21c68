import type { Command } from 'commander';
import type { RunningWorker } from '../bus/event-bus-options.js';
import type { MetricsRegistry } from '../metrics/metrics-registry.js';
import { consoleLogger, describeError } from '../support/logger.js';
import { type BusModule, closeBusModule, loadBusModule } from './bus-module.js';
import { refuseUnaskedMemoryTransport } from './memory-transport-guard.js';
import { portInUseOr, portOption } from './port-option.js';
import { listenForStopSignals } from './stop-signals.js';

/** The flags of `commitbus worker`. */
interface WorkerFlags {
  readonly metricsPort?: string;
  readonly metricsHost: string;
}

/**
 * Adds `commitbus worker <module>`: imports the bus module, starts a worker
 * (and the module's event store, if any), and on SIGTERM or SIGINT finishes
 * the work in flight, closes everything and exits 0. It listens for those
 * signals before it starts: one that comes while it starts stops it once
 * started.
 */
export function addWorkerCommand(program: Command): Command {
  return program
    .command('worker')
    .description(
      'run a worker for the bus the module exports, until SIGTERM or SIGINT (then a graceful stop)',
    )
    .argument('<module>', 'the bus module (compiled .js; .ts when run under tsx)')
    .option('--metrics-port <port>', 'serve Prometheus metrics at /metrics on this port (0: any free port)')
    .option('--metrics-host <host>', 'address the metrics server binds', '127.0.0.1')
    .action(async (path: string, flags: WorkerFlags) => {
      const signals = listenForStopSignals((signal) => {
        consoleLogger.warn({ signal }, 'worker: second signal, exiting at once');
        process.exit(1);
      });
      try {
        const { loaded, worker } = await startOn(path, flags);
        const signal = await signals.received;
        console.log(`commitbus worker: ${signal}, finishing the work in flight`);
        try {
          await worker.close();
          await closeBusModule(loaded);
        } catch (error) {
          consoleLogger.error({ error: describeError(error).message }, 'worker: failed to stop cleanly');
          throw error;
        }
        console.log('commitbus worker: stopped');
      } finally {
        signals.dispose();
      }
    });
}

/** Loads the module, starts its worker and event store, and says so on stdout. */
async function startOn(
  path: string,
  flags: WorkerFlags,
): Promise<{ loaded: BusModule; worker: RunningWorker }> {
  const metrics =
    flags.metricsPort === undefined
      ? undefined
      : { port: portOption('--metrics-port', flags.metricsPort), host: flags.metricsHost };
  const loaded = await loadBusModule(path);
  try {
    refuseUnaskedMemoryTransport(loaded.bus, 'commitbus worker');
  } catch (error) {
    await closeBusModule(loaded).catch(() => undefined);
    throw error;
  }
  const served = metrics === undefined ? undefined : { ...metrics, ...(await withEventStore(loaded)) };
  const worker = await loaded.bus
    .startWorker({ handleSignals: false, ...(served === undefined ? {} : { metrics: served }) })
    .catch((error: unknown) => {
      throw metrics === undefined ? error : portInUseOr(error, '--metrics-port', metrics.host, metrics.port);
    });
  try {
    await loaded.eventStore?.start();
  } catch (error) {
    // Nothing else will close them: the process would hang on their connections.
    await worker.close().catch(() => undefined);
    await closeBusModule(loaded).catch(() => undefined);
    throw error;
  }
  const { name } = loaded.bus.config;
  const { transport, location } = loaded.bus.runsOn;
  // One line on stdout for people and process managers; the structured logs go to stderr.
  console.log(
    `commitbus worker: bus ${name} (transport ${transport}${location === undefined ? '' : ` on ${location}`})${loaded.eventStore === undefined ? '' : ' with its event store'}, pid ${process.pid}`,
  );
  if (worker.metrics !== undefined) console.log(`commitbus worker: metrics at ${worker.metrics.url}`);
  return { loaded, worker };
}

/**
 * The registry to serve for a module with an event store: the bus's metrics
 * with the store's gauges (`createBusMetrics(bus, { eventStore })`, loaded
 * only now); none (the bus's own metrics) without one.
 */
async function withEventStore(loaded: BusModule): Promise<{ registry?: MetricsRegistry }> {
  if (loaded.eventStore === undefined) return {};
  const { createBusMetrics } = await import('../metrics/bus-metrics.js');
  return { registry: createBusMetrics(loaded.bus, { eventStore: loaded.eventStore }).registry };
}
