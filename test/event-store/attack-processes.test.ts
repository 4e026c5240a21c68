import { fileURLToPath } from 'node:url';
import type { DataSource } from 'typeorm';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createEventStore, defineModel } from '../../src/index.js';
import { type ChildWorker, childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { ATK_ENTITIES, type AtkCounter, AtkCounterEntity } from '../helpers/es-attack-bed.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { waitFor, waitForProgress } from '../helpers/wait-for.js';

// Attacks on the event store with real processes: SIGKILL of the writer in
// the middle of a big slow batch, SIGSTOP of the writer, 150 loops in three
// processes dispatching at once, and a process killed right after its unit
// of work committed a DispatchOp. Each checks exactly-once (one `v<n>` row per
// event with n = 1, `total` = events), no version gap and every status.
const SCHEMA = 'commitbus_test_es_atk_procs';
const FIXTURE = fileURLToPath(new URL('../fixtures/es-attack-process.ts', import.meta.url));

const children = childWorkers();
let dataSource: DataSource;

beforeEach(async () => {
  dataSource = await openSchema(SCHEMA, ATK_ENTITIES);
});
afterAll(async () => {
  if (dataSource?.isInitialized) await closeSchema(dataSource);
});

function spawn(env: Record<string, string>): ChildWorker {
  const child = spawnWorker({ ES_SCHEMA: SCHEMA, ...env }, FIXTURE);
  children.push(child);
  return child;
}

/** Resolves once the child printed a line matching `pattern`; returns that line. */
function line(child: ChildWorker, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const stdout = child.process.stdout;
    if (stdout === null) return reject(new Error('no stdout'));
    const onData = (chunk: Buffer | string) => {
      out += String(chunk);
      const found = out.split('\n').find((l) => pattern.test(l));
      if (found !== undefined) {
        stdout.off('data', onData);
        resolve(found);
      }
    };
    stdout.on('data', onData);
    void child.exited.then(({ code, signal }) =>
      reject(new Error(`child exited (${code}, ${signal}) before ${pattern}: ${child.stderr()}`)),
    );
  });
}

async function versions(): Promise<{ queued: number; handled: number }> {
  const rows: { id: string; queued: string; handled: string }[] = await dataSource.query(
    `SELECT id, queued, handled FROM ${SCHEMA}.commitbus_es_state`,
  );
  const queue = rows.find((r) => r.id === 'queue');
  const writer = rows.find((r) => r.id === 'writer');
  return { queued: Number(queue?.queued ?? 0), handled: Number(writer?.handled ?? 0) };
}

/** Every event exactly once, versions 1..n gap-free, all handled. */
async function expectExactlyOnce(n: number): Promise<void> {
  const [events] = await dataSource.query(
    `SELECT count(*)::int AS c, min(v)::int AS lo, max(v)::int AS hi,
            count(*) FILTER (WHERE status = 'handled')::int AS handled,
            count(*) FILTER (WHERE attempts > 0 OR error IS NOT NULL)::int AS failed
       FROM ${SCHEMA}.commitbus_es_events`,
  );
  expect(events).toEqual({ c: n, lo: 1, hi: n, handled: n, failed: 0 });
  expect(await versions()).toEqual({ queued: n, handled: n });
  const [rows] = await dataSource.query(
    `SELECT count(*)::int AS c, count(*) FILTER (WHERE n <> 1)::int AS twice,
            (SELECT n FROM ${SCHEMA}.atk_counters WHERE id = 'total') AS total
       FROM ${SCHEMA}.atk_counters WHERE id LIKE 'v%'`,
  );
  expect(rows).toEqual({ c: n, twice: 0, total: n });
}

async function queueDirectly(n: number): Promise<void> {
  const store = createEventStore({
    dataSource,
    models: [defineModel<AtkCounter>({ entity: AtkCounterEntity, types: ['TALLY'] })],
    logger: recordingLogger(),
  });
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, (_, j) =>
        store.dispatch('TALLY', { i: i + j }, { wait: false }),
      ),
    );
  }
  await store.close();
}

