/** An event as it travels: its id and key in the clear, the rest as JSON. */
export interface SerializedEvent {
  /** The event's id. */
  readonly id: string;
  /** The event's handling key. */
  readonly key: string;
  /** The JSON envelope `{ v, key, event, trace? }` produced by `EventSerializer`. */
  readonly payload: string;
}
