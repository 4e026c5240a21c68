import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Operation, SendEventOp } from '../../src/index.js';
import { Buses } from '../helpers/buses.js';
import { recordingBus, tapPublishes } from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { RecordCreated, RecordRow } from '../helpers/records.js';

// `new SendEventOp(event, { delay })` counts the delay from the commit: a
// slow COMMIT (here a deferred trigger that sleeps) must not eat into it.
const SCHEMA = 'commitbus_test_uow_delays';
const COMMIT_TAKES_MS = 400;
const DELAY_MS = 60_000;
const buses = new Buses();
let pg: DataSource;

beforeAll(async () => {
  pg = await openSchema(SCHEMA, [RecordRow]);
  await pg.query(`CREATE TABLE ${SCHEMA}.slow_commits (id int)`);
  await pg.query(
    `CREATE FUNCTION ${SCHEMA}.sleep_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(${COMMIT_TAKES_MS / 1000}); RETURN NULL; END $$`,
  );
  await pg.query(
    `CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON ${SCHEMA}.slow_commits DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${SCHEMA}.sleep_at_commit()`,
  );
});
afterEach(() => buses.closeAll());
afterAll(() => closeSchema(pg));

describe.each([
  ['outbox on', {}],
  ['outbox off', { outbox: false }],
] as const)('a delayed event of a unit of work whose COMMIT is slow (%s)', (_name, config) => {
  it('is due `delay` after the commit, not after the moment before it', async () => {
    const { transport, uows } = recordingBus(buses, pg, 0, config);
    const publishes = tapPublishes(transport);
    const times = { beforeCommit: 0, afterCommit: 0 };
    const clock: Operation = {
      onBeforeCommit: () => {
        times.beforeCommit = Date.now();
      },
      onCommit: () => {
        times.afterCommit = Date.now();
      },
    };
    const event = RecordCreated.create({ recid: 'later' });
    await uows.run(async (uow) => {
      uow.register(clock);
      uow.register(new SendEventOp(event, { delay: DELAY_MS }));
      await uow.manager.query(`INSERT INTO ${SCHEMA}.slow_commits VALUES (1)`);
    });
    expect(publishes.map((p) => p.ids)).toEqual([[event.id]]);
    const countedFrom = (publishes[0]?.deliverAt[0] ?? 0) - DELAY_MS;
    // The commit ended at least COMMIT_TAKES_MS after the hooks before it, and before onCommit.
    expect(countedFrom).toBeGreaterThanOrEqual(times.beforeCommit + COMMIT_TAKES_MS);
    expect(countedFrom).toBeLessThanOrEqual(times.afterCommit);
  });
});
