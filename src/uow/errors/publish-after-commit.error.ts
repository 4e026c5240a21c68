import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * The transaction committed but its events could not be published after
 * every retry (only with `outbox.enabled` off). The events are named so they
 * can be republished by hand.
 */
export class PublishAfterCommitError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_PUBLISH_AFTER_COMMIT';

  constructor(
    readonly events: readonly { id: string; key: string }[],
    attempts: number,
    options?: ErrorOptions,
  ) {
    const names = events.map((e) => `${e.key} ${e.id}`).join(', ');
    super(
      `the transaction committed, but publishing its ${events.length} event(s) failed ${attempts} times: ${names}. Check the Redis connection and republish them with bus.publish(), or keep outbox.enabled on (the default with a dataSource) so a relay republishes them for you`,
      options,
    );
  }
}
