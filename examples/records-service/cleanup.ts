// What the demo creates, removed: on PostgreSQL its schema (tables and all),
// on Redis its bus's keys, on the embedded default its SQLite file and the
// files SQLite and the event store's writer keep beside it.
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { transportFromEnv } from '../../src/transports/select/index.js';
import { demoConfig, demoSchema } from './app.js';

/** What {@link removeDemoData} removed. */
export interface Removed {
  /** The PostgreSQL schema dropped, if `DATABASE_URL` is set. */
  readonly schema: string | undefined;
  /** How many Redis keys were deleted (the prefix's, on a single Redis). */
  readonly keys: number;
  /** The prefix those keys were under. */
  readonly prefix: string;
}

/** Drops the demo's schema and deletes its Redis keys: every key under `{prefix:` or `prefix:`. */
export async function removeDemoData(env: NodeJS.ProcessEnv = process.env): Promise<Removed> {
  const config = demoConfig(env);
  let schema: string | undefined;
  if (env.DATABASE_URL) {
    schema = demoSchema(env);
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  }
  let keys = 0;
  if (transportFromEnv({ env }).name === 'redis' && config.redis.cluster === undefined) {
    const redis = new Redis(config.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      for (const pattern of [`{${config.redis.prefix}:*`, `${config.redis.prefix}:*`]) {
        for await (const batch of redis.scanStream({ match: pattern, count: 1_000 })) {
          const found = batch as string[];
          if (found.length > 0) keys += await redis.unlink(...found);
        }
      }
    } finally {
      redis.disconnect();
    }
  }
  return { schema, keys, prefix: config.redis.prefix };
}

/**
 * The files beside a SQLite database: its WAL and shared memory, and the
 * event store writer's lock file (with its journal).
 */
const COMPANIONS = ['-wal', '-shm', '-commitbus-writer', '-commitbus-writer-journal'];

/**
 * Removes the SQLite file and its companions, the file itself last: a run
 * stopped half-way through leaves the file, which says whether its run had
 * finished. Call it only once the DataSource is closed.
 */
export function removeDemoFile(file: string): void {
  for (const suffix of [...COMPANIONS, '']) rmSync(`${file}${suffix}`, { force: true });
}
