import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../.ci/services', import.meta.url));

/**
 * Before any test: starts Redis, the local Redis Cluster and PostgreSQL
 * with `.ci/services` when they are installed but not running (a no-op when
 * they run), and fails at once, saying what to install, when one is missing,
 * instead of hundreds of connection errors.
 */
export default function startServices(): void {
  try {
    execFileSync(SCRIPT, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 90_000 });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(stderr || `${SCRIPT} failed: ${String(error)}`);
  }
}
