import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import type { RouterStores } from '../../router/router-stores.js';
import { MemoryTransport } from './memory.transport.js';
import { memoryRouterStores } from './memory-router-stores.js';

/**
 * The in-process adapter as a value, for `createEventBus({ transport:
 * memoryTransport() })`, and what a bus given no adapter opens: events and
 * handler jobs in this process's memory, handled by a worker started in this
 * process, lost when it stops (tests, the demo, a single process).
 */
export function memoryTransport(): {
  readonly name: 'memory';
  readonly inProcess: true;
  open(context: { readonly config: ResolvedCommitbusOptions }): MemoryTransport;
  routerStores(context: unknown, shared: { readonly deadLetters?: DeadLetterStore }): RouterStores;
} {
  return {
    name: 'memory',
    inProcess: true,
    open: ({ config }) => new MemoryTransport(config),
    routerStores: (_context, shared) => memoryRouterStores(shared),
  };
}
