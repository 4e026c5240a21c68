/**
 * The dashboard over real HTTP on 127.0.0.1 for a bus on the SQL transport
 * (PostgreSQL and SQLite): the page and `GET /api/overview` read the bus's
 * tables (backlog, parked work, dead letters, rules; no BullMQ queue, no
 * bull-board), and its actions change them: a pause parks a running
 * worker's work and a resume delivers it, a re-drive runs a dead letter's
 * handler again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DashboardSnapshot,
  type RunningDashboard,
  startDashboard,
  type Unavailable,
} from '../../src/dashboard/index.js';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { sqlTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import {
  type RecordCreated,
  type RecordPublished,
  recordCreated,
  recordPublished,
  TEST_EVENTS,
} from '../helpers/events.js';
import { sqlTestDatabases } from '../helpers/sql.js';
import { waitFor } from '../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
  await buses.closeAll();
});

const ACTION = { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' };

/** The overview as these tests read it: every part available. */
type Overview = { [K in keyof DashboardSnapshot]: Exclude<DashboardSnapshot[K], Unavailable> };

async function overview(dashboard: RunningDashboard): Promise<Overview> {
  return (await (await fetch(`${dashboard.url}/api/overview`)).json()) as Overview;
}

async function post(
  dashboard: RunningDashboard,
  path: string,
  body: object,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${dashboard.url}/api${path}`, {
    method: 'POST',
    headers: ACTION,
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

let n = 0;

describe.each(['postgres', 'sqlite'] as const)(
  'the dashboard on a bus on the SQL transport (%s)',
  (which) => {
    it("shows the bus's tables, pauses and resumes a handler, and re-drives a dead letter", async () => {
      const runs: string[] = [];
      let failing = true;
      const handlers: EventHandlersConfig = {
        'RECORD.CREATE': [
          defineHandler<RecordCreated>('dash.mail', (e) => void runs.push(`mail:${e.recid}`)),
        ],
        'RECORD.PUBLISH': [
          {
            handler: defineHandler<RecordPublished>('dash.announce', (e) => {
              if (failing) throw new Error('announce is down');
              runs.push(`announce:${e.recid}`);
            }),
            attempts: 1,
          },
        ],
      };
      const config = fastConfig({
        name: `dashsql${++n}`,
        outbox: { enabled: false },
        scheduling: { rulesRefreshMs: 50 },
      });
      const transport = sqlTransport({ dataSource: databases[which], pollMs: 50 });
      const { bus } = await buses.start({ events: TEST_EVENTS, handlers, config, transport });
      const dashboard = await startDashboard({ bus });
      dashboards.push(dashboard);
      expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      // A pause through the dashboard parks what the running worker takes.
      expect(await post(dashboard, '/rules', { action: 'pause', handler: 'dash.mail' })).toMatchObject({
        changed: true,
      });
      await bus.publish([recordCreated('p1'), recordPublished('x1')]);
      await waitFor('parked work and a dead letter', async () => {
        const s = await bus.status();
        return s.parked === 1 && s.deadLetters.count === 1;
      });
      const seen = await overview(dashboard);
      expect(seen).toMatchObject({
        bus: config.name,
        transport: `sql-${which}`,
        queues: [],
        deadLetterCount: 1,
        halted: [],
      });
      expect(seen.status).toMatchObject({
        bus: { transport: `sql-${which}` },
        parked: 1,
        deadLetters: { count: 1, byHandler: { 'dash.announce': 1 } },
      });
      expect(seen.rules).toMatchObject([{ kind: 'pause', target: { handler: 'dash.mail' } }]);
      expect(seen.deadLetters).toMatchObject([{ handler: 'dash.announce', reason: 'exhausted' }]);
      const page = await (await fetch(`${dashboard.url}/`)).text();
      expect(page).toContain(`on sql-${which}`);
      expect(page).toContain(
        `The sql-${which} transport has no BullMQ queues: only commitbus's own views are shown.`,
      );
      expect(page).toContain('<td>dash.mail</td>');
      expect(page).not.toContain('unavailable:');
      expect((await fetch(`${dashboard.url}/queues/`)).status).toBe(404);

      expect(await post(dashboard, '/rules', { action: 'resume', handler: 'dash.mail' })).toMatchObject({
        changed: true,
      });
      await waitFor('the parked work to run', () => runs.includes('mail:p1'));
      failing = false;
      expect(
        await post(dashboard, '/dead-letters/redrive', { filter: { handler: 'dash.announce' } }),
      ).toMatchObject({
        redriven: 1,
      });
      await waitFor('the re-driven letter to run', () => runs.includes('announce:x1'));
      await bus.whenIdle();
      const after = await overview(dashboard);
      expect(after).toMatchObject({ deadLetterCount: 0, deadLetters: [], rules: [] });
      expect(after.status).toMatchObject({ parked: 0, backlog: { events: 0 } });
    });
  },
);
