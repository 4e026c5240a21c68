import type { Logger } from '../bus/logger.js';
import type { OutgoingEvent } from '../bus/outgoing-event.js';
import { PeriodicTask } from '../bus/periodic-task.js';
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
