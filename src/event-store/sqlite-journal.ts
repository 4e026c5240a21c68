import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../support/logger.js';
import { sqliteFile } from './sqlite-host-lock.js';

/**
 * Puts a SQLite database file in WAL mode and its connection at
 * `synchronous = FULL` (strato-db's settings): a commit is one append to
 * the log and one fsync, where the rollback journal takes several, and a
 * committed event survives a power cut. WAL is a property of the file (it
 * stays, for every process); `synchronous` one of the connection, so every
 * process's store sets it on its DataSource's connection (the one TypeORM
 * shares with your other queries). A database without a file (`:memory:`)
 * is left as it is. When the file cannot switch (another connection holds
 * it in the middle of a transaction, a read-only file) it stays in its
 * journal mode, with a warning: slower, as safe. Call it with no
 * transaction open on the connection (inside the transaction gate).
 */
export async function useWal(dataSource: DataSource, logger: Logger): Promise<void> {
  if ((await sqliteFile(dataSource)) === undefined) return;
  try {
    const [row] = (await dataSource.query('PRAGMA journal_mode = WAL')) as { journal_mode: string }[];
    await dataSource.query('PRAGMA synchronous = FULL');
    if (row?.journal_mode !== 'wal') {
      logger.warn(
        { journalMode: row?.journal_mode },
        `event store: the SQLite database stays in journal mode ${row?.journal_mode}, not WAL: each event costs more commits' fsyncs (see README, "Speed")`,
      );
    }
  } catch (error) {
    logger.warn(
      { error: describeError(error) },
      'event store: the SQLite database could not be switched to WAL; it keeps its journal mode (slower, as safe)',
    );
  }
}
