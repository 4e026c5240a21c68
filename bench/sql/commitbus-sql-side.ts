import { DataSource } from 'typeorm';
import {
  COMMITBUS_ENTITIES,
  createEventBus,
  defineHandler,
  type EventBus,
  type Operation,
  type RunningWorker,
  SendEventOp,
  silentLogger,
  UnitOfWorkManager,
} from '../../src/index.js';
import { sqlTransport } from '../../src/transports/sql/index.js';
import { adminQuery, dropSchema } from './pg-admin.js';
import { SqlBenchEvent } from './sql-bench-event.js';
import { SqlBenchRow } from './sql-bench-row.entity.js';
import type { TxSide } from './tx-side.js';
import type { TxTally } from './tx-tally.js';

/** Stamps the unit's commit in `onCommit`: right after COMMIT, before events are handed on. */
class CommitStampOp implements Operation {
  constructor(private readonly stamp: () => void) {}

  onCommit(): void {
    this.stamp();
  }
}

/**
 * commitbus on the SQL transport: `UnitOfWorkManager.run` inserting a row
 * through `uow.manager` and registering `SendEventOp`, on a TypeORM
 * DataSource of a schema of its own (tables by `synchronize`), a sync no-op
 * handler, worker in this process, default options.
 */
export class CommitbusSqlSide implements TxSide {
  readonly label = 'commitbus sql';
  readonly description =
    'commitbus on sqlTransport({ dataSource }): UnitOfWorkManager.run, uow.manager.insert + SendEventOp; sync no-op handler, default options';
  private dataSource: DataSource | undefined;
  private bus: EventBus | undefined;
  private worker: RunningWorker | undefined;
  private uows: UnitOfWorkManager | undefined;

  constructor(
    readonly tally: TxTally,
    private readonly schema: string,
    private readonly poolSize: number,
  ) {}

  async prepare(url: string): Promise<void> {
    await adminQuery(url, `CREATE SCHEMA ${this.schema}`);
    const dataSource = this.newDataSource(url, true);
    await dataSource.initialize();
    await dataSource.destroy();
  }

  async open(url: string): Promise<void> {
    const dataSource = this.newDataSource(url, false);
    this.dataSource = dataSource;
    await dataSource.initialize();
    const noop = defineHandler<SqlBenchEvent>('noop', (event) => this.tally.handle(event.unit));
    const bus = createEventBus({
      events: [SqlBenchEvent],
      handlers: { 'BENCH.SQL': [[noop, true]] },
      config: { name: 'bench' },
      transport: sqlTransport({ dataSource }),
      logger: silentLogger,
      dataSource,
    });
    this.bus = bus;
    this.worker = await bus.startWorker({ handleSignals: false });
    this.uows = new UnitOfWorkManager({ dataSource, bus });
  }

  async unit(unit: number): Promise<void> {
    await this.uows?.run(async (uow) => {
      await uow.manager.insert(SqlBenchRow, { side: 'commitbus', unit });
      uow.register(new CommitStampOp(() => this.tally.committed(unit)));
      uow.register(new SendEventOp(SqlBenchEvent.create({ unit })));
    });
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.bus?.close();
    if (this.dataSource?.isInitialized) await this.dataSource.destroy();
    this.worker = undefined;
    this.bus = undefined;
    this.dataSource = undefined;
  }

  async teardown(url: string): Promise<void> {
    await dropSchema(url, this.schema);
  }

  private newDataSource(url: string, synchronize: boolean): DataSource {
    return new DataSource({
      type: 'postgres',
      url,
      schema: this.schema,
      entities: [SqlBenchRow, ...COMMITBUS_ENTITIES],
      synchronize,
      extra: { max: this.poolSize },
    });
  }
}
