/**
 * `commitbus/dashboard`: the operations dashboard (a page, a JSON API and
 * bull-board for the BullMQ queues).
 */
export { BullBoardMissingError } from './bull-board-missing.error.js';
export type {
  DashboardAuth,
  DashboardBasicAuth,
  DashboardOptions,
  DashboardRequest,
  RunningDashboard,
} from './dashboard-options.js';
export { DashboardRequestError } from './dashboard-request.error.js';
export type {
  DashboardSnapshot,
  EventStoreView,
  QueueView,
  SnapshotPart,
  SubscriberView,
  Unavailable,
} from './dashboard-snapshot.js';
export { dashboardFor, startDashboard } from './start-dashboard.js';
