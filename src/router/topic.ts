/** A topic as `GET /topics` shows it. */
export interface TopicRecord {
  /** `[a-z_]{1,64}`. */
  readonly name: string;
  /** The client that owns it (the first to publish to it), or `null` while nobody has published. */
  readonly publisher: string | null;
  /** How many events were published to it, ever. */
  readonly events: number;
}

/** The outcome of publishing to a topic. */
export type IngestResult =
  | {
      /** The events were queued for every subscriber of the topic. */
      readonly ok: true;
      /** How many subscribers the events were queued for. */
      readonly subscribers: number;
    }
  | {
      /** The topic belongs to another client: nothing was queued. */
      readonly ok: false;
      /** The client that owns the topic. */
      readonly owner: string;
    };
