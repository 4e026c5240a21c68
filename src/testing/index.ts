/**
 * `commitbus/testing`: an in-process bus for unit tests that records what was published.
 * @module commitbus/testing
 */
export { createTestBus, type TestBusOptions, TestEventBus } from './test-event-bus.js';
