import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { SQL_TRANSPORT_ENTITIES } from '../src/transports/sql/schema/sql-tables.js';
const ds = new DataSource({ type: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test', schema: 'explain_cb', entities: [...SQL_TRANSPORT_ENTITIES], synchronize: false });
const admin = new DataSource({ type: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' });
await admin.initialize();
await admin.query('DROP SCHEMA IF EXISTS explain_cb CASCADE'); await admin.query('CREATE SCHEMA explain_cb');
await ds.setOptions({ synchronize: true } as never); await ds.initialize();
const cols = await ds.query(`SELECT column_name FROM information_schema.columns WHERE table_schema='explain_cb' AND table_name='commitbus_events'`);
console.log(cols.map((c: any) => c.column_name).join(','));
const forms: Record<string, string> = {
  in: `EXPLAIN UPDATE explain_cb.commitbus_events SET locked_by = 'x', locked_at = 1, deliveries = deliveries + 1, lease = 'l' WHERE id IN (SELECT id FROM explain_cb.commitbus_events WHERE bus = 'b' AND deliver_at IS NULL AND locked_at IS NULL ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING id`,
  any: `EXPLAIN UPDATE explain_cb.commitbus_events SET locked_by = 'x', locked_at = 1, deliveries = deliveries + 1, lease = 'l' WHERE id = ANY(ARRAY(SELECT id FROM explain_cb.commitbus_events WHERE bus = 'b' AND deliver_at IS NULL AND locked_at IS NULL ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED)) RETURNING id`,
  ack: `EXPLAIN DELETE FROM explain_cb.commitbus_events WHERE bus = 'b' AND lease = 'l' AND id IN (1,2,3)`,
};
const show = async (label: string) => { for (const [k, q] of Object.entries(forms)) { const rows = await ds.query(q); console.log(`-- ${label} ${k}\n` + rows.map((r: any) => r['QUERY PLAN']).join('\n')); } };
await show('fresh');
await ds.query(`INSERT INTO explain_cb.commitbus_events (bus, payload, created_at) SELECT 'b', 'p', 1 FROM generate_series(1, 3000)`).catch((e) => console.log('insert failed', e.message));
await ds.query(`DELETE FROM explain_cb.commitbus_events`);
await show('after churn');
await ds.query('ANALYZE explain_cb.commitbus_events');
await show('analyzed');
await ds.destroy(); await admin.query('DROP SCHEMA explain_cb CASCADE'); await admin.destroy();
