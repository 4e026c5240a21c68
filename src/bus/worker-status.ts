import type { WorkersOptions } from '../config/option-groups.js';
import type { WorkerBeat, WorkerRecord, WorkerRegistry } from '../handlers/worker-registry.js';

/** How many times `workers.goneAfterMs` a worker's record is kept after its last beat. */
export const WORKER_RECORD_KEPT_GONE_AFTERS = 10;

/**
 * One worker of the bus, as a `BusStatus` lists it: its beat (see
 * `WorkerBeat`) as plain JSON, dates as ISO 8601 strings.
 */
export interface WorkerStatus extends Omit<WorkerBeat, 'startedAt'> {
  /** When it started (ISO 8601). */
  readonly startedAt: string;
  /** When its last beat was stored (ISO 8601, the transport's clock). */
  readonly lastBeatAt: string;
  /** Whether its last beat is at most `workers.goneAfterMs` old; `false`: it is gone. */
  readonly alive: boolean;
}

/** The bus's workers, as a `BusStatus` shows them. */
export interface WorkersStatus {
  /** How many are alive (beat within `goneAfterMs`). */
  readonly alive: number;
  /** The time after which a worker whose beats stopped is gone, in ms (`workers.goneAfterMs`). */
  readonly goneAfterMs: number;
  /** Every worker registered, alive or gone (records 10 times `goneAfterMs` old are removed), newest beat first. */
  readonly list: readonly WorkerStatus[];
}

/** Reads the bus's workers: one registry call, whose clock decides who is alive. */
export async function readWorkerStatus(
  registry: WorkerRegistry,
  settings: Pick<WorkersOptions, 'goneAfterMs'>,
): Promise<WorkersStatus> {
  const { now, workers } = await registry.list(settings.goneAfterMs * WORKER_RECORD_KEPT_GONE_AFTERS);
  const list = workers.map((w) =>
    toWorkerStatus(w, now.getTime() - w.lastBeatAt.getTime() <= settings.goneAfterMs),
  );
  return { alive: list.filter((w) => w.alive).length, goneAfterMs: settings.goneAfterMs, list };
}

function toWorkerStatus(w: WorkerRecord, alive: boolean): WorkerStatus {
  return {
    id: w.id,
    host: w.host,
    pid: w.pid,
    version: w.version,
    transport: w.transport,
    concurrency: w.concurrency,
    busy: w.busy,
    startedAt: w.startedAt.toISOString(),
    lastBeatAt: w.lastBeatAt.toISOString(),
    alive,
  };
}
