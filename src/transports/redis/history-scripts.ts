import { luaScripts } from './lua-scripts.js';

/** The Redis history store's scripts (see `history-record.lua` and `history-read.lua` for KEYS/ARGV). */
export interface HistoryScripts {
  /** Adds counts into Redis's current minute; resolves to that minute's start (epoch ms). */
  commitbusHistoryRecord(
    history: string,
    published: number,
    handled: number,
    failed: number,
    retried: number,
    deadLettered: number,
    backlog: string,
    backlogAgeMs: string,
    keptMinutes: number,
  ): Promise<number>;
  /** Resolves to Redis's clock, then field and value of each minute read. */
  commitbusHistoryRead(history: string, sinceMs: number, keptMinutes: number): Promise<[number, ...string[]]>;
}

/** The scripts, defined once per connection. */
export const historyScripts = luaScripts<HistoryScripts>({
  commitbusHistoryRecord: { file: 'history-record', keys: 1 },
  commitbusHistoryRead: { file: 'history-read', keys: 1 },
});
