import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * A dead letter was re-driven whose kind no one registered here (a `webhook`
 * letter on a bus whose transport keeps no router data, a kind of a newer
 * version).
 */
export class UnknownDeadLetterKindError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNKNOWN_DEAD_LETTER_KIND';

  constructor(
    readonly letterId: string,
    readonly kind: string,
    readonly known: readonly string[] = [],
  ) {
    super(
      `dead letter ${JSON.stringify(letterId)} is of kind ${JSON.stringify(kind)}, which no one registered to re-drive here (known: ${known.map((k) => JSON.stringify(k)).join(', ') || 'none'}): re-drive it where its owner registers the kind (a webhook letter through a bus whose router is wired: no router to re-drive webhook letters here), or purge it`,
    );
  }
}
