import { Event, EventType } from '../../src/index.js';

/** The SQL bench's event: names its unit of work. */
@EventType('BENCH.SQL')
export class SqlBenchEvent extends Event {
  /** The unit of work that published it. */
  unit = 0;
}
