import type { Logger } from '../../support/logger.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import { PgWakeupListener, WAKEUP_CHANNEL } from './sql-pg-listener.js';
import type { SqlWakeups, WakeTopic } from './sql-wakeups.js';

const TOPICS: ReadonlySet<string> = new Set<WakeTopic>(['events', 'jobs', 'lanes']);

/**
 * The {@link SqlWakeups} of one bus: waiters of this process per topic; on
 * PostgreSQL also `pg_notify` in the sending transaction and a `LISTEN`
 * (taken when the first wait happens) that wakes this process's waiters
 * when another process's transaction commits. On SQLite only this process
 * hears its wake-ups.
 */
export function openSqlWakeups(db: SqlDb, bus: string, logger: Logger): SqlWakeups {
  const waiters = new Map<WakeTopic, Set<() => void>>();
  const wakeEvery = (topic: WakeTopic) => {
    for (const w of [...(waiters.get(topic) ?? [])]) w();
  };
  // One drain per wake-up: the others would claim nothing. A drain whose claim came back full wakes the next.
  const wake = (topic: WakeTopic) => {
    if (topic !== 'events') return wakeEvery(topic);
    const [first] = waiters.get(topic) ?? [];
    first?.();
  };
  const wakeAll = () => {
    for (const topic of waiters.keys()) wakeEvery(topic);
  };
  const prefix = `${bus}|`;
  const listener =
    db.dialect === 'postgres'
      ? new PgWakeupListener(
          db.dataSource,
          (payload) => {
            if (!payload.startsWith(prefix)) return;
            const topic = payload.slice(prefix.length);
            if (TOPICS.has(topic)) wake(topic as WakeTopic);
          },
          logger,
        )
      : undefined;
  let closed = false;
  let interrupted = false;
  return {
    notifyIn: async (tx: SqlRunner, topic: WakeTopic) => {
      if (tx.dialect !== 'postgres') return;
      await tx.query('SELECT pg_notify(?, ?)', [WAKEUP_CHANNEL, `${prefix}${topic}`]);
    },
    notification: (topic) => [WAKEUP_CHANNEL, `${prefix}${topic}`],
    local: (topic) => wake(topic),
    wait: (topic, ms) => {
      if (closed || interrupted) return Promise.resolve();
      listener?.start();
      return new Promise<void>((resolve) => {
        const set = waiters.get(topic) ?? new Set<() => void>();
        waiters.set(topic, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        set.add(done);
      });
    },
    interrupt: () => {
      interrupted = true;
      wakeAll();
    },
    resume: () => {
      interrupted = false;
    },
    close: async () => {
      closed = true;
      wakeAll();
      await listener?.close();
    },
  };
}
