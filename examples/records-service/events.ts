import { Event, EventType } from '../../src/index.js';

/** Something happened to a record. */
@EventType('RECORD')
export class RecordEvent extends Event {
  recid!: string;
}

/**
 * The events of one record are handled one at a time, in the order their
 * units of work committed (create before publish before delete), by
 * whichever worker; other records' events run in parallel.
 */
const byRecord = { orderBy: (e: RecordEvent) => `record:${e.recid}` };

/** A record was created. */
@EventType('RECORD.CREATE', byRecord)
export class RecordCreatedEvent extends RecordEvent {
  title!: string;
}

/** A record was published. */
@EventType('RECORD.PUBLISH', byRecord)
export class RecordPublishedEvent extends RecordEvent {}

/** A record was deleted. */
@EventType('RECORD.DELETE', byRecord)
export class RecordDeletedEvent extends RecordEvent {}

/** A record became popular (sent by the event-sourced `popular` model, see views.ts). */
@EventType('RECORD.POPULAR', byRecord)
export class RecordPopularEvent extends RecordEvent {}

/** Every event class of the example, for the bus's registry. */
export const EVENTS = [
  RecordEvent,
  RecordCreatedEvent,
  RecordPublishedEvent,
  RecordDeletedEvent,
  RecordPopularEvent,
];
