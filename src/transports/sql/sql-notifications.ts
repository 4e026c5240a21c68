import type { Logger } from '../../support/logger.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import type { SqlWakeups, WakeTopic } from './sql-wakeups.js';

/** STUB (to be written): in-process wake-ups, plus LISTEN/NOTIFY on PostgreSQL. */
export function openSqlWakeups(_db: SqlDb, _bus: string, _logger: Logger): SqlWakeups {
  const waiters = new Set<() => void>();
  const wakeAll = () => {
    for (const w of [...waiters]) w();
  };
  return {
    notifyIn: async (_tx: SqlRunner, _topic: WakeTopic) => {},
    local: () => wakeAll(),
    wait: (_topic, ms) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      }),
    interrupt: () => wakeAll(),
    close: async () => wakeAll(),
  };
}
