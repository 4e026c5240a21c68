import type { EventBus } from '../bus/event-bus.js';
import { CliError } from './errors/cli.error.js';

/** The variable that asks for SQLite in this process's memory on purpose (`memory`). */
const TRANSPORT_VARIABLE = 'COMMITBUS_TRANSPORT';

/**
 * Refuses a command that would show or work another process's bus on the
 * in-process transport, SQLite in memory (a module whose bus was given no adapter,
 * or `transportFromEnv()` with no Redis variable set): a worker that handles
 * nothing the services publish, a status of zeros. Allowed when
 * the environment asks for that transport (`COMMITBUS_TRANSPORT=memory`).
 *
 * @param what - the command, as the message names it (`commitbus worker`).
 * @throws CliError saying what to set.
 */
export function refuseUnaskedMemoryTransport(bus: EventBus, what: string): void {
  if (!bus.runsOn.inProcess) return;
  if (process.env[TRANSPORT_VARIABLE]?.trim() === 'memory') return;
  throw new CliError(
    `${what} refused: the bus runs on SQLite in this process's memory (the embedded default), which sees nothing of your services' and workers' bus (the module gives its bus no adapter, sqliteTransport() without a file, or transportFromEnv() found no Redis: REDIS_URL, COMMITBUS_REDIS_URL, REDIS_CLUSTER_NODES and COMMITBUS_REDIS_CLUSTER are unset). Give the module's bus a shared transport: transportFromEnv() (commitbus/transports) and set REDIS_URL (or REDIS_CLUSTER_NODES) to the Redis your services use, COMMITBUS_TRANSPORT=sql with transportFromEnv({ dataSource }) to run on your database, or COMMITBUS_TRANSPORT=sqlite with COMMITBUS_SQLITE_FILE naming the file your services use; or set ${TRANSPORT_VARIABLE}=memory if an in-process bus is what you mean`,
  );
}
