export { COMMITBUS_ENTITIES, COMMITBUS_MIGRATIONS } from './commitbus-schema.js';
