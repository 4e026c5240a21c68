export { COMMITBUS_TRACER_NAME } from './tracer.js';
