import type { FastifyRequest } from 'fastify';
import type { OperatorOrigin } from '../support/operator-action-log.js';
import { basicUser } from './request-guard.js';

/**
 * Who sent a dashboard action, for the audit trail: the HTTP Basic user name
 * when the request carries one (the access hook has checked it by then),
 * else `anonymous@<client address>`; the source is always `dashboard`.
 */
export function dashboardOrigin(request: Pick<FastifyRequest, 'headers' | 'ip'>): OperatorOrigin {
  return {
    source: 'dashboard',
    actor: basicUser(request.headers.authorization) ?? `anonymous@${request.ip}`,
  };
}
