import { notFound } from '../../errors/api.error.js';
import { clientOf } from '../basic-auth.js';
import type { RouteContext } from '../route-context.js';
import { generateSigningSecret } from '../signing-secret.js';

/**
 * Beyond Routemaster, for the calling client's subscriber:
 * `POST /subscriber/pause` and `/subscriber/resume` (204);
 * `POST /subscriber/signing_secret` (201 `{secret}`: deliveries are signed
 * with it from now on, and with the previous secret too until
 * `DELETE /subscriber/signing_secret/previous`); and
 * `DELETE /subscriber/signing_secret` to send unsigned deliveries again.
 * Each is one atomic store operation, so overlapping calls (or a
 * resubscription) cannot undo one another.
 */
export function registerSubscriberExtraRoutes({ app, deps, auth }: RouteContext): void {
  const client = { onRequest: auth.guard(['client']) };

  for (const [path, paused] of [
    ['/subscriber/pause', true],
    ['/subscriber/resume', false],
  ] as const) {
    app.post(path, client, async (request, reply) => {
      if (!(await deps.subscribers.setPaused(clientOf(request), paused))) throw noSubscriber();
      reply.code(204).send();
    });
  }

  app.post('/subscriber/signing_secret', client, async (request, reply) => {
    const secret = generateSigningSecret();
    // The newest first; the one before stays for the receivers still on it (rotation), at most two.
    if (!(await deps.subscribers.addSigningSecret(clientOf(request), secret))) throw noSubscriber();
    reply.code(201);
    return { secret };
  });

  app.delete('/subscriber/signing_secret/previous', client, async (request, reply) => {
    const outcome = await deps.subscribers.removeSigningSecrets(clientOf(request), 'previous');
    if (outcome === 'no-subscriber') throw noSubscriber();
    if (outcome === 'none') {
      throw notFound('no_previous_secret', 'there is no previous signing secret to retire');
    }
    reply.code(204).send();
  });

  app.delete('/subscriber/signing_secret', client, async (request, reply) => {
    const outcome = await deps.subscribers.removeSigningSecrets(clientOf(request), 'all');
    if (outcome === 'no-subscriber') throw noSubscriber();
    reply.code(204).send();
  });
}

function noSubscriber() {
  return notFound('no_subscriber', 'this client has no subscription: POST /subscription first');
}
