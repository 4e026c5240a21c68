import type { Queue } from 'bullmq';
import type { FastifyInstance, FastifyPluginCallback } from 'fastify';
import { BullBoardMissingError } from './errors/bull-board-missing.error.js';

/** The modules bull-board is loaded from (a test names missing ones). */
export interface BullBoardModules {
  readonly api: string;
  readonly adapter: string;
  readonly fastify: string;
}

/** Where bull-board lives: optional peer dependencies of commitbus. */
export const BULL_BOARD_MODULES: BullBoardModules = {
  api: '@bull-board/api',
  adapter: '@bull-board/api/bullMQAdapter',
  fastify: '@bull-board/fastify',
};

// The little of bull-board's API used here, typed locally: its types must not be needed to compile against commitbus.
interface FastifyAdapter {
  setBasePath(path: string): FastifyAdapter;
  registerPlugin(): FastifyPluginCallback;
}
interface BullBoardApi {
  createBullBoard(options: {
    queues: readonly unknown[];
    serverAdapter: FastifyAdapter;
    options?: { uiConfig?: { boardTitle?: string } };
  }): unknown;
}
// A read-only queue answers 405 to every action (pause, retry, clean, add, ...) and hides their buttons.
interface AdapterOptions {
  readOnlyMode: boolean;
}
type Constructor<T, A extends unknown[]> = new (...args: A) => T;

/**
 * Loads bull-board (only when a dashboard starts: it is an optional peer
 * dependency); throws {@link BullBoardMissingError} when it is not installed.
 */
export async function loadBullBoard(modules: BullBoardModules = BULL_BOARD_MODULES): Promise<{
  api: BullBoardApi;
  BullMQAdapter: Constructor<unknown, [Queue, AdapterOptions]>;
  FastifyAdapter: Constructor<FastifyAdapter, []>;
}> {
  try {
    const [api, adapter, fastify] = await Promise.all([
      import(modules.api),
      import(modules.adapter),
      import(modules.fastify),
    ]);
    return {
      api: pick(api, 'createBullBoard') as unknown as BullBoardApi,
      BullMQAdapter: pick(adapter, 'BullMQAdapter').BullMQAdapter as Constructor<
        unknown,
        [Queue, AdapterOptions]
      >,
      FastifyAdapter: pick(fastify, 'FastifyAdapter').FastifyAdapter as Constructor<FastifyAdapter, []>,
    };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new BullBoardMissingError({ cause: error });
    }
    throw error;
  }
}

/**
 * Mounts bull-board for `queues` on `app` at `path` (e.g. `/queues`), under
 * the server's hooks (auth included); `readOnly` (bull-board's
 * `readOnlyMode` on every queue) refuses every change with a 405.
 */
export async function mountBullBoard(
  app: FastifyInstance,
  path: string,
  queues: readonly Queue[],
  readOnly: boolean,
  modules?: BullBoardModules,
): Promise<void> {
  const { api, BullMQAdapter, FastifyAdapter } = await loadBullBoard(modules);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(path);
  api.createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: readOnly })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'commitbus queues' } },
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: path });
}

// A CommonJS module imported from ESM: its exports are named, or only on `default`.
function pick(module: Record<string, unknown>, name: string): Record<string, unknown> {
  if (module[name] !== undefined) return module;
  return (module.default ?? {}) as Record<string, unknown>;
}
