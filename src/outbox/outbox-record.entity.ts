import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../schema/bigint-as-number.js';

/** One outbox row: an event committed and not yet known to be published. */
export interface OutboxRecord {
  /** The event's id. */
  eventId: string;
  /** Epoch ms when the unit of work wrote the row (the same for all its events). */
  createdAt: number;
  /**
   * Registration order within its unit of work (column `position`, its name
   * since the table was created; not an ordered event's position, which is
   * {@link OutboxRecord.orderPosition}).
   */
  registrationOrder: number;
  /** The event's handling key, for people reading the table. */
  handlingKey: string;
  /** The serialized event. */
  payload: string;
  /** Epoch ms before which the event must not be handled, or null. */
  deliverAt: number | null;
  /** An ordered event's order key, or null. */
  orderKey: string | null;
  /** An ordered event's position in its order key's sequence, or null. */
  orderPosition: number | null;
}

/**
 * The `commitbus_outbox` table. Add it to your DataSource with
 * `COMMITBUS_ENTITIES`, and create it with `COMMITBUS_MIGRATIONS` (or `synchronize`).
 * Rows are relayed in `(created_at, position)` order: write order, and
 * registration order within a unit of work. An ordered event's row keeps its
 * order key and position beside the payload (`order_key`, `order_position`).
 */
export const OutboxRecordEntity = new EntitySchema<OutboxRecord>({
  name: 'CommitbusOutboxRecord',
  tableName: 'commitbus_outbox',
  columns: {
    eventId: { name: 'event_id', type: 'varchar', length: 128, primary: true },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintAsNumber },
    registrationOrder: { name: 'position', type: 'integer' },
    handlingKey: { name: 'handling_key', type: 'varchar', length: 255 },
    payload: { name: 'payload', type: 'text' },
    deliverAt: { name: 'deliver_at', type: 'bigint', nullable: true, transformer: bigintAsNumber },
    orderKey: { name: 'order_key', type: 'varchar', length: 512, nullable: true },
    orderPosition: { name: 'order_position', type: 'integer', nullable: true },
  },
  indices: [{ name: 'commitbus_outbox_created_at', columns: ['createdAt', 'registrationOrder'] }],
});
