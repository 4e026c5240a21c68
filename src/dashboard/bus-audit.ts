import type { EventBus } from '../bus/event-bus.js';
import type { OperatorAction } from '../support/operator-action-log.js';

/** How many operator actions the page shows. */
export const AUDIT_SHOWN = 20;

/** The newest {@link AUDIT_SHOWN} operator actions of the bus's audit trail, newest first. */
export function readAudit(bus: EventBus): Promise<OperatorAction[]> {
  return bus.audit.list({ limit: AUDIT_SHOWN });
}
