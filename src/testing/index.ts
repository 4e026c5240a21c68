/**
 * `commitbus/testing`: an in-process bus for unit tests that records what was published.
 * @module commitbus/testing
 */
export { TestBusNotStartedError } from './errors/test-bus-not-started.error.js';
export { createTestBus, type TestBusOptions, TestEventBus } from './test-event-bus.js';
