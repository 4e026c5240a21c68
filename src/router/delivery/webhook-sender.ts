import { Agent, request } from 'undici';
import type { TraceCarrier } from '../../events/trace-carrier.js';
import { inClientSpan } from '../../tracing/internal-span.js';
import { signWebhook } from './webhook-signature.js';
import type { DeliveryOutcome, WebhookTarget } from './webhook-target.js';

/** How {@link WebhookSender} connects. */
export interface WebhookSenderOptions {
  /**
   * Give up connecting (TCP and TLS) after this long.
   * @defaultValue 2_000
   */
  readonly connectTimeoutMs?: number;
  /**
   * Give up on a request (its answer's headers and body) after this long.
   * @defaultValue 20_000
   */
  readonly requestTimeoutMs?: number;
  /**
   * Certificate authorities trusted for https callbacks, PEM.
   * @defaultValue Node's bundled root certificates
   */
  readonly ca?: string | readonly string[];
  /**
   * Check callbacks' certificates; `false` only for development (Routemaster's `ROUTEMASTER_SSL_VERIFY`).
   * @defaultValue true
   */
  readonly verifyTls?: boolean;
  /**
   * Open connections kept per origin.
   * @defaultValue 32
   */
  readonly connectionsPerOrigin?: number;
  /** The clock, for `webhook-timestamp`. @defaultValue `Date.now` */
  readonly now?: () => number;
}

/**
 * POSTs batches to subscribers with undici: a JSON array of the batch's
 * events, HTTP Basic `<uuid>:x` (none without a uuid), keep-alive connections pooled per origin,
 * Standard Webhooks signatures when the target has secrets. Any 2xx is a
 * success; anything else, a timeout or a connection error is a failure
 * described in a few words (never the credentials).
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly requestTimeoutMs: number;
  private readonly now: () => number;

  constructor(options: WebhookSenderOptions = {}) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 20_000;
    this.now = options.now ?? Date.now;
    const ca = typeof options.ca === 'string' ? options.ca : options.ca?.slice();
    this.agent = new Agent({
      connect: {
        timeout: options.connectTimeoutMs ?? 2_000,
        rejectUnauthorized: options.verifyTls ?? true,
        ...(ca !== undefined ? { ca } : {}),
      },
      connections: options.connectionsPerOrigin ?? 32,
      headersTimeout: this.requestTimeoutMs,
      bodyTimeout: this.requestTimeoutMs,
    });
  }

  /**
   * Delivers `events` (each a JSON object as a string) to `target` as the
   * batch `batchId`, in a CLIENT span `router deliver` whose context goes to
   * the subscriber as `traceparent` (and `tracestate`).
   */
  send(target: WebhookTarget, batchId: string, events: readonly string[]): Promise<DeliveryOutcome> {
    return inClientSpan(
      'router deliver',
      () => ({
        'http.request.method': 'POST',
        'server.address': hostOf(target.callback),
        'messaging.batch.message_count': events.length,
        'commitbus.router.batch_id': batchId,
      }),
      (carrier) => this.post(target, batchId, events, carrier),
      (outcome) =>
        outcome.ok ? { 'http.response.status_code': outcome.status } : { 'error.type': outcome.error },
    );
  }

  private async post(
    target: WebhookTarget,
    batchId: string,
    events: readonly string[],
    carrier: TraceCarrier | undefined,
  ): Promise<DeliveryOutcome> {
    const body = `[${events.join(',')}]`;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...carrier };
    // A subscriber that gave no uuid gets no credentials (Routemaster would send an empty username).
    if (target.uuid !== null) {
      headers.authorization = `Basic ${Buffer.from(`${target.uuid}:x`).toString('base64')}`;
    }
    const signal = AbortSignal.timeout(this.requestTimeoutMs);
    try {
      if (target.signingSecrets.length > 0) {
        Object.assign(
          headers,
          signWebhook(batchId, Math.floor(this.now() / 1000), body, target.signingSecrets),
        );
      }
      const response = await request(target.callback, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        signal,
      });
      // Read the answer to its end, so the connection goes back to the pool.
      await response.body.dump({ limit: 1 << 20, signal });
      if (response.statusCode >= 200 && response.statusCode < 300)
        return { ok: true, status: response.statusCode };
      return { ok: false, error: `HTTP ${response.statusCode}`, status: response.statusCode };
    } catch (error) {
      return {
        ok: false,
        error: signal.aborted ? `timed out after ${this.requestTimeoutMs} ms` : reasonOf(error),
      };
    }
  }

  /** Closes the pooled connections once requests under way are done. */
  close(): Promise<void> {
    return this.agent.close();
  }
}

// A code (ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT, CERT_HAS_EXPIRED...) says enough; a message could carry a URL.
function reasonOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string') return code;
    if (error instanceof TypeError) return `bad request: ${error.message}`;
    if (typeof name === 'string') return name;
  }
  return 'delivery failed';
}

/** The host of a callback URL, for the span (never its path or query). */
function hostOf(callback: string): string {
  try {
    return new URL(callback).hostname;
  } catch {
    return 'unknown';
  }
}
