import { CommitbusError } from '../../support/commitbus-error.js';

/** No model of the store knows this event type (no reducer, no `types` entry). */
export class UnknownStoreEventTypeError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNKNOWN_STORE_EVENT_TYPE';

  constructor(
    readonly type: string,
    known: readonly string[],
  ) {
    const list = known.length > 12 ? `${known.slice(0, 12).join(', ')}, ...` : known.join(', ');
    super(
      `no model of the event store knows the event type "${type}" (known: ${list || 'none'}). Add a reducer for it, list it in a model's \`types\`, or set unknownTypes: 'record' to record such events and go on`,
    );
  }
}
