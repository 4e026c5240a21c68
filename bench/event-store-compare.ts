import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { measureEventStoreSide } from './event-store-side.js';
import {
  EVENT_STORE_ACCOUNTS,
  EVENT_STORE_EVENTS,
  EVENT_STORE_LOOPS,
  EVENT_STORE_RUNS,
  EVENT_STORE_WARMUP,
} from './event-store-workload.js';
import { round, table } from './stats.js';

const load = () => round(loadavg()[0] ?? 0, 2);

/**
 * The event store section of `npm run bench`: commitbus's store against
 * Emmett's PostgreSQL event store with inline projections, same workload,
 * same database. The peer runs in a child process of this run (Emmett's pool
 * library changes `pg`'s type parsers process-wide), after commitbus's runs.
 */
export async function compareEventStore(databaseUrl: string): Promise<Record<string, number>> {
  console.log(
    `\nevent store: ${EVENT_STORE_EVENTS} DEPOSIT events per run over ${EVENT_STORE_ACCOUNTS} accounts, ` +
      `two models (accounts, totals), dispatched from ${EVENT_STORE_LOOPS} loops, warm-up of ${EVENT_STORE_WARMUP}, ` +
      `${EVENT_STORE_RUNS} runs per side; load average ${load()}\n` +
      '  commitbus: dispatch({ wait: false }) then waitForQueue; Emmett 0.42.0: appendToStream with both models as inline raw-SQL projections',
  );
  const ours = await measureEventStoreSide({
    databaseUrl,
    onRun: (run, perS) =>
      console.log(`  run ${run} commitbus: ${round(perS)} events/s (load average ${load()})`),
  });
  const peer = await runPeer(databaseUrl);
  const ratio = peer > 0 ? ours.perS / peer : 0;
  console.log(
    table([
      ['', 'events/s (median)'],
      ['commitbus event store', String(round(ours.perS))],
      ['Emmett, inline projections', String(round(peer))],
      ['ratio', `${round(ratio, 2)}x`],
    ]),
  );
  for (const failure of ours.failures) console.log(`  FAILED commitbus ${failure}`);
  return {
    event_store_per_s: round(ours.perS),
    event_store_peer_per_s: round(peer),
    event_store_ratio: round(ratio, 2),
    event_store_failures: ours.failures.length,
  };
}

// Runs bench/event-store-peer.ts and reads its JSON line; its run lines are shown as they come.
function runPeer(databaseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/event-store-peer.ts'], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      for (const line of out.split('\n')) if (line.startsWith('  run')) console.log(line);
      const json = out
        .trim()
        .split('\n')
        .reverse()
        .find((line) => line.startsWith('{'));
      if (code !== 0 || json === undefined) {
        reject(new Error(`the Emmett peer failed (exit ${code}):\n${out}`));
        return;
      }
      resolve(Number((JSON.parse(json) as { emmett_per_s: number }).emmett_per_s));
    });
  });
}
