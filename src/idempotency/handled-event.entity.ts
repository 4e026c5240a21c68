import { EntitySchema } from 'typeorm';

/** A completed run of an idempotent handler for one event. */
export interface HandledEvent {
  /** The event's id. */
  eventId: string;
  /** The handler's name. */
  handler: string;
  /** Epoch ms when the run committed. */
  handledAt: number;
}

/**
 * The `commitbus_handled` table: one row per (event id, idempotent handler)
 * that ran to completion. Part of `COMMITBUS_ENTITIES`.
 */
export const HandledEventEntity = new EntitySchema<HandledEvent>({
  name: 'CommitbusHandledEvent',
  tableName: 'commitbus_handled',
  columns: {
    eventId: { name: 'event_id', type: 'varchar', length: 128, primary: true },
    handler: { name: 'handler', type: 'varchar', length: 255, primary: true },
    handledAt: {
      name: 'handled_at',
      type: 'bigint',
      transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
    },
  },
  indices: [{ name: 'commitbus_handled_handled_at', columns: ['handledAt'] }],
});
