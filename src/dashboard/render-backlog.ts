import type { BusStatus } from '../bus/bus-status.js';
import { type DashboardSnapshot, isUnavailable, type QueueView } from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';
import { age } from './render-format.js';
import { unavailableSection } from './render-parts.js';

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'];

/**
 * `bus.status()`'s counts (each `dd` named by `data-field`, so the page's
 * script can tell which changed), its handlers, and the BullMQ queues' job
 * counts with their state (a queue in `status.pausedQueues` flagged).
 */
export function backlogSection(snapshot: DashboardSnapshot): SafeHtml {
  const s = snapshot.status;
  if (isUnavailable(s)) return unavailableSection('backlog', 'Backlog', s);
  return html`<section id="backlog"><h2>Backlog</h2>
<dl class="counts">${countsOf(s).map(([field, label, n]) => html`<div><dt>${label}</dt><dd data-field="${field}">${n}</dd></div>`)}</dl>
${handlersTable(s)}${queuesPart(snapshot, new Set(s.pausedQueues))}</section>`;
}

function countsOf(s: BusStatus): [string, string, number | string][] {
  return [
    ['events', 'events waiting', s.backlog.events],
    ['oldest', 'oldest waiting', s.backlog.oldestAgeMs === null ? '-' : age(s.backlog.oldestAgeMs)],
    ['delayed', 'delayed', s.backlog.delayed],
    ['ordered', 'ordered in lanes', s.backlog.ordered],
    ['jobs-waiting', 'jobs waiting', s.jobs.waiting],
    ['jobs-running', 'jobs running', s.jobs.running],
    ['jobs-retrying', 'jobs retrying', s.jobs.retrying],
    ['parked', 'parked by pauses', s.parked],
    ['dropped', 'dropped by blocks', s.dropped],
    ['dead-letters', 'dead letters', s.deadLetters.count],
    ...(s.outbox === null
      ? []
      : ([['outbox', 'outbox rows', s.outbox.pending]] as [string, string, number][])),
  ];
}

function handlersTable(s: BusStatus): SafeHtml | string {
  const handlers = Object.entries(s.handlers);
  if (handlers.length === 0) return '';
  return html`<table id="handlers"><thead><tr><th>handler</th><th class="n">waiting</th><th class="n">running</th><th class="n">retrying</th><th class="n">parked</th><th class="n">dead letters</th></tr></thead><tbody>${handlers.map(
    ([name, h]) =>
      html`<tr><td>${name}</td><td class="n">${h.waiting}</td><td class="n">${h.running}</td><td class="n">${h.retrying}</td><td class="n">${h.parked}</td><td class="n">${h.deadLetters}</td></tr>`,
  )}</tbody></table>`;
}

function queuesPart(snapshot: DashboardSnapshot, paused: ReadonlySet<string>): SafeHtml {
  const views = snapshot.queues;
  if (isUnavailable(views)) {
    return html`<p class="error unavailable">BullMQ queues unavailable: ${views.unavailable}</p>`;
  }
  if (views.length === 0) {
    return html`<p class="note">The ${snapshot.transport} transport has no BullMQ queues: only commitbus's own views are shown.</p>`;
  }
  return html`<table id="queues"><thead><tr><th>BullMQ queue</th><th>state</th>${STATES.map((st) => html`<th class="n">${st}</th>`)}</tr></thead><tbody>${views.map((q) => queueRow(q, paused.has(q.name)))}</tbody></table>`;
}

function queueRow(q: QueueView, paused: boolean): SafeHtml {
  const state = paused
    ? html`<td class="warn-text"><span class="label">paused</span>no job taken until resumed</td>`
    : html`<td class="ok-text">running</td>`;
  return html`<tr data-queue="${q.name}"${paused ? html` class="warn"` : ''}><td>${q.name}</td>${state}${STATES.map((st) => html`<td class="n">${q.counts[st] ?? 0}</td>`)}</tr>`;
}
