import type { EntitySchema, MigrationInterface } from 'typeorm';
import { AddCommitbusSqlDeadLetterCounts1764300000009 } from './add-dead-letter-counts.migration.js';
import { AddCommitbusSqlDeliveries1764300000005 } from './add-deliveries.migration.js';
import { CreateCommitbusSqlDeadLetters1764300000003 } from './create-dead-letters-table.migration.js';
import { CreateCommitbusSqlHistory1764300000010 } from './create-history-table.migration.js';
import { CreateCommitbusSqlJobs1764300000001 } from './create-jobs-table.migration.js';
import { CreateCommitbusSqlOperatorActions1764300000011 } from './create-operator-actions-table.migration.js';
import { CreateCommitbusSqlOrdering1764300000004 } from './create-ordering-tables.migration.js';
import { CreateCommitbusSqlRules1764300000002 } from './create-rules-tables.migration.js';
import { CreateCommitbusSqlScheduleTicks1764300000006 } from './create-schedule-ticks-table.migration.js';
import { CreateCommitbusSqlEvents1764300000000 } from './create-sql-events.migration.js';
import { CreateCommitbusSqlWorkers1764300000008 } from './create-workers-table.migration.js';
import { CycleCommitbusSqlIdSequences1764300000007 } from './cycle-id-sequences.migration.js';
import { SqlDeadLetterEntity } from './dead-letter.entity.js';
import { SqlDeadLetterCountEntity } from './dead-letter-count.entity.js';
import { SqlDroppedEntity } from './dropped.entity.js';
import { SqlHistoryEntity } from './history.entity.js';
import { SqlJobEntity } from './job.entity.js';
import { SqlLaneEntity } from './lane.entity.js';
import { SqlLaneCounterEntity } from './lane-counter.entity.js';
import { SqlLaneEventEntity } from './lane-event.entity.js';
import { SqlLaneWorkerEntity } from './lane-worker.entity.js';
import { SqlLockEntity } from './lock.entity.js';
import { SqlOperatorActionEntity } from './operator-action.entity.js';
import { SqlParkedEntity } from './parked.entity.js';
import { SqlRuleEntity } from './rule.entity.js';
import { SqlScheduleTickEntity } from './schedule-tick.entity.js';
import { SqlEventEntity, SqlEventIdEntity } from './sql-event.entity.js';
import { SqlWorkerEntity } from './worker.entity.js';

/**
 * The SQL transport's tables (each port's file beside it adds its own) and
 * the migrations creating them, oldest first; part of `COMMITBUS_ENTITIES`
 * and `COMMITBUS_MIGRATIONS`.
 */
// biome-ignore lint/suspicious/noExplicitAny: TypeORM takes schemas of any row type
export const SQL_TRANSPORT_ENTITIES: readonly EntitySchema<any>[] = [
  SqlEventEntity,
  SqlEventIdEntity,
  SqlJobEntity,
  SqlRuleEntity,
  SqlParkedEntity,
  SqlDroppedEntity,
  SqlLockEntity,
  SqlDeadLetterEntity,
  SqlDeadLetterCountEntity,
  SqlLaneEntity,
  SqlLaneEventEntity,
  SqlLaneWorkerEntity,
  SqlLaneCounterEntity,
  SqlScheduleTickEntity,
  SqlWorkerEntity,
  SqlHistoryEntity,
  SqlOperatorActionEntity,
];

/** Migrations creating {@link SQL_TRANSPORT_ENTITIES}, oldest first. */
export const SQL_TRANSPORT_MIGRATIONS: readonly (new () => MigrationInterface)[] = [
  CreateCommitbusSqlEvents1764300000000,
  CreateCommitbusSqlJobs1764300000001,
  CreateCommitbusSqlRules1764300000002,
  CreateCommitbusSqlDeadLetters1764300000003,
  CreateCommitbusSqlOrdering1764300000004,
  AddCommitbusSqlDeliveries1764300000005,
  CreateCommitbusSqlScheduleTicks1764300000006,
  CycleCommitbusSqlIdSequences1764300000007,
  CreateCommitbusSqlWorkers1764300000008,
  AddCommitbusSqlDeadLetterCounts1764300000009,
  CreateCommitbusSqlHistory1764300000010,
  CreateCommitbusSqlOperatorActions1764300000011,
];
