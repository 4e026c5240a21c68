import { SubscriptionHandlerTimeoutError } from '../errors/subscription-handler-timeout.error.js';
import type { HistoryEvent } from '../store-event.js';
import type { SubscriptionHandler } from './subscription-options.js';

/** How one call of a handler ended: it finished, or with what it threw (a timeout too). */
export type HandlerOutcome = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

/**
 * Calls `handle` with `event`, its signal aborted when `lease` is (a stop or
 * a lost lease) or after `timeoutMs`; then the call fails with
 * {@link SubscriptionHandlerTimeoutError} and is abandoned (not stopped).
 */
export async function runHandler(
  handle: SubscriptionHandler,
  event: HistoryEvent,
  context: { name: string; attempt: number; lease: AbortSignal; timeoutMs: number },
): Promise<HandlerOutcome> {
  const timeout = new AbortController();
  const signal = AbortSignal.any([context.lease, timeout.signal]);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new SubscriptionHandlerTimeoutError(context.name, event.v, context.timeoutMs);
      timeout.abort(error);
      reject(error);
    }, context.timeoutMs);
  });
  try {
    const call = Promise.resolve().then(() =>
      handle(event, { name: context.name, attempt: context.attempt, signal }),
    );
    // An abandoned call that fails later must not be an unhandled rejection.
    call.catch(() => {});
    await Promise.race([call, late]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}
