/**
 * The migration adding the dead letters' counts (`1764300000009`) counts the
 * letters a database already holds, by bus, handler, kind and reason, so a
 * status read after an upgrade shows them; a row without kind or reason (a
 * hand edit) is left uncounted, as the store's contract says.
 */
import { describe, expect, it } from 'vitest';
import { COMMITBUS_MIGRATIONS } from '../../../src/index.js';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb } from '../../../src/transports/sql/index.js';
import { AddCommitbusSqlDeadLetterCounts1764300000009 } from '../../../src/transports/sql/schema/add-dead-letter-counts.migration.js';
import { SqlDeadLetterStore } from '../../../src/transports/sql/sql.dead-letter-store.js';
import { migratedDataSource } from '../../helpers/sql-migrated.js';

describe('the dead-letter counts migration', () => {
  it.each(['postgres', 'sqlite'] as const)('counts the letters stored before it on %s', async (dialect) => {
    const before = COMMITBUS_MIGRATIONS.filter((m) => m !== AddCommitbusSqlDeadLetterCounts1764300000009);
    const { dataSource: ds } = await migratedDataSource(dialect, before);
    const db = new SqlDb(ds, silentLogger);
    const table = db.table('commitbus_dead_letters');
    const rows: [string, string, string | null, string | null, string | null][] = [
      ['a', 'l1', 'mail', 'handler', 'exhausted'],
      ['a', 'l2', 'mail', 'handler', 'exhausted'],
      ['a', 'l3', null, 'undecodable', 'malformed'],
      ['a', 'l4', 'mail', null, null],
      ['b', 'l1', 'mail', 'handler', 'timeout'],
    ];
    for (const [bus, id, handler, kind, reason] of rows)
      await db.execute(
        `INSERT INTO ${table} (bus, id, dead_at, handler, kind, reason, data) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [bus, id, 1_000, handler, kind, reason, '{}'],
      );

    const runner = ds.createQueryRunner();
    await new AddCommitbusSqlDeadLetterCounts1764300000009().up(runner);
    await runner.release();

    const groups = async (bus: string) => {
      const counts = await new SqlDeadLetterStore(db, bus).counts();
      return {
        total: counts.total,
        groups: counts.groups.map((g) => `${g.handler} ${g.kind} ${g.reason} ${g.count}`).sort(),
      };
    };
    expect(await groups('a')).toEqual({
      total: 3,
      groups: ['mail handler exhausted 2', 'undefined undecodable malformed 1'],
    });
    expect(await groups('b')).toEqual({ total: 1, groups: ['mail handler timeout 1'] });
    // A counted letter removed after the upgrade is counted out.
    expect(await new SqlDeadLetterStore(db, 'a').remove(['l1', 'l4'])).toBe(2);
    expect((await groups('a')).groups).toEqual([
      'mail handler exhausted 1',
      'undefined undecodable malformed 1',
    ]);
  });
});
