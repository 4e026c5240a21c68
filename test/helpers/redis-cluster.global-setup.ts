import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../.ci/redis-cluster', import.meta.url));

/**
 * Before the `redis-cluster` project: starts the local three-master cluster
 * with `.ci/redis-cluster` (a no-op when it runs already), unless
 * `REDIS_CLUSTER_NODES` names a cluster of the caller's own.
 */
export default function startLocalCluster(): void {
  if (process.env.REDIS_CLUSTER_NODES) return;
  execFileSync(SCRIPT, { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
}
