import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMITBUS_ENTITIES } from '../../src/index.js';
import { sqliteTransport, sqlTransport } from '../../src/transports/sql/index.js';
import { EmbeddedSide } from '../embedded-side.js';
import { measureThroughput } from '../load.js';
import { median } from '../stats.js';

/** How the embedded default is measured. */
export interface EmbeddedOptions {
  /** Events per run and side. */
  readonly events: number;
  /** Events per `bus.publish`. */
  readonly batch: number;
  /** `bus.publish` calls in flight. */
  readonly inFlight: number;
  /** Runs per side, alternating. */
  readonly runs: number;
  /** Events per side before measuring. */
  readonly warmup: number;
  readonly onRun: (run: number, label: string, perS: number) => void;
}

/** Median events/s of each side. */
export interface EmbeddedFigures {
  readonly sqlitePerS: number;
  /** On SQLite in memory (`sqliteTransport()`). */
  readonly memoryPerS: number;
}

/**
 * The embedded default end to end: commitbus on the SQL transport over a
 * SQLite file in WAL mode against the same on SQLite in memory (the
 * embedded default, which replaced the in-process transport), each
 * with a sync no-op handler and the worker in this process, publishes
 * batched; the file is removed at the end.
 */
export async function measureEmbedded(options: EmbeddedOptions): Promise<EmbeddedFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'commitbus-bench-sqlite-'));
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: join(dir, 'bench.db'),
    enableWAL: true,
    entities: [...COMMITBUS_ENTITIES],
    synchronize: true,
  });
  const sides: EmbeddedSide[] = [];
  try {
    await dataSource.initialize();
    const sqlite = new EmbeddedSide('sqlite (file, WAL)', sqlTransport({ dataSource }), options.batch);
    const memory = new EmbeddedSide('sqlite (memory)', sqliteTransport(), options.batch);
    sides.push(sqlite, memory);
    await Promise.all(sides.map((s) => s.start()));
    const perS = new Map<EmbeddedSide, number[]>(sides.map((s) => [s, []]));
    for (const side of sides) await measureThroughput(side, options.warmup, options.inFlight);
    for (let run = 1; run <= options.runs; run++) {
      for (const side of run % 2 === 1 ? sides : [...sides].reverse()) {
        const value = await measureThroughput(side, options.events, options.inFlight);
        perS.get(side)?.push(value);
        options.onRun(run, side.label, value);
      }
    }
    return { sqlitePerS: median(perS.get(sqlite) ?? []), memoryPerS: median(perS.get(memory) ?? []) };
  } finally {
    await Promise.allSettled(sides.map((s) => s.close()));
    if (dataSource.isInitialized) await dataSource.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
