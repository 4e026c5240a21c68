import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DataSource } from 'typeorm';
import type { EventBus } from '../bus/event-bus.js';
import type { EventStore } from '../event-store/event-store.js';
import { describeError } from '../support/logger.js';
import { CliError } from './errors/cli.error.js';

/** What a `commitbus` command runs on, read from the user's module. */
export interface BusModule {
  /** The bus. */
  readonly bus: EventBus;
  /** The event store, when the module exports one. */
  readonly eventStore?: EventStore;
  /** The DataSource to destroy on exit: the module's `dataSource`, else the bus's. */
  readonly dataSource?: DataSource;
}

type Exports = Record<string, unknown>;

/**
 * Imports the module at `path` (relative to the working directory) and reads
 * its bus: `export default bus`, `export const bus`, or either as a function
 * (sync or async) returning the bus or `{ bus, eventStore?, dataSource? }`.
 * `eventStore` and `dataSource` may also be exported beside it.
 */
export async function loadBusModule(path: string): Promise<BusModule> {
  const file = resolve(path);
  if (!existsSync(file)) throw new CliError(`the bus module ${path} does not exist (resolved to ${file})`);
  let exports: Exports;
  try {
    exports = (await import(pathToFileURL(file).href)) as Exports;
  } catch (error) {
    throw new CliError(`could not import the bus module ${path}: ${importHint(error)}`, { cause: error });
  }
  let made: unknown = exports.default ?? exports.bus;
  if (typeof made === 'function') {
    try {
      made = await (made as () => unknown)();
    } catch (error) {
      throw new CliError(`the bus module ${path} failed to make its bus: ${describeError(error).message}`, {
        cause: error,
      });
    }
  }
  const parts: Exports = isBus(made) ? { bus: made } : ((made ?? {}) as Exports);
  const bus = parts.bus;
  if (!isBus(bus)) {
    throw new CliError(
      `the module ${path} exports no bus: export it as \`export default bus\` or \`export const bus\` (an EventBus, or a function returning one or { bus, eventStore, dataSource })`,
    );
  }
  const eventStore = parts.eventStore ?? exports.eventStore;
  const dataSource = parts.dataSource ?? exports.dataSource ?? bus.dataSource;
  return {
    bus,
    ...(isEventStore(eventStore) ? { eventStore } : {}),
    ...(isDataSource(dataSource) ? { dataSource } : {}),
  };
}

/**
 * Closes what a module opened: the event store, then the bus, then the
 * DataSource. The event store first: its writer and listeners publish through
 * the bus (unit-of-work hooks, outbox), so a batch finishing as it closes still
 * finds the bus open.
 */
export async function closeBusModule(loaded: BusModule): Promise<void> {
  await loaded.eventStore?.close();
  await loaded.bus.close();
  if (loaded.dataSource?.isInitialized === true) await loaded.dataSource.destroy();
}

// Duck-typed: the module may import another copy of commitbus than this command's.
function isBus(value: unknown): value is EventBus {
  const bus = value as Partial<EventBus> | undefined;
  return typeof bus?.startWorker === 'function' && typeof bus.status === 'function';
}

function isEventStore(value: unknown): value is EventStore {
  const store = value as Partial<EventStore> | undefined;
  return typeof store?.replay === 'function' && typeof store.halted === 'function';
}

function isDataSource(value: unknown): value is DataSource {
  const dataSource = value as Partial<DataSource> | undefined;
  return typeof dataSource?.destroy === 'function' && typeof dataSource.isInitialized === 'boolean';
}

function importHint(error: unknown): string {
  const { message, code } = describeError(error);
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
    return `${message}; a .ts module needs tsx: run \`node --import tsx node_modules/commitbus/dist/src/cli/commitbus.js ...\` or compile it to .js`;
  }
  return message;
}
