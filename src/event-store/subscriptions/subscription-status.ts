/** Why a subscription's event failed: its handler threw, or history it needs was pruned. */
export interface SubscriptionFailure {
  /** `handler`: the handler threw; `gap`: history rows it has not consumed are gone (pruned). */
  readonly reason: 'handler' | 'gap';
  /** The version it failed at (the first missing one, for a gap). */
  readonly v: number;
  /** The event's type (empty for a gap). */
  readonly type: string;
  /** The error's name. */
  readonly name: string;
  /** The error's message. */
  readonly message: string;
  /** The error's stack, when it had one. */
  readonly stack?: string;
  /** Epoch ms of the failure. */
  readonly at: number;
  /** Tries of that event so far. */
  readonly attempts: number;
}

/** Where a durable subscription stands, read from its checkpoint row (any process). */
export interface SubscriptionStatus {
  /** Its name. */
  readonly name: string;
  /** The last version it consumed. */
  readonly position: number;
  /** Versions handled by the store that it has not consumed yet. */
  readonly lag: number;
  /** `active`, or `halted` at `position + 1` until `store.subscriptions.resume` or `reset`. */
  readonly status: 'active' | 'halted';
  /** Failed tries of the event at `position + 1`. */
  readonly attempts: number;
  /** The last failure, while it retries or is halted. */
  readonly error?: SubscriptionFailure;
  /** The process consuming it (`host:pid:id`) while its lease runs, else undefined. */
  readonly owner?: string;
  /** Epoch ms of the checkpoint row's last change. */
  readonly updatedAt: number;
}
