/** What the dashboard shows for a read that gave `NO_ANSWER` (see `support/read-within`). */
export function noAnswerMessage(timeoutMs: number): string {
  return `no answer within ${timeoutMs} ms (the dashboard's readTimeoutMs): is the server overloaded or stopped?`;
}
