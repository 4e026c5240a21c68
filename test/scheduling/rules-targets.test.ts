/**
 * What a scheduling rule may target (errors naming the known handlers and
 * keys), and the `rulesRefreshMs` setting.
 */
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/resolve-options.js';
import {
  createEventBus,
  DEFAULT_CONFIG,
  type EventHandlersConfig,
  loadConfigFromEnv,
  RuleTargetError,
} from '../../src/index.js';
import { TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { rulesBed } from './rules-bed.js';

const { buses, config } = rulesBed('rules-targets');

describe('scheduling rule targets and config', () => {
  const handlers: EventHandlersConfig = {
    RECORD: [[new Recorder().handler('target.audit'), true]],
    'RECORD.PUBLISH': [new Recorder().handler('target.index')],
  };

  it('names the known handlers or keys when a target is unknown or malformed', async () => {
    const bus = buses.create({ events: TEST_EVENTS, handlers, ...config('sqlite', 'targets') });
    const rejection = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.unreachable(),
        (e: unknown) => e,
      );

    const unknownHandler = await rejection(bus.rules.pause({ handler: 'target.idx' }));
    expect(unknownHandler).toBeInstanceOf(RuleTargetError);
    expect(unknownHandler).toMatchObject({
      code: 'COMMITBUS_RULE_TARGET',
      message:
        'no handler named "target.idx" in EVENT_HANDLERS (known: target.audit, target.index); name one of those handlers',
    });
    await expect(bus.rules.block({ handlingKey: 'RECORD.PUBLSH' })).rejects.toThrow(
      'no registered event has the handling key "RECORD.PUBLSH" or one below it (known: RECORD, RECORD.CREATE, RECORD.PUBLISH, RECORD.PUBLISH.EMBARGOED)',
    );
    await expect(
      bus.rules.pause({ handler: 'target.audit', handlingKey: 'RECORD' } as unknown as { handler: string }),
    ).rejects.toThrow(RuleTargetError);
    await expect(bus.rules.pause({} as { handler: string })).rejects.toThrow(
      "a rule target is { handler: 'name' } or { handlingKey: 'KEY' }, got {}",
    );
    await expect(bus.rules.blockedCount('nope')).rejects.toThrow(RuleTargetError);
    expect(await bus.rules.list()).toEqual([]);
    // A key with no handler of its own is still a key events have.
    expect(await bus.rules.pause({ handlingKey: 'RECORD.PUBLISH.EMBARGOED' })).toBe(true);
  });

  it('rulesRefreshMs defaults to 500, reads COMMITBUS_RULES_REFRESH_MS and must be positive', () => {
    expect(DEFAULT_CONFIG.scheduling.rulesRefreshMs).toBe(500);
    expect(loadConfigFromEnv({ COMMITBUS_RULES_REFRESH_MS: '250' }).scheduling.rulesRefreshMs).toBe(250);
    expect(() => resolveOptions({ rulesRefreshMs: 0 })).toThrow(
      'rulesRefreshMs must be a positive integer, got 0',
    );
    expect(() => createEventBus({ events: [], config: { rulesRefreshMs: 1.5 } })).toThrow(/rulesRefreshMs/);
  });
});
