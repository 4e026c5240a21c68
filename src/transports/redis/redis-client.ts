import type { Cluster, Redis } from 'ioredis';

/** A connection to a single Redis or to a Redis Cluster; every command commitbus sends works on both. */
export type RedisClient = Redis | Cluster;
