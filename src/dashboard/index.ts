/**
 * `commitbus/dashboard`: the operations dashboard (a page, a JSON API and
 * bull-board for the BullMQ queues).
 * @module commitbus/dashboard
 */

export type { HistoryView } from './bus-history.js';
export type {
  DashboardAuth,
  DashboardBasicAuth,
  DashboardBullBoardOptions,
  DashboardOptions,
  DashboardRequest,
  RunningDashboard,
} from './dashboard-options.js';
export type {
  DashboardSnapshot,
  EventStoreView,
  HaltedSubscriptionView,
  QueueView,
  SnapshotPart,
  SubscriberView,
  Unavailable,
} from './dashboard-snapshot.js';
export { BullBoardMissingError } from './errors/bull-board-missing.error.js';
export { DashboardRequestError } from './errors/dashboard-request.error.js';
export { SelectionChangedError } from './errors/selection-changed.error.js';
export { dashboardFor, startDashboard } from './start-dashboard.js';
