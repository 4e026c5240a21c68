import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * A confirmed bulk re-drive or purge found other letters than its preview
 * counted (a letter arrived, went, or failed again in between): nothing was
 * done; preview again.
 */
export class SelectionChangedError extends CommitbusError {
  /** Stable code for `catch` blocks and API clients. */
  readonly code = 'COMMITBUS_DASHBOARD_SELECTION_CHANGED';

  /** @param previewed - how many letters the preview counted; `now`, how many the same selection holds now. */
  constructor(
    readonly previewed: number,
    readonly now: number,
  ) {
    super(
      `the dead letters selected changed since the preview (${previewed} previewed, ${now} selected now, or the same count of other letters): nothing was done; preview again`,
    );
  }
}
