import { CommitbusError } from '../../support/commitbus-error.js';

/** The dashboard was asked for bull-board (`bullBoard: true`), an optional peer dependency that is not installed. */
export class BullBoardMissingError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_BULL_BOARD_MISSING';

  constructor(options?: ErrorOptions) {
    super(
      'the dashboard shows the BullMQ queues with bull-board, which is not installed: npm install @bull-board/api @bull-board/fastify (or leave bullBoard unset to start without it)',
      options,
    );
  }
}
