import type { FastifyRequest } from 'fastify';
import type { OperatorOrigin } from '../support/operator-action-log.js';
import { basicUser } from './request-guard.js';

/**
 * Who sent a dashboard action, for the audit trail: the HTTP Basic user name
 * when the dashboard checks Basic credentials (`basicChecked`: `basicAuth`
 * is set, so the access hook has checked them by then), else
 * `anonymous@<client address>`: a user name nothing checked is not trusted,
 * so a client cannot write another's name into the trail. The source is
 * always `dashboard`.
 */
export function dashboardOrigin(
  request: Pick<FastifyRequest, 'headers' | 'ip'>,
  basicChecked: boolean,
): OperatorOrigin {
  const user = basicChecked ? basicUser(request.headers.authorization) : undefined;
  return { source: 'dashboard', actor: user ?? `anonymous@${request.ip}` };
}
