/**
 * The peer of the SQLite lone-dispatch benchmark: strato-db's ESDB commit
 * pattern (issue 17), written out on raw better-sqlite3, since strato-db
 * itself is not a dependency here. As strato-db does: the file in WAL with
 * `synchronous = FULL`; `dispatch` inserts the event into the queue table
 * (one commit), then the writer, on a connection of its own, handles it in
 * one transaction (read the next event and the version, read and write both
 * model rows, write the result into the history row, bump the version: a
 * second commit); `dispatch` resolves once it is handled. Raw synchronous
 * statements with no ORM, JSON layer or async driver: a lower bound on
 * strato-db's own cost for the same two commits.
 */
import { createRequire } from 'node:module';
import {
  checkLone,
  LONE_CHECK_SQL,
  type LoneFigures,
  type LoneOptions,
  measureLone,
  timeLone,
} from './event-store-sqlite-side.js';
import {
  CREATE_ACCOUNTS_TABLE,
  CREATE_TOTALS_TABLE,
  DEPOSIT,
  type DepositData,
  depositData,
} from './event-store-workload.js';

// better-sqlite3 ships no types: the few calls used here.
interface Statement {
  run(...params: unknown[]): { lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
}
interface Connection {
  pragma(sql: string): unknown;
  exec(sql: string): unknown;
  prepare(sql: string): Statement;
  transaction<T>(fn: () => T): () => T;
  close(): unknown;
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (
  file: string,
  options?: { readonly?: boolean },
) => Connection;

function open(file: string): Connection {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return db;
}

/** One ESDB-like store on `file`: `dispatch` resolves once the event is handled. */
function stratoPattern(file: string): { dispatch(data: DepositData): Promise<number>; close(): void } {
  const queue = open(file);
  queue.exec(`CREATE TABLE history (v INTEGER PRIMARY KEY, type TEXT, ts INTEGER, data TEXT, result TEXT);
    CREATE TABLE metadata (id TEXT PRIMARY KEY, version INTEGER);
    INSERT INTO metadata VALUES ('version', 0);
    ${CREATE_ACCOUNTS_TABLE}; ${CREATE_TOTALS_TABLE};`);
  const writer = open(file);
  const add = queue.prepare('INSERT INTO history (type, ts, data) VALUES (?, ?, ?)');
  const version = writer.prepare(`SELECT version FROM metadata WHERE id = 'version'`);
  const next = writer.prepare('SELECT v, type, data FROM history WHERE v > ? ORDER BY v LIMIT 1');
  const account = writer.prepare('SELECT balance, deposits FROM accounts WHERE id = ?');
  const total = writer.prepare('SELECT count, amount FROM totals WHERE type = ?');
  const setAccount = writer.prepare(
    'INSERT OR REPLACE INTO accounts (id, balance, deposits) VALUES (?, ?, ?)',
  );
  const setTotal = writer.prepare('INSERT OR REPLACE INTO totals (type, count, amount) VALUES (?, ?, ?)');
  const setResult = writer.prepare('UPDATE history SET result = ? WHERE v = ?');
  const bump = writer.prepare(`UPDATE metadata SET version = ? WHERE id = 'version'`);
  const handle = writer.transaction(() => {
    const at = (version.get() as { version: number }).version;
    const event = next.get(at) as { v: number; type: string; data: string } | undefined;
    if (event === undefined) return at;
    const data = JSON.parse(event.data) as DepositData;
    const a = (account.get(data.account) as { balance: number; deposits: number } | undefined) ?? {
      balance: 0,
      deposits: 0,
    };
    const t = (total.get(event.type) as { count: number; amount: number } | undefined) ?? {
      count: 0,
      amount: 0,
    };
    const row = { id: data.account, balance: a.balance + data.amount, deposits: a.deposits + 1 };
    setAccount.run(row.id, row.balance, row.deposits);
    setTotal.run(event.type, t.count + 1, t.amount + data.amount);
    setResult.run(JSON.stringify({ accounts: { set: [row] } }), event.v);
    bump.run(event.v);
    return event.v;
  });
  return {
    // Async like strato-db's dispatch: the writer runs on the next turn, as its queue wakes it.
    dispatch: async (data) => {
      const v = Number(add.run(DEPOSIT, Date.now(), JSON.stringify(data)).lastInsertRowid);
      await new Promise((resolve) => setImmediate(resolve));
      while (handle() < v);
      return v;
    },
    close: () => {
      writer.close();
      queue.close();
    },
  };
}

/** Measures the strato-db pattern's lone dispatch on a fresh SQLite file per run. */
export function measureStratoPattern(options: LoneOptions = {}): Promise<LoneFigures> {
  return measureLone('bench-es-strato-', options, async (path, count) => {
    const store = stratoPattern(path);
    try {
      const run = await timeLone(count, (i) => store.dispatch(depositData(i)));
      const check = new Database(path, { readonly: true });
      const wrong = checkLone(check.prepare(LONE_CHECK_SQL).get() as Parameters<typeof checkLone>[0], count);
      check.close();
      return { run, wrong };
    } finally {
      store.close();
    }
  });
}
