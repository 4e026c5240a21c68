/**
 * A transaction whose COMMIT fails is ended, not left open: SQLite keeps a
 * transaction whose COMMIT a deferred foreign key refused open on the
 * connection, and every later BEGIN there would fail ("cannot start a
 * transaction within a transaction").
 */

import { DataSource } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb } from '../../../src/transports/sql/index.js';

let dataSource: DataSource | undefined;

afterEach(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
});

describe('SqlDb.transaction on SQLite', () => {
  it('ends a transaction whose COMMIT fails, so the next one runs and nothing of the failed one stays', async () => {
    dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    await dataSource.initialize();
    await dataSource.query('PRAGMA foreign_keys = ON');
    await dataSource.query('CREATE TABLE parent (id INTEGER PRIMARY KEY)');
    await dataSource.query(
      'CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)',
    );
    const db = new SqlDb(dataSource, silentLogger);

    // The insert passes; its deferred foreign key fails the COMMIT.
    await expect(
      db.transaction((tx) => tx.execute('INSERT INTO child (id, parent_id) VALUES (1, 42)')),
    ).rejects.toThrow(/FOREIGN KEY/);

    await db.transaction(async (tx) => {
      await tx.execute('INSERT INTO parent (id) VALUES (7)');
      await tx.execute('INSERT INTO child (id, parent_id) VALUES (2, 7)');
    });
    expect(await db.query('SELECT id FROM child ORDER BY id')).toEqual([{ id: 2 }]);
  });
});
