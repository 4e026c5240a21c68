import type { OutboxOptions } from '../config/option-groups.js';
import type { OutgoingEvent } from '../events/outgoing-event.js';
import type { Logger } from '../support/logger.js';
import { PeriodicTask } from '../support/periodic-task.js';
import { inInternalSpan } from '../tracing/internal-span.js';
import { OutboxNotConfiguredError } from './errors/outbox-not-configured.error.js';
import type { Outbox } from './outbox.js';

// Said once with the missing table: a process whose migrations run just after
// createEventBus logs it too, and must know it ends once they have run.
const LOOKS_AGAIN =
  ' (found by the outbox relay as the bus started; it looks again every outbox.relayEveryMs and relays once the table is there, so if your migrations run after createEventBus, run them before it to leave this out)';

/** What the relay needs of the bus's `outbox` options. */
export type OutboxRelaySettings = Pick<OutboxOptions, 'relayEveryMs' | 'relayBatchSize'>;

/**
 * Republishes what publishers left in the outbox: every `relayEveryMs`,
 * batch after batch of rows older than the grace period (see
 * {@link Outbox.relayOnce}) until a batch comes back short. Runs in every
 * process whose bus has a DataSource. Its first run checks the outbox table
 * and logs {@link OutboxNotConfiguredError} (once) when it is missing.
 */
export class OutboxRelay {
  private readonly task: PeriodicTask;
  private ready = false;
  private reported = false;

  constructor(
    private readonly outbox: Outbox,
    publish: (events: readonly OutgoingEvent[]) => Promise<unknown>,
    settings: OutboxRelaySettings,
    private readonly logger: Logger,
  ) {
    // A span per batch relayed (none for a pass that finds nothing).
    const relay = (events: readonly OutgoingEvent[]) =>
      inInternalSpan(
        'outbox relay',
        () => ({ 'messaging.batch.message_count': events.length }),
        () => publish(events),
      );
    this.task = new PeriodicTask(
      'outbox relay',
      settings.relayEveryMs,
      async () => {
        if (!this.ready && !(await this.checkSetup())) return;
        while ((await outbox.relayOnce(relay)) >= settings.relayBatchSize);
      },
      logger,
    );
  }

  // The first run checks the outbox's table, so a process without it says so as
  // it starts (once), not at its first commit; later runs check until it is there.
  private async checkSetup(): Promise<boolean> {
    try {
      this.ready = await this.outbox.check();
    } catch (error) {
      if (!(error instanceof OutboxNotConfiguredError)) throw error;
      if (!this.reported) this.logger.error({ code: error.code }, `${error.message}${LOOKS_AGAIN}`);
      this.reported = true;
    }
    return this.ready;
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
