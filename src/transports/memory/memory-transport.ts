import type { CommitbusConfig } from '../../config/config.js';
import type { TransportSettings } from '../../config/transport-settings.js';
import { MemoryTransport } from './memory.transport.js';

/**
 * The in-process adapter as a value, for `createEventBus({ transport:
 * memoryTransport() })`: events and handler jobs in this process's memory,
 * handled by a worker started in this process, lost when it stops (tests,
 * the demo, a single process).
 */
export function memoryTransport(): {
  readonly name: 'memory';
  readonly settings: TransportSettings;
  open(context: { readonly config: CommitbusConfig }): MemoryTransport;
} {
  return {
    name: 'memory',
    settings: { transport: 'memory' },
    open: ({ config }) => new MemoryTransport(config),
  };
}
