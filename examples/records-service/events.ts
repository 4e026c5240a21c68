import { Event, EventType } from '../../src/index.js';

/** Something happened to a record. */
@EventType('RECORD')
export class RecordEvent extends Event {
  recid!: string;
}

/** A record was created. */
@EventType('RECORD.CREATE')
export class RecordCreatedEvent extends RecordEvent {
  title!: string;
}

/** A record was published. */
@EventType('RECORD.PUBLISH')
export class RecordPublishedEvent extends RecordEvent {}

/** A record was deleted. */
@EventType('RECORD.DELETE')
export class RecordDeletedEvent extends RecordEvent {}

/** Every event class of the example, for the bus's registry. */
export const EVENTS = [RecordEvent, RecordCreatedEvent, RecordPublishedEvent, RecordDeletedEvent];
