import { memoryTransport } from '../memory/memory-transport.js';

/**
 * The adapter a bus opens when given none (`createEventBus({ events })`):
 * the embedded default, in this process (the demo, tests, one process). It
 * is the one place above the adapters that names one, so the bus room names
 * none.
 */
export function defaultTransport(): ReturnType<typeof memoryTransport> {
  return memoryTransport();
}
