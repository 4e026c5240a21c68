import { luaScripts } from './lua-scripts.js';

/** The Redis schedule tick store's compare-and-set (see `claim-schedule-tick.lua` for KEYS/ARGV). */
export interface ScheduleScripts {
  /** Stores `tickAt` as the schedule's last tick if it is later than the stored one; resolves to 1 if so, else 0. */
  commitbusClaimScheduleTick(ticks: string, name: string, tickAt: number): Promise<number>;
}

/** The script, defined once per connection. */
export const scheduleScripts = luaScripts<ScheduleScripts>({
  commitbusClaimScheduleTick: { file: 'claim-schedule-tick', keys: 1 },
});
