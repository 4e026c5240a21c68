/**
 * What the package root takes from the router room: running a router and
 * routing a service's events to topics. The rest (the API, workers, stores'
 * ports) is at `commitbus/router`.
 */
export { loadRouterOptionsFromEnv } from './load-router-options-from-env.js';
export type { RouterOptions, RouterRole } from './router-options.js';
export type { RouterStores } from './router-stores.js';
export { type TopicMessage, type TopicRouteOptions, topicRoute } from './topic-route.js';
