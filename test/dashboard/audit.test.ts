/**
 * The dashboard's actions in the bus's audit trail, over real HTTP: a rule
 * change and a re-drive sent from the dashboard are recorded with source
 * `dashboard` and the user of its HTTP Basic credentials, or
 * `anonymous@<remote address>` on a dashboard without `basicAuth` (a Basic
 * header it does not check names no one).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/index.js';
import { defineHandler, type EventBus, type EventHandlersConfig } from '../../src/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { waitFor } from '../helpers/wait-for.js';

const buses = new Buses();
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
  await buses.closeAll();
});

const ACTION = { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' };
const failing: EventHandlersConfig = {
  'RECORD.CREATE': [
    {
      handler: defineHandler('fails', async () => {
        throw new Error('down');
      }),
      attempts: 1,
    },
  ],
};

async function busWithLetter(): Promise<EventBus> {
  const { bus } = await buses.start({
    events: TEST_EVENTS,
    handlers: failing,
    config: fastConfig({ name: 'dashboard-audit' }),
    transport: sqliteTransport({ pollMs: 20 }),
  });
  await bus.publish(recordCreated('a'));
  await waitFor('a dead letter', async () => (await bus.deadLetters.list()).length === 1);
  return bus;
}

function post(dashboard: RunningDashboard, path: string, body: object, headers: Record<string, string> = {}) {
  return fetch(`${dashboard.url}/api${path}`, {
    method: 'POST',
    headers: { ...ACTION, ...headers },
    body: JSON.stringify(body),
  });
}

describe('the dashboard in the audit trail', () => {
  it('records its actions with the Basic user as the actor', async () => {
    const bus = await busWithLetter();
    const dashboard = await startDashboard({ bus, basicAuth: { username: 'ops-ann', password: 's3cret' } });
    dashboards.push(dashboard);
    const authorization = `Basic ${Buffer.from('ops-ann:s3cret').toString('base64')}`;
    expect((await post(dashboard, '/dead-letters/redrive', { all: true }, { authorization })).status).toBe(
      200,
    );
    expect(
      (await post(dashboard, '/rules', { action: 'pause', handler: 'fails' }, { authorization })).status,
    ).toBe(200);
    const trail = await bus.audit.list();
    expect(
      trail.map(({ action, target, count, source, actor }) => ({ action, target, count, source, actor })),
    ).toEqual([
      { action: 'rules.pause', target: 'handler:fails', count: 1, source: 'dashboard', actor: 'ops-ann' },
      { action: 'dead-letters.redrive', target: 'all', count: 1, source: 'dashboard', actor: 'ops-ann' },
    ]);
    expect(JSON.stringify(trail)).not.toContain('s3cret');
  });

  it('records an action on a dashboard without auth as anonymous@<remote address>', async () => {
    const bus = await busWithLetter();
    const dashboard = await startDashboard({ bus });
    dashboards.push(dashboard);
    expect((await post(dashboard, '/dead-letters/purge', { all: true })).status).toBe(200);
    const [action] = await bus.audit.list();
    expect(action).toMatchObject({
      action: 'dead-letters.purge',
      count: 1,
      source: 'dashboard',
      actor: expect.stringMatching(/^anonymous@(127\.0\.0\.1|::ffff:127\.0\.0\.1|::1)$/),
    });
  });

  it('does not take the actor from Basic credentials it does not check (no basicAuth)', async () => {
    const bus = await busWithLetter();
    const dashboard = await startDashboard({ bus, auth: () => true });
    dashboards.push(dashboard);
    const forged = `Basic ${Buffer.from('ops-ann:anything').toString('base64')}`;
    expect(
      (await post(dashboard, '/dead-letters/purge', { all: true }, { authorization: forged })).status,
    ).toBe(200);
    const [action] = await bus.audit.list();
    expect(action).toMatchObject({ action: 'dead-letters.purge', source: 'dashboard' });
    expect(action?.actor).toMatch(/^anonymous@/);
  });
});
