import { CommitbusError } from '../../support/commitbus-error.js';

/** An event class has no `@EventType(...)` decorator. */
export class MissingEventTypeError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_MISSING_EVENT_TYPE';

  constructor(readonly className: string) {
    super(`event class ${className} has no handling key: decorate it with @EventType('TYPE.ACTION')`);
  }
}
