/**
 * How a Redis Cluster is configured: `redisCluster` (nodes or an ioredis `Cluster`) and
 * `REDIS_CLUSTER_NODES`, validated at construction with errors that name the node but never its
 * password. No server is needed; test/transports/redis/redis-cluster.test.ts runs buses on a real cluster.
 */
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { parseClusterNode } from '../../src/config/redis-cluster-node.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { ConfigError, loadConfigFromEnv } from '../../src/index.js';
import { transportFromEnv } from '../../src/transports/select/index.js';

describe('redisCluster', () => {
  it('takes nodes as "host:port", Redis URLs (their login and TLS apply to every node) or { host, port }', () => {
    const nodes = [
      '10.0.0.1:7000',
      'rediss://app:pa%3Ass@cache.internal:7001',
      { host: '10.0.0.3', port: 7002 },
    ];
    expect(resolveOptions({ redis: { cluster: nodes } }).redis.cluster).toEqual(nodes);
    expect(nodes.map(parseClusterNode)).toEqual([
      { host: '10.0.0.1', port: 7000, tls: false },
      { host: 'cache.internal', port: 7001, username: 'app', password: 'pa:ss', tls: true },
      { host: '10.0.0.3', port: 7002, tls: false },
    ]);
    expect(parseClusterNode('redis://[::1]:7000')).toEqual({ host: '::1', port: 7000, tls: false });
  });

  it('leaves redis.url unchecked when a cluster is given', () => {
    const config = resolveOptions({ redis: { url: 'not a url', cluster: ['h:7000'] } });
    expect(config.redis.cluster).toEqual(['h:7000']);
  });

  it.each([
    ['no nodes', [], 'redis.cluster must list at least one node'],
    ['a port that is not a number', ['cache:http'], 'got "cache:http"'],
    ['a port out of range', [{ host: 'cache', port: 70_000 }], 'got cache:70000'],
    ['an empty host', [{ host: '', port: 7000 }], 'got :7000'],
    ['another scheme', ['http://cache:7000'], 'got "http://cache:7000"'],
  ])('refuses %s with a ConfigError naming the node', (_case, redisCluster, message) => {
    expect(() => resolveOptions({ redis: { cluster: redisCluster } })).toThrow(ConfigError);
    expect(() => resolveOptions({ redis: { cluster: redisCluster } })).toThrow(message);
  });

  it('never shows the password of a node it refuses', () => {
    const refuse = () => resolveOptions({ redis: { cluster: ['redis://app:hunter2@cache:notaport'] } });
    expect(refuse).toThrow('got "redis://***@cache:notaport"');
    expect(refuse).not.toThrow(/hunter2/);
  });

  it('takes an ioredis Cluster, but not one with a keyPrefix, nor something else', () => {
    const cluster = new Cluster(['127.0.0.1:7000'], { lazyConnect: true });
    expect(resolveOptions({ redis: { cluster } }).redis.cluster).toBe(cluster);
    const prefixed = new Cluster(['127.0.0.1:7000'], { lazyConnect: true, keyPrefix: 'app:' });
    expect(() => resolveOptions({ redis: { cluster: prefixed } })).toThrow(
      /has a keyPrefix.*use the redis.prefix option/,
    );
    const notACluster = { host: '127.0.0.1' } as unknown as Cluster;
    expect(() => resolveOptions({ redis: { cluster: notACluster } })).toThrow(
      'redis.cluster must be a list of nodes ("host:port" or { host, port }) or an ioredis Cluster',
    );
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  it('lists the nodes, separated by commas, and makes transportFromEnv pick the Redis adapter on them unless COMMITBUS_TRANSPORT says otherwise', () => {
    const env = { REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, 10.0.0.2:7000 ,,' };
    expect(loadConfigFromEnv(env)).toMatchObject({ redis: { cluster: ['10.0.0.1:7000', '10.0.0.2:7000'] } });
    const picked = transportFromEnv({ env });
    expect(picked.name).toBe('redis');
    expect('settings' in picked && picked.settings.redis).toEqual({
      cluster: ['10.0.0.1:7000', '10.0.0.2:7000'],
    });
    // `memory` asks for the embedded transport: SQLite in this process's memory.
    expect(transportFromEnv({ env: { ...env, COMMITBUS_TRANSPORT: 'memory' } })).toMatchObject({
      name: 'sqlite',
      inProcess: true,
    });
  });

  it('validates the nodes it read', () => {
    expect(() => loadConfigFromEnv({ REDIS_CLUSTER_NODES: 'cache:seven' })).toThrow(ConfigError);
  });
});

describe("ioredis's private Cluster API that failing fast relies on", () => {
  // src/transports/redis/redis-connections.ts (failFast) calls Cluster#flushQueue, private in ioredis's
  // types, to fail the commands queued while the first attempt to reach a cluster ran. Were it gone or
  // changed after an ioredis upgrade, publish on an unreachable cluster would wait without end again:
  // this fails first, saying why.
  it('flushQueue(error) still rejects the commands queued while no node was reached', async () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], {
      lazyConnect: true,
      clusterRetryStrategy: () => null,
    });
    cluster.on('error', () => {});
    try {
      const flushQueue = (cluster as unknown as { flushQueue?: unknown }).flushQueue;
      expect(
        typeof flushQueue,
        'ioredis Cluster#flushQueue is gone: see failFast in redis-connections.ts',
      ).toBe('function');
      const queued = cluster.get('k');
      (cluster as unknown as { flushQueue(error: Error): void }).flushQueue(new Error('flushed'));
      await expect(queued).rejects.toThrow('flushed');
    } finally {
      cluster.disconnect();
    }
  });
});
