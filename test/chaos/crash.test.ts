/**
 * Crash test: one publisher and three worker processes on the real Redis and
 * PostgreSQL, SIGKILLed at random and restarted until the publisher has
 * committed every unit of work; the publisher also kills itself between
 * commit and publish now and then. Then every committed event must have been
 * handled by every handler (at least once; idempotent ones exactly once), no
 * rolled-back event by any, and nothing may be left in the outbox, the stream
 * or the queues.
 *
 * `npm test` runs CHAOS_EVENTS=250; `npm run test:chaos` runs 10,000.
 * Env knobs: CHAOS_EVENTS, CHAOS_KILL_MIN_MS / CHAOS_KILL_MAX_MS (time between
 * kills), CHAOS_MIN_UPTIME_MS (none killed sooner after it is ready), CHAOS_KILL_AFTER_COMMIT_EVERY,
 * CHAOS_PUBLISH_TIMEOUT_MS / CHAOS_SETTLE_TIMEOUT_MS (bounds of the two phases).
 */
import { describe, expect, it } from 'vitest';
import { CHAOS_ENTITIES, CHAOS_HANDLERS, killsAfterCommit, rollsBack } from '../fixtures/chaos-app.js';
import { collectReport, formatReport, isEmpty, leftovers } from '../helpers/chaos-report.js';
import { chaosTestBed } from '../helpers/chaos-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const EVENTS = Number(process.env.CHAOS_EVENTS ?? 250);
const LARGE = EVENTS > 1_000;
const KILL_MIN_MS = Number(process.env.CHAOS_KILL_MIN_MS ?? 100);
const KILL_MAX_MS = Number(process.env.CHAOS_KILL_MAX_MS ?? 600);
// A process is killed only once it has been ready this long: on a loaded
// machine processes take seconds to start, and killed as soon as they are
// ready the publisher would never get through its units of work.
const MIN_UPTIME_MS = Number(process.env.CHAOS_MIN_UPTIME_MS ?? 500);
const KILL_AFTER_COMMIT_EVERY = Number(process.env.CHAOS_KILL_AFTER_COMMIT_EVERY ?? (LARGE ? 250 : 100));
const WORKERS = 3;
// Generous bounds: reaching them means something is stuck, not slow.
const PUBLISH_TIMEOUT_MS = Number(process.env.CHAOS_PUBLISH_TIMEOUT_MS ?? (LARGE ? 900_000 : 120_000));
const SETTLE_TIMEOUT_MS = Number(process.env.CHAOS_SETTLE_TIMEOUT_MS ?? (LARGE ? 300_000 : 20_000));

const bed = chaosTestBed({ name: 'chaos', entities: CHAOS_ENTITIES });
const { names, redis } = bed;

describe('crash test: publisher and workers SIGKILLed at random moments', () => {
  it(
    `${EVENTS} units of work: each committed event handled by every handler, idempotent ones exactly once, rolled-back ones never, nothing left`,
    async () => {
      const startedAt = Date.now();
      const db = bed.dataSource;
      const processes = bed.cluster(
        { CHAOS_EVENTS: String(EVENTS), CHAOS_KILL_AFTER_COMMIT_EVERY: String(KILL_AFTER_COMMIT_EVERY) },
        { minUptimeMs: MIN_UPTIME_MS },
      );
      await processes.start(WORKERS);
      await processes.killRandomlyUntilPublished(KILL_MIN_MS, KILL_MAX_MS, PUBLISH_TIMEOUT_MS);

      // No more kills; the restarted workers and a fresh one finish the rest.
      processes.addWorker();
      await waitFor(
        'every event handled and nothing left in the outbox, the stream or the queues',
        async () => processes.hasProblems || isEmpty(await leftovers(db, redis, names)),
        {
          timeoutMs: SETTLE_TIMEOUT_MS,
          intervalMs: 100,
          describe: async () => ({ ...(await leftovers(db, redis, names)), ...processes.counts }),
        },
      );
      processes.check();

      const report = await collectReport(db, redis, names, EVENTS);
      const counts = processes.counts;
      console.log(formatReport(report, counts, (Date.now() - startedAt) / 1_000));

      const numbers = Array.from({ length: EVENTS }, (_, i) => i + 1);
      const rolledBack = numbers.filter(rollsBack).length;
      const committed = EVENTS - rolledBack;
      const outcome = {
        committed: report.committed,
        rolledBack: report.rolledBack,
        handlers: Object.fromEntries(
          report.handlers.map((h) => [
            h.handler,
            {
              handled: h.handled,
              missing: h.missing,
              uncommitted: h.notCommitted,
              ...(h.records !== undefined ? { duplicates: h.duplicates, records: h.records } : {}),
            },
          ]),
        ),
        left: report.left,
        failedJobs: report.failedReasons.length > 0 ? report.failedReasons : report.failedJobs,
      };
      expect(outcome).toEqual({
        committed,
        rolledBack,
        handlers: Object.fromEntries(
          CHAOS_HANDLERS.map((h) => [
            h.name,
            {
              handled: committed,
              missing: [],
              uncommitted: 0,
              ...(h.idempotent ? { duplicates: 0, records: committed } : {}),
            },
          ]),
        ),
        left: { outboxRows: 0, streamLength: 0, pendingEntries: 0, delayedEvents: 0, unfinishedJobs: 0 },
        failedJobs: 0,
      });

      // The crashes the test is about did happen.
      const planned = numbers.filter((n) => killsAfterCommit(n, KILL_AFTER_COMMIT_EVERY)).length;
      expect(counts.workersKilled).toBeGreaterThan(0);
      expect(counts.publisherDiedAfterCommit).toBeGreaterThan(0);
      expect(counts.publisherDiedAfterCommit).toBeLessThanOrEqual(planned);
      expect(counts.relayed).toBeGreaterThanOrEqual(1);

      // After all that, workers still shut down cleanly on SIGTERM.
      const exits = await processes.stopWorkers();
      for (const { label, exit, stderr } of exits) {
        expect(exit, `${label}: ${stderr}`).toEqual({ code: 0, signal: null });
      }
    },
    PUBLISH_TIMEOUT_MS + SETTLE_TIMEOUT_MS + 30_000,
  );
});
