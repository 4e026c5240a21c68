import type { BusStatus } from '../bus/bus-status.js';
import { type DashboardSnapshot, isUnavailable } from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';
import { flagged } from './render-format.js';

/** Something the operator should look at: `attention` (red) or `warn` (amber), with a label in words. */
interface Flag {
  readonly id: string;
  readonly level: 'attention' | 'warn';
  readonly label: string;
  readonly text: string;
}

/** Work the bus has that a worker must take: events, ordered events and handler jobs waiting. */
export function workWaiting(status: BusStatus): number {
  return status.backlog.events + status.backlog.ordered + status.jobs.waiting + status.jobs.retrying;
}

/**
 * What needs attention now, at the top of the page: no worker alive while
 * work waits, halted order keys, a halted event store or subscription,
 * pause and block rules in force, a paused BullMQ queue, the bus's status
 * unreadable. The page's script adds
 * dead letters growing (since its last read, or in the last minutes of
 * history) to the same list.
 */
export function attentionSection(snapshot: DashboardSnapshot): SafeHtml {
  const flags = flagsOf(snapshot);
  return html`<section id="attention" aria-live="polite"><h2>Needs attention <span class="badge" id="attention-count">${flags.length}</span></h2>
<ul>${flags.map((f) => html`<li class="${f.level}" data-attention="${f.id}">${flagged(f.label, f.text)}</li>`)}<li class="attention" data-attention="dead-letters-growing" id="dead-letters-growing" hidden></li></ul>
<p class="ok-text" id="all-clear"${flags.length > 0 ? html` hidden` : ''}>Nothing needs attention.</p></section>`;
}

function flagsOf(snapshot: DashboardSnapshot): Flag[] {
  const flags: Flag[] = [];
  const { status, halted, eventStore } = snapshot;
  if (isUnavailable(status)) {
    flags.push({
      id: 'status',
      level: 'attention',
      label: 'unavailable',
      text: `bus status: ${status.unavailable}`,
    });
  } else if (status.workers.alive === 0 && workWaiting(status) > 0) {
    const waiting = workWaiting(status);
    flags.push({
      id: 'no-worker',
      level: 'attention',
      label: 'no worker',
      text: `No worker alive while ${waiting} event(s) and job(s) wait.`,
    });
  }
  if (!isUnavailable(halted) && halted.length > 0) {
    const keys = halted.map((h) => h.key).join(', ');
    flags.push({
      id: 'halted-keys',
      level: 'attention',
      label: 'halted',
      text: `${halted.length} order key lane(s) halted: ${keys}.`,
    });
  }
  if (!isUnavailable(snapshot.rules) && snapshot.rules.length > 0) {
    const rules = snapshot.rules.map(
      (r) => `${r.kind} ${'handler' in r.target ? r.target.handler : r.target.handlingKey}`,
    );
    flags.push({
      id: 'rules',
      level: 'warn',
      label: 'rules',
      text: `${rules.length} pause or block rule(s) in force: ${rules.join(', ')}.`,
    });
  }
  if (!isUnavailable(status)) {
    const paused = status.pausedQueues;
    if (paused.length > 0) {
      flags.push({
        id: 'paused-queues',
        level: 'warn',
        label: 'paused',
        text: `BullMQ queue(s) paused: ${paused.join(', ')} (their jobs wait until resumed).`,
      });
    }
  }
  if (eventStore !== undefined && !isUnavailable(eventStore)) {
    if (eventStore.halted !== undefined) {
      flags.push({
        id: 'event-store-halted',
        level: 'attention',
        label: 'halted',
        text: `Event store halted at v${eventStore.halted.v} (${eventStore.halted.type}).`,
      });
    }
    for (const s of eventStore.haltedSubscriptions) {
      flags.push({
        id: `subscription-${s.name}`,
        level: 'attention',
        label: 'halted',
        text: `Event store subscription ${s.name} halted at v${s.v}.`,
      });
    }
  }
  return flags;
}
