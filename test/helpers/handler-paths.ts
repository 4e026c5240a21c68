import { Event, EventType } from '../../src/index.js';
import { syncLane } from '../../src/ordering/lane.js';

/** An unordered event: its sync chain runs in a drain, its async handlers as jobs. */
@EventType('PIPE.ITEM')
export class PipeItem extends Event {
  n!: number;
}

/** An ordered event, one order key per `n`: its handlers run in the key's lanes. */
@EventType('PIPE.KEYED', { orderBy: (e: PipeKeyed) => `pipe:${e.n}` })
export class PipeKeyed extends Event {
  n!: number;
}

/** The event classes of the handler-path suites. */
export const PIPE_EVENTS = [PipeItem, PipeKeyed];

/**
 * One of the four ways a handler run is carried: an unordered event's sync
 * chain (drain, then retry jobs), an unordered async handler (its own job),
 * an ordered event's sync lane and one of its async lanes.
 */
export interface HandlerPath {
  /** How the suite names it. */
  readonly name: string;
  /** Whether its events are ordered. */
  readonly ordered: boolean;
  /** Whether the handler under test is sync (in the chain) or async. */
  readonly sync: boolean;
  /** The handling key its events have. */
  readonly handlingKey: string;
  /** Its `n`-th event. */
  create(n: number): PipeItem | PipeKeyed;
  /** Where an event of this path waits: `undefined` for the stream, else its sync lane. */
  laneOf(event: PipeItem | PipeKeyed): string | undefined;
}

const unordered = (sync: boolean): HandlerPath => ({
  name: `unordered ${sync ? 'sync' : 'async'}`,
  ordered: false,
  sync,
  handlingKey: 'PIPE.ITEM',
  create: (n) => PipeItem.create({ n }),
  laneOf: () => undefined,
});

const ordered = (sync: boolean): HandlerPath => ({
  name: `ordered ${sync ? 'sync' : 'async'}`,
  ordered: true,
  sync,
  handlingKey: 'PIPE.KEYED',
  create: (n) => PipeKeyed.create({ n }),
  laneOf: (event) => syncLane(`pipe:${event.n}`),
});

/** Every path, in the order the suites run them. */
export const HANDLER_PATHS: readonly HandlerPath[] = [
  unordered(true),
  unordered(false),
  ordered(true),
  ordered(false),
];
