import type { CommitbusOptions } from '../config/commitbus-options.js';
import { DEFAULTS } from '../config/config.js';

/** The bus's name as its options give it, before they are resolved (for its logger's `bus` field). */
export function busNameOf(config: CommitbusOptions | undefined): string {
  const name = (config as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name !== '' ? name : DEFAULTS.name;
}
