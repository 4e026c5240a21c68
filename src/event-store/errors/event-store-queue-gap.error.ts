import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * The writer found a version missing from `commitbus_es_events` between the
 * handled version and the next queued event. Dispatch never leaves one, so
 * a row was deleted by hand: the writer stops there rather than skip it.
 */
export class EventStoreQueueGapError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_QUEUE_GAP';

  /**
   * @param missing - the version that is not there.
   * @param found - the version found in its place.
   */
  constructor(
    readonly missing: number,
    readonly found: number,
  ) {
    super(
      `the event store's queue has a gap: v${missing} is missing (found v${found}), and the writer will not go on past it. Restore the row of commitbus_es_events from a backup; if no row was deleted by hand, report this as a commitbus bug`,
    );
  }
}
