import { ConfigError } from './errors/config.error.js';
import { redactRedisUrl } from './redis-url.js';

/**
 * One node of a Redis Cluster: `'host:port'`, a `redis://` or `rediss://` URL
 * (whose user and password, and TLS for `rediss:`, apply to every node), or
 * `{ host, port }`.
 */
export type RedisClusterNode = string | { readonly host: string; readonly port: number };

/** A {@link RedisClusterNode} taken apart. */
export interface ParsedClusterNode {
  readonly host: string;
  readonly port: number;
  /** From a URL node. */
  readonly username?: string;
  /** From a URL node. */
  readonly password?: string;
  /** A `rediss://` node. */
  readonly tls: boolean;
}

/**
 * Takes a node apart; throws {@link ConfigError} naming it (without its
 * password) when it is not `host:port`, a Redis URL or `{ host, port }`.
 */
export function parseClusterNode(node: RedisClusterNode): ParsedClusterNode {
  const problem = () =>
    new ConfigError(
      `redisCluster nodes must be "host:port", a redis:// or rediss:// URL, or { host, port } with a port from 1 to 65535, got ${describeClusterNode(node)}`,
    );
  if (typeof node === 'object' && node !== null) {
    if (typeof node.host !== 'string' || node.host === '' || !isPort(node.port)) throw problem();
    return { host: node.host, port: node.port, tls: false };
  }
  if (typeof node !== 'string') throw problem();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(node) ? node : `redis://${node}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw problem();
  }
  const port = url.port === '' ? 6379 : Number(url.port);
  if (!/^rediss?:$/.test(url.protocol) || url.hostname === '' || !isPort(port)) throw problem();
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    ...(url.username !== '' ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== '' ? { password: decodeURIComponent(url.password) } : {}),
    tls: url.protocol === 'rediss:',
  };
}

/** How a node is named in logs and errors: `host:port`, never its password. */
function describeClusterNode(node: RedisClusterNode): string {
  if (typeof node === 'object' && node !== null) return `${String(node.host)}:${String(node.port)}`;
  return JSON.stringify(redactRedisUrl(String(node)));
}

function isPort(port: unknown): port is number {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65_535;
}
