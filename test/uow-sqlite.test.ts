import { DataSource } from 'typeorm';
import { RecordRow } from './support/records.js';
import { describeUnitOfWorkContract } from './support/uow-contract.js';

describeUnitOfWorkContract('SQLite', {
  open: () =>
    new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [RecordRow],
      synchronize: true,
    }).initialize(),
  close: (dataSource) => dataSource.destroy(),
  uniqueViolation: /UNIQUE constraint failed/,
});
