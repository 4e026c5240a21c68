import { CommitbusError } from '../../support/commitbus-error.js';

/** A `UnitOfWorkManager` was made without a DataSource, and its bus has none either. */
export class NoDataSourceError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_NO_DATA_SOURCE';

  constructor() {
    super(
      'UnitOfWorkManager needs a DataSource: pass new UnitOfWorkManager({ dataSource, bus }), or createEventBus({ dataSource }) and then new UnitOfWorkManager({ bus })',
    );
  }
}
