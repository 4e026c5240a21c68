import { CommitbusError } from '../../support/commitbus-error.js';

/** A bus event was registered on a unit of work whose manager was made without a bus. */
export class NoBusError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_NO_BUS';

  constructor() {
    super(
      'this unit of work has no bus to send events through: make the UnitOfWorkManager with { dataSource, bus } (bus from createEventBus)',
    );
  }
}
