import { createHmac } from 'node:crypto';
import { RouterUsageError } from '../errors/router-usage.error.js';

/** The Standard Webhooks headers of one signed delivery. */
export interface WebhookSignatureHeaders {
  /** The message id: the batch id, stable across retries so receivers can skip a repeat. */
  readonly 'webhook-id': string;
  /** When it was signed, seconds since the epoch. */
  readonly 'webhook-timestamp': string;
  /** `v1,<base64 HMAC-SHA256>` per secret, space-separated (two during a rotation). */
  readonly 'webhook-signature': string;
}

/**
 * Signs a body in the Standard Webhooks form: with each secret (`whsec_`
 * prefix stripped, the rest base64), `v1,` + base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}`. Throws a `TypeError` (naming no secret) when a
 * secret is not base64 or is empty.
 */
export function signWebhook(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): WebhookSignatureHeaders {
  const timestamp = String(timestampSeconds);
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = secrets.map((secret, i) => {
    const key = secretKey(secret, i);
    return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function secretKey(secret: string, index: number): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!BASE64.test(encoded)) {
    throw new RouterUsageError(
      `signing secret #${index + 1} is not base64 (after its whsec_ prefix): give secrets as whsec_<base64>`,
    );
  }
  return Buffer.from(encoded, 'base64');
}