describe('event store under process attacks (PostgreSQL)', () => {
  it('SIGKILL of the writer in the middle of a 500-event batch of slow reducers: the next writer applies each event once', async () => {
    const N = 1_500;
    await queueDirectly(N);
    const standby = spawn({ ES_ROLE: 'writer', ES_BATCH: '500', ES_SLOW_MS: '2' });
    // The first writer: it becomes the writer only once the stand-by is up, by starting first.
    const first = spawn({ ES_ROLE: 'writer', ES_BATCH: '500', ES_SLOW_MS: '2', ES_TAKEOVER_MS: '50' });
    await Promise.all([standby.ready, first.ready]);
    // Whichever is the writer, kill it mid-batch (at its 300th event of the first batch).
    const [killed] = await Promise.race([
      line(first, /^reducing 300$/).then(() => [first]),
      line(standby, /^reducing 300$/).then(() => [standby]),
    ]);
    killed?.process.kill('SIGKILL');
    await waitForProgress(
      'the surviving process to handle every event',
      async () => N - (await versions()).handled,
      { stallMs: 20_000, timeoutMs: 90_000 },
    );
    await expectExactlyOnce(N);
  }, 120_000);

  it('150 loops in three processes dispatch while a fourth is the writer: versions gap-free, each event once', async () => {
    const writer = spawn({ ES_ROLE: 'writer', ES_BATCH: '200' });
    await writer.ready;
    const dispatchers = [1, 2, 3].map(() => spawn({ ES_ROLE: 'dispatch', ES_LOOPS: '50', ES_EACH: '20' }));
    const done = await Promise.all(dispatchers.map((d) => line(d, /^done \d+$/)));
    expect(done).toEqual(['done 1000', 'done 1000', 'done 1000']);
    await waitForProgress(
      'the writer to handle 3,000 events',
      async () => 3_000 - (await versions()).handled,
      {
        stallMs: 20_000,
        timeoutMs: 90_000,
      },
    );
    await expectExactlyOnce(3_000);
  }, 120_000);

  it('a process SIGKILLed right after its unit of work committed a DispatchOp: the event is queued and another process handles it', async () => {
    const writer = spawn({ ES_ROLE: 'writer' });
    await writer.ready;
    for (let i = 0; i < 5; i++) {
      const dying = spawn({ ES_ROLE: 'uow-die' });
      const committed = await line(dying, /^committed \d+$/);
      expect(committed).toBe(`committed ${i + 1}`);
      expect((await dying.exited).signal).toBe('SIGKILL');
    }
    await waitFor('five events handled', async () => (await versions()).handled === 5);
    await expectExactlyOnce(5);
  }, 60_000);

  it('SIGSTOP of the writer: no other process takes over while it is frozen (within the default writerIdleTimeoutMs, 60 s); after SIGCONT it carries on and each event is applied once', async () => {
    const frozen = spawn({ ES_ROLE: 'writer', ES_BATCH: '50', ES_SLOW_MS: '5' });
    await frozen.ready;
    const standby = spawn({ ES_ROLE: 'writer' });
    await standby.ready;
    await queueDirectly(400);
    await line(frozen, /^reducing 100$/);
    frozen.process.kill('SIGSTOP');
    const at = (await versions()).handled;
    // Ten times the stand-by's takeoverMs and then some: nothing moves.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await versions()).handled).toBe(at);
    frozen.process.kill('SIGCONT');
    await waitForProgress('the writer to resume', async () => 400 - (await versions()).handled, {
      stallMs: 20_000,
      timeoutMs: 60_000,
    });
    await expectExactlyOnce(400);
  }, 90_000);

  it('SIGSTOP of the writer with writerIdleTimeoutMs 2000: the server ends its session, a stand-by takes over; after SIGCONT each event is still applied once', async () => {
    const frozen = spawn({ ES_ROLE: 'writer', ES_BATCH: '50', ES_SLOW_MS: '5', ES_WRITER_IDLE_MS: '2000' });
    await frozen.ready;
    const standby = spawn({ ES_ROLE: 'writer', ES_WRITER_IDLE_MS: '2000' });
    await standby.ready;
    await queueDirectly(400);
    await line(frozen, /^reducing 100$/);
    frozen.process.kill('SIGSTOP');
    await waitForProgress('the stand-by to take over', async () => 400 - (await versions()).handled, {
      stallMs: 20_000,
      timeoutMs: 60_000,
    });
    frozen.process.kill('SIGCONT');
    await expectExactlyOnce(400);
    // The woken process finds its connection gone and stands by: nothing moves twice.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expectExactlyOnce(400);
  }, 90_000);
});
