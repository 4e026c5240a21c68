import type { EventBus } from '../bus/event-bus.js';

/** An operator action from the bus's audit trail (`bus.audit.list()`). */
export interface AuditEntryView {
  /** Its id. */
  readonly id: string;
  /** When it was taken. */
  readonly at: Date;
  /** Who took it (`user@host` by default). */
  readonly actor: string;
  /** Where from. */
  readonly source: 'cli' | 'dashboard' | 'api';
  /** What was done, e.g. `dead-letters.redrive`. */
  readonly action: string;
  /** What it was done to, e.g. a handler or a letter id. */
  readonly target: string;
  /** How many things it changed, when it counts them. */
  readonly count: number | null;
}

/** How many operator actions the page shows. */
export const AUDIT_SHOWN = 20;

// Typed here, not imported: the action log may be missing from the bus the dashboard was given.
interface WithAudit {
  readonly audit?: { list(options?: { limit?: number }): Promise<AuditEntryView[]> };
}

/** Whether `bus` keeps an audit trail of operator actions. */
export function hasAudit(bus: EventBus): boolean {
  return typeof (bus as unknown as WithAudit).audit?.list === 'function';
}

/** The newest {@link AUDIT_SHOWN} operator actions, newest first (none when the bus keeps no trail). */
export async function readAudit(bus: EventBus): Promise<AuditEntryView[]> {
  const audit = (bus as unknown as WithAudit).audit;
  if (audit === undefined) return [];
  return audit.list({ limit: AUDIT_SHOWN });
}
