import type { FastifyRequest } from 'fastify';
import type { OperatorOrigin } from '../support/operator-action-log.js';

/**
 * Who sent a dashboard action, for the bus's audit trail: source
 * `dashboard`, actor the user name of the request's HTTP Basic credentials
 * (checked by `basicAuth`, or let in by the `auth` hook), else
 * `anonymous@<remote address>`.
 */
export function dashboardOrigin(request: Pick<FastifyRequest, 'headers' | 'ip'>): OperatorOrigin {
  return {
    source: 'dashboard',
    actor: basicUser(request.headers.authorization) ?? `anonymous@${request.ip}`,
  };
}

function basicUser(header: string | undefined): string | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (match === null) return undefined;
  const given = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = given.indexOf(':');
  const user = colon < 0 ? given : given.slice(0, colon);
  return user === '' ? undefined : user;
}
