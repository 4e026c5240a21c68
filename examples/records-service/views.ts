import { Column, Entity, PrimaryColumn } from 'typeorm';
import { defineModel, SendEventOp, type StoreEvent } from '../../src/index.js';
import { RecordPopularEvent } from './events.js';

/** How many views make a record popular. */
export const POPULAR_AT = 3;

/** Event-sourced: how often each record was viewed (the `recordViews` model's table). */
@Entity('record_views')
export class RecordViews {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  recid!: string;

  @Column({ type: 'integer' })
  views!: number;
}

/** Event-sourced: records that became popular, and at which version (the `popular` model's table). */
@Entity('popular_record')
export class PopularRecord {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  recid!: string;

  @Column({ type: 'integer' })
  since!: number;
}

type Viewed = StoreEvent<{ recid: string }>;

/**
 * Counts views. The view that reaches {@link POPULAR_AT} adds a
 * `RECORD.BECAME_POPULAR` sub-event, handled in the same transaction with the
 * same version.
 */
export const recordViews = defineModel<RecordViews>({
  name: 'recordViews',
  entity: RecordViews,
  prefetch: (event) => (event.data as { recid: string }).recid,
  reducers: {
    'RECORD.VIEWED': async (event: Viewed, { get }) => {
      const views = ((await get(event.data.recid))?.views ?? 0) + 1;
      return {
        sav: [{ recid: event.data.recid, views }],
        events:
          views === POPULAR_AT ? [{ type: 'RECORD.BECAME_POPULAR', data: { recid: event.data.recid } }] : [],
      };
    },
  },
});

/**
 * Keeps the popular records, and tells the rest of the system: the deriver
 * registers `RECORD.POPULAR` on the cycle's unit of work, so it goes out
 * through the bus's outbox once the event's transaction commits (never during
 * a replay, which rebuilds tables only).
 */
export const popularRecords = defineModel<PopularRecord>({
  name: 'popular',
  entity: PopularRecord,
  reducers: {
    'RECORD.BECAME_POPULAR': (event: Viewed) => ({ ins: [{ recid: event.data.recid, since: event.v }] }),
  },
  derive: ({ event, own, uow, replaying }) => {
    if (own?.ins === undefined || replaying) return;
    const { recid } = event.data as { recid: string };
    uow.register(new SendEventOp(RecordPopularEvent.create({ recid })));
  },
});

/** The example's event-sourced models and their tables. */
export const VIEW_MODELS = [recordViews, popularRecords];
/** Their entities. */
export const VIEW_ENTITIES = [RecordViews, PopularRecord];
