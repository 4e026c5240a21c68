/**
 * The SQLite lone-dispatch section of `npm run bench` (issue 17): one
 * dispatch at a time, each awaited until handled, commitbus's store against
 * strato-db's commit pattern on raw better-sqlite3
 * (bench/event-store-sqlite-peer.ts), runs interleaved, same machine, same
 * minute. strato-db itself measured 319 events/s, p50 2.8 ms on this
 * machine when issue 17 was filed (commitbus then: 177/s, 5.4 ms).
 * `BENCH_ONLY=event-store-sqlite` runs it alone.
 */
import { loadavg } from 'node:os';
import { measureStratoPattern } from './event-store-sqlite-peer.js';
import { LONE_EVENTS, LONE_RUNS, type LoneFigures, measureSqliteLone } from './event-store-sqlite-side.js';
import { round, table } from './stats.js';

const load = () => round(loadavg()[0] ?? 0, 2);

/** Runs both sides (one run each, alternating, `LONE_RUNS` times) and returns the JSON fields. */
export async function compareSqliteLone(): Promise<Record<string, number>> {
  console.log(
    `\nevent store on SQLite, lone dispatch: ${LONE_EVENTS} DEPOSIT events per run, one at a time, each awaited until handled, ` +
      `${LONE_RUNS} runs per side, alternating; load average ${load()}\n` +
      "  commitbus: store.dispatch() with the defaults (WAL, synchronous FULL); peer: strato-db's two commits per event on raw better-sqlite3 (WAL, FULL)",
  );
  const ours: LoneFigures[] = [];
  const peer: LoneFigures[] = [];
  for (let run = 1; run <= LONE_RUNS; run++) {
    ours.push(await measureSqliteLone({ runs: 1 }));
    peer.push(await measureStratoPattern({ runs: 1 }));
    console.log(
      `  run ${run}: commitbus ${round(ours.at(-1)?.perS ?? 0)} events/s, strato-db pattern ${round(peer.at(-1)?.perS ?? 0)} events/s (load average ${load()})`,
    );
  }
  const summary = (side: LoneFigures[]) => ({
    perS: [...side.map((f) => f.perS)].sort((a, b) => a - b)[side.length >> 1] ?? 0,
    p50: [...side.map((f) => f.p50Ms)].sort((a, b) => a - b)[side.length >> 1] ?? 0,
    p99: [...side.map((f) => f.p99Ms)].sort((a, b) => a - b)[side.length >> 1] ?? 0,
    failures: side.flatMap((f) => f.failures),
  });
  const a = summary(ours);
  const b = summary(peer);
  const ratio = b.perS > 0 ? a.perS / b.perS : 0;
  console.log(
    table([
      ['', 'events/s', 'p50 ms', 'p99 ms'],
      ['commitbus, lone dispatch', String(round(a.perS)), a.p50.toFixed(2), a.p99.toFixed(2)],
      ['strato-db pattern, raw better-sqlite3', String(round(b.perS)), b.p50.toFixed(2), b.p99.toFixed(2)],
      ['strato-db (issue 17, for reference)', '319', '2.80', ''],
      ['ratio (commitbus / pattern)', `${round(ratio, 2)}x`, '', ''],
    ]),
  );
  for (const failure of [...a.failures, ...b.failures]) console.log(`  FAILED ${failure}`);
  return {
    event_store_sqlite_lone_per_s: round(a.perS),
    event_store_sqlite_lone_p50_ms: round(a.p50, 2),
    event_store_sqlite_lone_p99_ms: round(a.p99, 2),
    event_store_sqlite_peer_per_s: round(b.perS),
    event_store_sqlite_peer_p50_ms: round(b.p50, 2),
    event_store_sqlite_lone_ratio: round(ratio, 2),
    event_store_sqlite_failures: a.failures.length + b.failures.length,
  };
}
