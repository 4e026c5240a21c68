import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * A webhook dead letter was re-driven on a bus that has no HTTP event router to queue its events again.
 * @deprecated No longer thrown: a letter of a kind no one registered (a `webhook` letter where no
 * router is wired) is refused with `UnknownDeadLetterKindError`.
 */
export class NoWebhookRedriverError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_NO_WEBHOOK_REDRIVER';

  constructor(readonly letterId: string) {
    super(
      `dead letter ${JSON.stringify(letterId)} is a webhook batch, and there is no router to re-drive webhook letters here (no redriveWebhooks): re-drive it through bus.deadLetters, whose router re-drives webhook letters, or purge it`,
    );
  }
}
