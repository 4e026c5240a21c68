/** The kinds of change a Routemaster event announces. */
export const ROUTER_EVENT_TYPES = ['create', 'update', 'delete', 'noop'] as const;

/** One of {@link ROUTER_EVENT_TYPES}. */
export type RouterEventType = (typeof ROUTER_EVENT_TYPES)[number];

/**
 * An event as the router stores and delivers it: the JSON object a
 * subscriber receives in its batch (`data` left out when there is none).
 */
export interface RouterEvent {
  /** The topic it was published to. */
  readonly topic: string;
  /** What happened to the entity. */
  readonly type: RouterEventType;
  /** The entity's URL. */
  readonly url: string;
  /** When it happened (the publisher's timestamp, or when it was received), epoch ms. */
  readonly t: number;
  /** Optional payload, a JSON object. */
  readonly data?: Readonly<Record<string, unknown>>;
}
