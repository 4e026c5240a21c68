import type { ScheduleTickStore } from '../../scheduling/schedule-tick-store.js';

/** `ScheduleTickStore` in this process: each schedule's last tick in a map (epoch ms). */
export class MemoryScheduleTickStore implements ScheduleTickStore {
  private readonly ticks = new Map<string, number>();

  async claim(name: string, tickAt: Date): Promise<boolean> {
    const last = this.ticks.get(name);
    const at = tickAt.getTime();
    if (last !== undefined && last >= at) return false;
    this.ticks.set(name, at);
    return true;
  }

  async lastTick(name: string): Promise<Date | undefined> {
    const last = this.ticks.get(name);
    return last === undefined ? undefined : new Date(last);
  }
}
