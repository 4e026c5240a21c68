export { TestBusNotStartedError } from './errors/test-bus-not-started.error.js';
export { createTestBus, type TestBusOptions, TestEventBus } from './test-event-bus.js';
