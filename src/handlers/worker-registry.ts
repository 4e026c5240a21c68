/**
 * What one worker process tells its bus about itself at each beat: who it
 * is and what it is doing. Plain values; the store adds the beat's time.
 */
export interface WorkerBeat {
  /** The worker's id, unique across the bus's processes for the worker's life (a random UUID). */
  readonly id: string;
  /** The host it runs on (`os.hostname()`). */
  readonly host: string;
  /** Its process id. */
  readonly pid: number;
  /** The commitbus version it runs (package.json's). */
  readonly version: string;
  /** Its transport's name (`redis`, `sql-postgres`, `sql-sqlite`). */
  readonly transport: string;
  /** How many async handler jobs it runs at once (`handlers.concurrency`). */
  readonly concurrency: number;
  /** How many handler runs it has under way at this beat. */
  readonly busy: number;
  /** When it started. */
  readonly startedAt: Date;
}

/** A worker as the store last heard of it: its last beat and when that beat was stored. */
export interface WorkerRecord extends WorkerBeat {
  /** When its last beat was stored, on the store's clock. */
  readonly lastBeatAt: Date;
}

/** What {@link WorkerRegistry.list} reads: the records, and the store's clock at the read. */
export interface WorkerList {
  /** The store's clock when it read the records: compare `lastBeatAt` with this, not with a local clock. */
  readonly now: Date;
  /** Every record kept, newest `lastBeatAt` first. */
  readonly workers: readonly WorkerRecord[];
}

/**
 * The port where a bus's workers register and beat (a Redis hash under the
 * bus's hash tag, rows of `commitbus_workers` on SQL), so that any process
 * of the bus can tell which workers are alive. Every process of a bus sees
 * the same registry; each bus has its own.
 *
 * What every adapter keeps (test/conformance/worker-registry.conformance.test.ts):
 *
 * - **One record per worker id, the latest beat winning.** {@link beat}
 *   stores every field of the beat as given (dates to the millisecond),
 *   replacing the record of that id, and stamps `lastBeatAt` with the
 *   store's clock (Redis `TIME`, the database's clock): beats from
 *   machines whose clocks disagree still compare fairly.
 * - **Leaving forgets.** {@link leave} removes the record of that id; an
 *   unknown id is no error. A beat after a leave registers it again.
 * - **Listing reads the store's clock.** {@link list} returns `now` on the
 *   same clock as `lastBeatAt`, and every record whose `lastBeatAt` is at
 *   most `retainMs` before `now`, newest beat first. Records older than
 *   that are removed by the call (nobody beats for them any more). Whether a
 *   worker counts as alive is the caller's rule (`now - lastBeatAt` against
 *   its gone-after time), not the store's.
 *
 * A call that rejects (on Redis with `TransportUnavailableError` while Redis
 * cannot be reached) changed nothing, or did what it would have done.
 */
export interface WorkerRegistry {
  /** Stores `worker` as its id's record, with `lastBeatAt` the store's clock now. */
  beat(worker: WorkerBeat): Promise<void>;
  /** Removes the record of worker `id`, if any. */
  leave(id: string): Promise<void>;
  /** Removes records last beating more than `retainMs` ago and returns the rest, newest first, with the store's clock. */
  list(retainMs: number): Promise<WorkerList>;
}
