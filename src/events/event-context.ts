/**
 * Who or what caused an event: copied from the request that started the unit
 * of work. All fields are optional; add your own as needed.
 */
export interface EventContext {
  /** The acting user, if any. */
  userId?: string;
  /** The request (or trace) that caused the event. */
  requestId?: string;
  /** The client address of that request. */
  ip?: string;
  /** Anything else that is JSON-serializable. */
  [key: string]: string | number | boolean | null | undefined;
}
