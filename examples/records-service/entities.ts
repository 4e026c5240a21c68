import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { COMMITBUS_ENTITIES } from '../../src/index.js';
import { VIEW_ENTITIES } from './views.js';

/** A record, the service's own data. */
@Entity('record')
export class Record {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  recid!: string;

  @Column({ type: 'varchar', length: 200 })
  title!: string;

  @Column({ type: 'boolean', default: false })
  published!: boolean;
}

/** A notification the async notification handler "sent". */
@Entity('notification')
export class Notification {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 40 })
  recid!: string;

  @Column({ type: 'varchar', length: 200 })
  message!: string;

  @CreateDateColumn()
  sentAt!: Date;
}

/** The search index the async indexer maintains: one row per live record. */
@Entity('search_index')
export class SearchIndexEntry {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  recid!: string;

  @Column({ type: 'varchar', length: 200 })
  title!: string;

  @Column({ type: 'boolean' })
  published!: boolean;
}

/** Counts of handled events per handling key, kept by the sync metrics handler. */
@Entity('event_metric')
export class EventMetric {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  key!: string;

  @Column({ type: 'integer', default: 0 })
  count!: number;
}

/**
 * A step of the demo that is done (demo-steps.ts): a step that commits writes
 * its row in its own unit of work, so a rerun after a kill skips exactly the
 * steps whose rows committed.
 */
@Entity('demo_steps')
export class DemoStepDone {
  @PrimaryColumn({ type: 'varchar', length: 60 })
  name!: string;
}

/** Every entity of the example, and commitbus's own tables (outbox, completion records, event store). */
export const ENTITIES = [
  Record,
  Notification,
  SearchIndexEntry,
  EventMetric,
  DemoStepDone,
  ...VIEW_ENTITIES,
  ...COMMITBUS_ENTITIES,
];
