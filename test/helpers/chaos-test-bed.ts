import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll } from 'vitest';
import { bundleChaosProcesses, type ChaosBundle } from './chaos-build.js';
import { ChaosCluster, type ChaosClusterOptions, type ChaosScripts } from './chaos-cluster.js';
import { closeSchema, openSchema } from './postgres.js';
import { deleteKeys, openRedis, type RedisClient, redisEnv, testPrefix } from './redis.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** What a chaos test file shares: its schema, its prefix, its bundled processes and the cluster of them. */
export interface ChaosTestBed {
  /** The bus's names: a prefix of the file's own (`cb-test-<name>-<8 hex>`) and the bus name. */
  readonly names: { readonly prefix: string; readonly name: string };
  /** A plain connection for looking at what the processes left. */
  readonly redis: RedisClient;
  /** The file's DataSource on its own schema (from `beforeAll` on). */
  readonly dataSource: DataSource;
  /**
   * Starts the publishers and workers of the file (see {@link ChaosCluster}),
   * with `env` on top of the database, schema, Redis and prefix every chaos
   * process reads; whatever is left of them is killed after the file.
   */
  cluster(env: Record<string, string>, options?: ChaosClusterOptions): ChaosCluster;
}

/**
 * Sets up a chaos test file: before it, a fresh PostgreSQL schema with
 * `entities` (and commitbus's tables) and the `fixtures` bundled; after it,
 * every process killed, the bundle, the schema and every Redis key under the
 * prefix gone, whatever happened to the tests.
 */
export function chaosTestBed(options: {
  /** Names the prefix, the schema and the bus. */
  readonly name: string;
  readonly entities: Parameters<typeof openSchema>[1];
  /** The fixtures each role runs; the crash test's by default. */
  readonly fixtures?: ChaosScripts;
}): ChaosTestBed {
  const schema = `commitbus_${options.name}_${randomUUID().slice(0, 8)}`;
  const names = { prefix: testPrefix(options.name), name: options.name };
  const redis = openRedis();
  let dataSource: DataSource | undefined;
  let bundle: ChaosBundle | undefined;
  let cluster: ChaosCluster | undefined;
  beforeAll(async () => {
    dataSource = await openSchema(schema, options.entities);
    bundle = await bundleChaosProcesses(options.fixtures);
  });
  afterAll(async () => {
    await cluster?.killAll();
    await bundle?.remove();
    if (dataSource !== undefined) await closeSchema(dataSource);
    await deleteKeys(redis, names.prefix);
    await redis.quit();
  });
  return {
    names,
    redis,
    get dataSource(): DataSource {
      if (dataSource === undefined) throw new Error('the chaos test bed opens its DataSource in beforeAll');
      return dataSource;
    },
    cluster(env, clusterOptions) {
      if (bundle === undefined) throw new Error('the chaos test bed bundles its processes in beforeAll');
      const base = { DATABASE_URL, CHAOS_SCHEMA: schema, ...redisEnv(), PREFIX: names.prefix };
      cluster = new ChaosCluster(bundle, { ...base, ...env }, clusterOptions);
      return cluster;
    },
  };
}
