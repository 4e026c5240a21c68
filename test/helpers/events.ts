import { Type } from 'class-transformer';
import { Event, EventType } from '../../src/index.js';

/** A nested value object: decoding must restore the class (its method works again). */
export class Owner {
  constructor(
    public name = '',
    public email = '',
  ) {}

  label(): string {
    return `${this.name} <${this.email}>`;
  }
}

/** Handling key `RECORD`: the root every record event's handlers start from. */
@EventType('RECORD')
export class RecordEvent extends Event {
  recid!: string;
}

/** Handling key `RECORD.CREATE`. */
@EventType('RECORD.CREATE')
export class RecordCreated extends Event {
  recid!: string;
  title!: string;
  @Type(() => Owner)
  owner!: Owner;
}

/** Handling key `RECORD.PUBLISH`, with a `Date` field. */
@EventType('RECORD.PUBLISH')
export class RecordPublished extends Event {
  recid!: string;
  @Type(() => Date)
  publishedAt!: Date;
}

/** Handling key `RECORD.PUBLISH.EMBARGOED`: three levels, for hierarchical dispatch. */
@EventType('RECORD.PUBLISH.EMBARGOED')
export class RecordEmbargoed extends Event {
  recid!: string;
  @Type(() => Date)
  publishedAt!: Date;
  @Type(() => Date)
  embargoUntil!: Date;
}

/** Every test event class, for `createEventBus({ events })`. */
export const TEST_EVENTS = [RecordEvent, RecordCreated, RecordPublished, RecordEmbargoed] as const;

/** A `RECORD.CREATE` event for record `recid`. */
export function recordCreated(recid: string): RecordCreated {
  return RecordCreated.create({ recid, title: `Title ${recid}`, owner: new Owner('Ada', 'ada@example.org') });
}

/** A `RECORD.PUBLISH` event for record `recid`. */
export function recordPublished(recid: string): RecordPublished {
  return RecordPublished.create({ recid, publishedAt: new Date('2024-05-01T10:00:00Z') });
}

/**
 * An ordered event (order key `flow:<flow>`), kept out of {@link TEST_EVENTS}
 * so the buses built from those run no ordered lanes.
 */
@EventType('FLOW.STEP', { orderBy: (e: FlowStep) => `flow:${e.flow}` })
export class FlowStep extends Event {
  flow!: string;
  recid!: string;
}

/** A `FLOW.STEP` event of flow `flow`, with `recid` naming it in the handlers' counts. */
export function flowStep(flow: string, recid: string): FlowStep {
  return FlowStep.create({ flow, recid });
}
