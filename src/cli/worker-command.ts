import type { Command } from 'commander';
import { consoleLogger, describeError } from '../support/logger.js';
import { closeBusModule, loadBusModule } from './bus-module.js';
import { refuseUnaskedMemoryTransport } from './memory-transport-guard.js';
import { portOption } from './port-option.js';

/** The flags of `commitbus worker`. */
interface WorkerFlags {
  readonly metricsPort?: string;
  readonly metricsHost: string;
}

/**
 * Adds `commitbus worker <module>`: imports the bus module, starts a worker
 * (and the module's event store, if any), and on SIGTERM or SIGINT finishes
 * the work in flight, closes everything and exits 0.
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
      const worker = await loaded.bus.startWorker({
        handleSignals: false,
        ...(metrics === undefined ? {} : { metrics }),
      });
      try {
        await loaded.eventStore?.start();
      } catch (error) {
        // Nothing else will close them: the process would hang on their connections.
        await worker.close().catch(() => undefined);
        await closeBusModule(loaded).catch(() => undefined);
        throw error;
      }
      const {
        name,
        redis: { prefix },
      } = loaded.bus.config;
      const transport = loaded.bus.runsOn.transport;
      // One line on stdout for people and process managers; the structured logs go to stderr.
      console.log(
        `commitbus worker: bus ${name} (prefix ${prefix}, transport ${transport})${loaded.eventStore === undefined ? '' : ' with its event store'}, pid ${process.pid}`,
      );
      if (worker.metrics !== undefined) console.log(`commitbus worker: metrics at ${worker.metrics.url}`);
      await new Promise<void>((resolve, reject) => {
        let stopping = false;
        const stop = (signal: NodeJS.Signals) => {
          if (stopping) {
            consoleLogger.warn({ signal }, 'worker: second signal, exiting at once');
            process.exit(1);
          }
          stopping = true;
          console.log(`commitbus worker: ${signal}, finishing the work in flight`);
          worker
            .close()
            .then(() => closeBusModule(loaded))
            .then(() => {
              console.log('commitbus worker: stopped');
              resolve();
            }, reject);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      }).catch((error: unknown) => {
        consoleLogger.error({ error: describeError(error).message }, 'worker: failed to stop cleanly');
        throw error;
      });
    });
}
