export { createTestBus, type TestBusOptions, TestEventBus } from './test-event-bus.js';
