import type { OutgoingEvent } from '../events/outgoing-event.js';
import type { Logger } from '../support/logger.js';
import { PeriodicTask } from '../support/periodic-task.js';
import type { Outbox } from './outbox.js';

/** What the relay needs from the bus configuration. */
export interface OutboxRelaySettings {
  /** Pause between looks for left-behind rows, in milliseconds. */
  readonly outboxRelayEveryMs: number;
  /** Rows one relay transaction takes. */
  readonly outboxRelayBatchSize: number;
}

/**
 * Republishes what publishers left in the outbox: every `outboxRelayEveryMs`,
 * batch after batch of rows older than the grace period (see
 * {@link Outbox.relayOnce}) until a batch comes back short. Runs in every
 * process whose bus has a DataSource.
 */
export class OutboxRelay {
  private readonly task: PeriodicTask;

  constructor(
    outbox: Outbox,
    publish: (events: readonly OutgoingEvent[]) => Promise<unknown>,
    settings: OutboxRelaySettings,
    logger: Logger,
  ) {
    this.task = new PeriodicTask(
      'outbox relay',
      settings.outboxRelayEveryMs,
      async () => {
        while ((await outbox.relayOnce(publish)) >= settings.outboxRelayBatchSize);
      },
      logger,
    );
  }

  /** Starts relaying (a first look at once). */
  start(): this {
    this.task.start();
    return this;
  }

  /** Stops, after the batch under way. */
  stop(): Promise<void> {
    return this.task.stop();
  }
}
