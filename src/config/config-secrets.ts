import type { RedisOptions } from './option-groups.js';
import { parseClusterNode } from './redis-cluster-node.js';

/**
 * The passwords in a configuration's Redis settings, each as written and
 * percent-decoded, for masking in errors and logs: from `redis.url`, the URL
 * nodes of `redis.cluster`, and an ioredis Cluster's `redisOptions`.
 */
export function secretsOf(redis: Pick<RedisOptions, 'url' | 'cluster'>): string[] {
  const secrets = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value !== 'string' || value === '') return;
    secrets.add(value);
    secrets.add(encodeURIComponent(value));
    try {
      secrets.add(decodeURIComponent(value));
    } catch {
      // Not percent-encoded: as written is all there is.
    }
  };
  const cluster = redis.cluster;
  if (cluster === undefined) {
    add(passwordOf(redis.url));
  } else if (Array.isArray(cluster)) {
    for (const node of cluster) {
      if (typeof node === 'string')
        add(passwordOf(/^[a-z][a-z0-9+.-]*:\/\//i.test(node) ? node : `redis://${node}`));
      else add(safeParse(node)?.password);
    }
  } else {
    const options = (cluster as { options?: { redisOptions?: { password?: unknown } } }).options;
    add(options?.redisOptions?.password);
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** The password part of a URL as written (percent-encoded), or `undefined`. */
function passwordOf(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password === '' ? undefined : password;
  } catch {
    // Unparsable: the part between the first ":" after "//" and the last "@".
    return /^[a-z][a-z0-9+.-]*:\/\/[^:@/]*:(.*)@[^@]*$/is.exec(url)?.[1];
  }
}

function safeParse(node: Parameters<typeof parseClusterNode>[0]) {
  try {
    return parseClusterNode(node);
  } catch {
    return undefined;
  }
}
