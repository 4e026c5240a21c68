/** Where and how one subscriber's batches are delivered. */
export interface WebhookTarget {
  /** The https URL batches are POSTed to. */
  readonly callback: string;
  /** The HTTP Basic username (password `x`), `null` to send no credentials; never in logs or errors. */
  readonly uuid: string | null;
  /** Standard Webhooks secrets (`whsec_…`); none for unsigned deliveries. */
  readonly signingSecrets: readonly string[];
}

/** The outcome of one delivery. */
export type DeliveryOutcome =
  | {
      /** The subscriber answered 2xx. */
      readonly ok: true;
      /** Its status. */
      readonly status: number;
    }
  | {
      /** It did not: another status, a timeout, or no connection. */
      readonly ok: false;
      /** A short reason: `HTTP 503`, `ECONNREFUSED`, `timed out after 20000 ms`. Never the credentials. */
      readonly error: string;
      /** The status it answered, when it answered at all. */
      readonly status?: number;
    };
