/**
 * The HTTP event router keeps its records on Redis, as Routemaster does: a
 * bus on the SQL transport (`bus.router`, what `topicRoute` reads) and a
 * router started on it are refused with `RouterStoresUnsupportedError`,
 * whose message says to run the router on Redis, before anything is opened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startRouter } from '../../../src/bus/router.js';
import { RouterStoresUnsupportedError } from '../../../src/index.js';
import { sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses } from '../../helpers/buses.js';
import { TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { thrownBy } from '../../helpers/thrown-by.js';

const databases = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

describe.each(['postgres', 'sqlite'] as const)('the router on the SQL transport (%s)', (which) => {
  it("is refused on the bus's stores with a coded error saying the router needs Redis", () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      transport: sqlTransport({ dataSource: databases[which] }),
    });
    const error = thrownBy(() => bus.router);
    expect(error).toBeInstanceOf(RouterStoresUnsupportedError);
    expect(error).toMatchObject({
      code: 'COMMITBUS_ROUTER_STORES_UNSUPPORTED',
      transport: `sql-${which}`,
    });
    expect((error as Error).message).toMatch(
      new RegExp(`on Redis \\(as Routemaster does\\), and the transport "sql-${which}" holds none of them`),
    );
    expect((error as Error).message).toContain('run the router on redisTransport()');
  });

  it('is refused by startRouter given the SQL adapter, before it serves anything', async () => {
    const refused = await startRouter(
      {},
      { roles: ['api'], port: 0, api: { rootKey: 'root' } },
      { transport: sqlTransport({ dataSource: databases[which] }) },
    ).then(
      (router) => router.close().then(() => 'started'),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RouterStoresUnsupportedError);
    expect(refused).toMatchObject({ transport: 'sql' });
    expect((refused as Error).message).toMatch(/on Redis \(as Routemaster does\)/);
  });
});
