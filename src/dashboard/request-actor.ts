import type { FastifyRequest } from 'fastify';
import type { OperatorOrigin } from '../support/operator-action-log.js';

/**
 * Who sent a dashboard action, for the audit trail: the HTTP Basic user name
 * when the request carries one (the access hook has checked it by then),
 * else `anonymous@<client address>`; the source is always `dashboard`.
 */
export function dashboardOrigin(request: FastifyRequest): OperatorOrigin {
  const match = /^Basic\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  const user =
    match === null
      ? ''
      : Buffer.from(match[1] as string, 'base64')
          .toString('utf8')
          .split(':')[0];
  return { source: 'dashboard', actor: user !== undefined && user !== '' ? user : `anonymous@${request.ip}` };
}
