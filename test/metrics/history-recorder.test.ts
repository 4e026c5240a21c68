/**
 * A process's history counts survive a flush that fails: they are kept and
 * stored by the next flush, the failure logged with its code and thinned
 * out, never thrown; a flush with nothing counted stores nothing. Driven
 * through the `HistoryStore` port with a store that refuses while told to
 * (what the Redis and SQL stores do while their server is away).
 */
import { describe, expect, it } from 'vitest';
import { HISTORY_FLUSH_FAILED, HistoryRecorder } from '../../src/metrics/history-recorder.js';
import type { HistoryReading, HistorySample, HistoryStore } from '../../src/metrics/history-store.js';
import { TransportUnavailableError } from '../../src/support/errors/transport-unavailable.error.js';
import { recordingLogger } from '../helpers/recording-logger.js';

/** A store keeping what it was given, refusing while `down` is set. */
class FlakyStore implements HistoryStore {
  down = false;
  readonly recorded: HistorySample[] = [];

  async record(sample: HistorySample): Promise<void> {
    if (this.down)
      throw new TransportUnavailableError('record the history', 'Redis at redis://nowhere:1', {
        cause: new Error('connect ECONNREFUSED'),
      });
    this.recorded.push(sample);
  }

  async read(): Promise<HistoryReading> {
    return { now: new Date(), minutes: [] };
  }
}

describe('HistoryRecorder', () => {
  it('keeps the counts of a failed flush for the next one, logging the failure with its code', async () => {
    const store = new FlakyStore();
    const logger = recordingLogger();
    const recorder = new HistoryRecorder({ store, flushEveryMs: 3_600_000, logger, sample: () => undefined });
    recorder.published(2);
    recorder.observer.onHandled?.({} as never);
    store.down = true;
    await recorder.flush();
    expect(store.recorded).toEqual([]);
    expect(logger.at('warn')[0]?.fields).toMatchObject({ code: HISTORY_FLUSH_FAILED });
    recorder.observer.onHandlerFailed?.({} as never);
    recorder.observer.onRetry?.({} as never);
    recorder.observer.onDeadLetter?.({} as never);
    store.down = false;
    await recorder.flush();
    expect(store.recorded).toEqual([
      { published: 2, handled: 1, failed: 1, retried: 1, deadLettered: 1, backlog: null, backlogAgeMs: null },
    ]);
    await recorder.close();
  });

  it('stores nothing when nothing was counted and no backlog sampled, and records a sample alone', async () => {
    const store = new FlakyStore();
    let sampled: { backlog: number; backlogAgeMs: number } | undefined;
    const recorder = new HistoryRecorder({
      store,
      flushEveryMs: 3_600_000,
      logger: recordingLogger(),
      sample: () => (sampled === undefined ? undefined : Promise.resolve(sampled)),
    });
    await recorder.flush();
    expect(store.recorded).toEqual([]);
    sampled = { backlog: 4, backlogAgeMs: 250 };
    await recorder.close();
    expect(store.recorded).toEqual([
      { published: 0, handled: 0, failed: 0, retried: 0, deadLettered: 0, backlog: 4, backlogAgeMs: 250 },
    ]);
  });

  it('thins out a failure that repeats at every flush', async () => {
    const store = new FlakyStore();
    store.down = true;
    const logger = recordingLogger();
    const recorder = new HistoryRecorder({ store, flushEveryMs: 3_600_000, logger, sample: () => undefined });
    for (let i = 0; i < 20; i++) {
      recorder.published(1);
      await recorder.flush();
    }
    expect(logger.at('warn').length).toBeLessThan(10);
    store.down = false;
    await recorder.close();
    expect(store.recorded.map((s) => s.published)).toEqual([20]);
  });
});
