/**
 * `commitbus/router`: the HTTP event router's parts (API, delivery worker,
 * upkeep, metrics, store ports) and its wiring, for running a router in a
 * process of your own or building on its stores.
 * @module commitbus/router
 */
export * from '../router/index.js';
export { type RunningRouter, type StartRouterDeps, startRouter } from './start-router.js';
