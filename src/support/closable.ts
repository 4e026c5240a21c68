/** Something holding connections or timers that must be released. */
export interface Closable {
  /** Releases what it holds. */
  close(): Promise<void>;
}
