/**
 * Operations reads while Redis cannot be reached: `bus.status()` and the
 * dead-letter reads fail with a TransportUnavailableError naming the server
 * and what to check (as publish does), not ioredis's raw error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEventBus, type EventBus, TransportUnavailableError } from '../src/index.js';
import { TEST_EVENTS } from './helpers/events.js';

const open: EventBus[] = [];
afterEach(async () => {
  for (const bus of open.splice(0)) await bus.close();
});

function busOnClosedPort(): EventBus {
  // Port 1 on loopback: nothing listens there, so every connection is refused.
  const bus = createEventBus({
    events: TEST_EVENTS,
    config: {
      transport: 'bullmq',
      redis: { url: 'redis://:s3cret@127.0.0.1:1', prefix: 'i12-status-outage' },
    },
    logger: { info() {}, warn() {}, error() {} },
  });
  open.push(bus);
  return bus;
}

describe('with Redis unreachable', () => {
  it('bus.status() fails with TransportUnavailableError naming the server, never the password', async () => {
    const error = await busOnClosedPort()
      .status()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect((error as Error).message).toMatch(
      /^could not read the bus status on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: .*Is the server running, and is REDIS_URL \(redis\.url\) right\?$/,
    );
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('dead-letter reads fail the same way', async () => {
    const error = await busOnClosedPort()
      .deadLetters.list({ limit: 10 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect((error as Error).message).toMatch(
      /^could not list dead letters on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1/,
    );
  });
});
