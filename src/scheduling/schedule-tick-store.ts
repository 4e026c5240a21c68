/**
 * The port where the last tick of each schedule of a bus lives (a Redis
 * hash under the bus's hash tag, rows of `commitbus_schedule_ticks` on
 * SQL), so that of all the processes running
 * one schedule exactly one publishes each tick. Every process of a bus sees
 * the same store.
 *
 * What every adapter keeps (test/conformance/schedule-tick-store.conformance.test.ts):
 *
 * - **One winner per tick.** {@link claim} is a compare-and-set on the
 *   schedule's last tick: it stores `tickAt` and resolves to `true` only
 *   when no tick is stored yet or the stored one is earlier; otherwise it
 *   changes nothing and resolves to `false`. Of any number of calls racing
 *   for one tick, from any processes, exactly one resolves to `true`.
 * - **Ticks only move forward.** A tick at or before the stored one is
 *   refused, so an earlier tick claimed late (a slow process, a skewed clock)
 *   never publishes after a later one did.
 * - **Schedules are apart.** Each name has its own last tick; names are
 *   compared as they are, case and all.
 * - **Kept until removed by hand.** A stored tick outlives the processes
 *   and `unschedule` (another process may run the schedule still); only
 *   deleting the row or key forgets it.
 *
 * A call that rejects (on Redis with `TransportUnavailableError` while Redis
 * cannot be reached) changed nothing, or stored `tickAt` as a call that
 * resolved to `true` would have: the caller then treats the tick as lost
 * rather than publishing it without knowing it won.
 */
export interface ScheduleTickStore {
  /**
   * Claims the tick at `tickAt` (to the millisecond) of the schedule `name`:
   * `true` when this call stored it as the schedule's last tick (none was
   * stored, or an earlier one), `false` when a tick at or after it is stored.
   * Atomic across the bus's processes.
   */
  claim(name: string, tickAt: Date): Promise<boolean>;
  /** The schedule's last claimed tick, as a new `Date`, or `undefined` when none was ever claimed. */
  lastTick(name: string): Promise<Date | undefined>;
}
