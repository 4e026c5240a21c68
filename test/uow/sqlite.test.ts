import { DataSource } from 'typeorm';
import { COMMITBUS_ENTITIES } from '../../src/index.js';
import { RecordRow } from '../helpers/records.js';
import { describeUnitOfWorkContract } from '../helpers/uow-contract.js';

describeUnitOfWorkContract('SQLite', {
  open: () =>
    new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [RecordRow, ...COMMITBUS_ENTITIES],
      synchronize: true,
    }).initialize(),
  close: (dataSource) => dataSource.destroy(),
  uniqueViolation: /UNIQUE constraint failed/,
});
