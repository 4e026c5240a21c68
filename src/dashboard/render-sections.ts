import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { HaltedKey } from '../ordering/halted-key.js';
import type { SchedulingRule } from '../scheduling/scheduling-rule.js';
import {
  type DashboardSnapshot,
  type EventStoreView,
  isUnavailable,
  type SnapshotPart,
  type SubscriberView,
} from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';

/** The dead-letter kinds, for a filter's choice. */
export const KINDS = ['handler', 'undecodable', 'event', 'webhook'];
/** The dead-letter reasons, for a filter's choice. */
export const REASONS = [
  'exhausted',
  'timeout',
  'non-retryable',
  'unknown-handler',
  'unknown-event-type',
  'malformed',
  'undeliverable',
  'crashed',
  'expired',
  'skipped-by-rebase',
];

/** A button that POSTs `body` to `path` (see `page-script.ts`). */
function action(label: string, path: string, body: object, confirm?: string): SafeHtml {
  return html`<button type="button" data-post="${path}" data-body="${JSON.stringify(body)}" data-confirm="${confirm}">${label}</button>`;
}

// A payload that is JSON is shown indented; anything else as it is (always as text).
function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

function time(at: Date | number): SafeHtml {
  const iso = new Date(at).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)}</time>`;
}

/** A section whose data could not be read: its title and `unavailable: <message>`. */
function unavailable(id: string, title: string, part: { readonly unavailable: string }): SafeHtml {
  return html`<section id="${id}"><h2>${title}</h2><p class="error unavailable">unavailable: ${part.unavailable}</p></section>`;
}

/** Renders `part` with `render`, or says why it is unavailable. */
function sectionOf<T>(
  part: SnapshotPart<T>,
  id: string,
  title: string,
  render: (value: T) => SafeHtml,
): SafeHtml {
  return isUnavailable(part) ? unavailable(id, title, part) : render(part);
}

function options(values: readonly string[]): SafeHtml {
  return html`<option value="">any</option>${values.map((v) => html`<option>${v}</option>`)}`;
}

/** `bus.status()`'s counts, its handlers, and the BullMQ queues' job counts. */
export function backlogSection(snapshot: DashboardSnapshot): SafeHtml {
  const s = snapshot.status;
  if (isUnavailable(s)) return unavailable('backlog', 'Backlog', s);
  const counts: [string, number | string][] = [
    ['events waiting', s.backlog.events],
    ['oldest waiting', s.backlog.oldestAgeMs === null ? '-' : age(s.backlog.oldestAgeMs)],
    ['delayed', s.backlog.delayed],
    ['ordered in lanes', s.backlog.ordered],
    ['jobs waiting', s.jobs.waiting],
    ['jobs running', s.jobs.running],
    ['jobs retrying', s.jobs.retrying],
    ['parked by pauses', s.parked],
    ['dropped by blocks', s.dropped],
    ['dead letters', s.deadLetters.count],
    ...(s.outbox === null ? [] : ([['outbox rows', s.outbox.pending]] as [string, number][])),
  ];
  const handlers = Object.entries(s.handlers);
  const perHandler =
    handlers.length === 0
      ? ''
      : html`<table id="handlers"><thead><tr><th>handler</th><th>waiting</th><th>running</th><th>retrying</th><th>parked</th><th>dead letters</th></tr></thead><tbody>${handlers.map(
          ([name, h]) =>
            html`<tr><td>${name}</td><td class="n">${h.waiting}</td><td class="n">${h.running}</td><td class="n">${h.retrying}</td><td class="n">${h.parked}</td><td class="n">${h.deadLetters}</td></tr>`,
        )}</tbody></table>`;
  const views = snapshot.queues;
  const queues = isUnavailable(views)
    ? html`<p class="error unavailable">BullMQ queues unavailable: ${views.unavailable}</p>`
    : views.length === 0
      ? html`<p class="note">The ${snapshot.transport} transport has no BullMQ queues: only commitbus's own views are shown.</p>`
      : html`<table id="queues"><thead><tr><th>BullMQ queue</th>${STATES.map((st) => html`<th>${st}</th>`)}</tr></thead><tbody>${views.map(
          (q) =>
            html`<tr><td>${q.name}</td>${STATES.map((st) => html`<td class="n">${q.counts[st] ?? 0}</td>`)}</tr>`,
        )}</tbody></table>`;
  return html`<section id="backlog"><h2>Backlog</h2>
<dl class="counts">${counts.map(([label, n]) => html`<div><dt>${label}</dt><dd>${n}</dd></div>`)}</dl>
${perHandler}${queues}</section>`;
}

function age(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'];

/** Dead letters with re-drive and purge (one, matching a filter, all). */
export function deadLettersSection(snapshot: DashboardSnapshot): SafeHtml {
  const letters = snapshot.deadLetters;
  if (isUnavailable(letters)) return unavailable('dead-letter-section', 'Dead letters', letters);
  const shown =
    snapshot.deadLetterCount > letters.length
      ? html`<p class="note">The oldest ${letters.length} of ${snapshot.deadLetterCount} are listed; <code>GET api/dead-letters?limit=</code> lists more.</p>`
      : '';
  const bulk =
    snapshot.deadLetterCount === 0
      ? html`<p class="empty">No dead letters.</p>`
      : html`<div class="bulk">${action('Re-drive all', '/api/dead-letters/redrive', { all: true }, `Re-drive all ${snapshot.deadLetterCount} dead letters?`)}
${action('Purge all', '/api/dead-letters/purge', { all: true }, `Delete all ${snapshot.deadLetterCount} dead letters without running them?`)}</div>
<form class="filter" data-post="/api/dead-letters/redrive" data-wrap="filter">
<label>handler <input name="handler"></label> <label>handling key <input name="handlingKey"></label>
<label>kind <select name="kind">${options(KINDS)}</select></label> <label>reason <select name="reason">${options(REASONS)}</select></label>
<button type="submit">Re-drive matching</button>
<button type="submit" data-path="/api/dead-letters/purge" data-confirm="Delete every dead letter matching this filter without running them?">Purge matching</button></form>
${shown}
<table id="dead-letters"><thead><tr><th>dead at</th><th>kind</th><th>handler</th><th>handling key</th><th>reason</th><th>attempts</th><th>error</th><th>payload</th><th></th></tr></thead>
<tbody>${letters.map(letterRow)}</tbody></table>`;
  return html`<section id="dead-letter-section"><h2>Dead letters <span class="badge">${snapshot.deadLetterCount}</span></h2>${bulk}</section>`;
}

function letterRow(letter: DeadLetter): SafeHtml {
  return html`<tr data-letter="${letter.id}"><td>${time(letter.deadAt)}</td><td>${letter.kind}</td><td>${letter.handler}</td>
<td>${letter.handlingKey}</td><td>${letter.reason}</td><td class="n">${letter.attempts.length}</td><td class="error">${letter.error}</td>
<td><details><summary>${letter.eventId ?? letter.id}</summary><pre class="payload">${pretty(letter.payload)}</pre></details></td>
<td class="actions">${action('Re-drive', '/api/dead-letters/redrive', { id: letter.id })}
${action('Purge', '/api/dead-letters/purge', { id: letter.id }, `Delete dead letter ${letter.id} without running it?`)}</td></tr>`;
}

/** Order keys halted by a handler that gave up, with re-drive and skip. */
export function haltedSection(part: SnapshotPart<readonly HaltedKey[]>): SafeHtml {
  return sectionOf(part, 'halted-section', 'Halted order keys', haltedKeys);
}

function haltedKeys(halted: readonly HaltedKey[]): SafeHtml {
  const body =
    halted.length === 0
      ? html`<p class="empty">No halted order keys.</p>`
      : html`<table id="halted"><thead><tr><th>order key</th><th>lane</th><th>handler</th><th>seq</th><th>reason</th><th>error</th><th>attempts</th><th>waiting</th><th>halted at</th><th></th></tr></thead>
<tbody>${halted.map(
          (
            h,
          ) => html`<tr data-key="${h.key}"><td>${h.key}</td><td>${h.lane}</td><td>${h.handler}</td><td class="n">${h.seq}</td><td>${h.reason}</td>
<td class="error">${h.error}</td><td class="n">${h.attempts}</td><td class="n">${h.waiting}</td><td>${time(h.haltedAt)}</td>
<td class="actions">${action('Re-drive', '/api/ordering/redrive', { key: h.key })}
${action('Skip', '/api/ordering/skip', { key: h.key }, `Give up the failed handler of ${h.key} for good (kept as a dead letter) and go on?`)}</td></tr>`,
        )}</tbody></table>`;
  return html`<section id="halted-section"><h2>Halted order keys <span class="badge">${halted.length}</span></h2>${body}</section>`;
}

/** Pause and block rules, with their removal and a form to add one. */
export function rulesSection(part: SnapshotPart<readonly SchedulingRule[]>): SafeHtml {
  return sectionOf(part, 'rules-section', 'Pause and block rules', ruleList);
}

function ruleList(rules: readonly SchedulingRule[]): SafeHtml {
  const rows = rules.map((rule) => {
    const [field, name] =
      'handler' in rule.target ? ['handler', rule.target.handler] : ['handlingKey', rule.target.handlingKey];
    const lift = rule.kind === 'pause' ? 'resume' : 'unblock';
    return html`<tr><td>${rule.kind}</td><td>${field === 'handler' ? 'handler' : 'handling key'}</td><td>${name}</td><td>${time(rule.since)}</td>
<td class="actions">${action(lift === 'resume' ? 'Resume' : 'Unblock', '/api/rules', { action: lift, [field]: name })}</td></tr>`;
  });
  const table =
    rules.length === 0
      ? html`<p class="empty">No rules: every handler runs.</p>`
      : html`<table id="rules"><thead><tr><th>rule</th><th>on</th><th>target</th><th>since</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  return html`<section id="rules-section"><h2>Pause and block rules</h2>${table}
<form class="filter" data-post="/api/rules"><select name="action"><option>pause</option><option>block</option></select>
<label>handler <input name="handler"></label> or <label>handling key <input name="handlingKey"></label> <button type="submit">Add rule</button></form></section>`;
}

/** The router's subscribers and their queues. */
export function subscribersSection(part: SnapshotPart<readonly SubscriberView[]>): SafeHtml {
  return sectionOf(part, 'router-section', 'Router subscribers', subscriberList);
}

function subscriberList(subscribers: readonly SubscriberView[]): SafeHtml {
  const body =
    subscribers.length === 0
      ? html`<p class="empty">No subscribers.</p>`
      : html`<table id="subscribers"><thead><tr><th>subscriber</th><th>callback</th><th>topics</th><th>state</th><th>queued</th><th>batches</th><th>oldest</th><th>health</th><th>last error</th></tr></thead>
<tbody>${subscribers.map((s) => {
          const q = s.queue;
          return html`<tr><td>${s.name}</td><td>${s.callback}</td><td>${s.topics.join(', ')}</td><td>${s.paused ? 'paused' : 'delivering'}${s.ordered ? ', ordered' : ''}</td>
<td class="n">${q?.queued ?? 0}</td><td class="n">${q?.batches ?? 0}</td><td>${q?.oldest == null ? '' : time(q.oldest)}</td><td class="n">${q?.health ?? ''}</td>
<td class="error">${q?.lastError?.message}</td></tr>`;
        })}</tbody></table>`;
  return html`<section id="router-section"><h2>Router subscribers</h2>${body}</section>`;
}

/** The event store's version and halt, with retry and skip. */
export function eventStoreSection(part: SnapshotPart<EventStoreView>): SafeHtml {
  return sectionOf(part, 'event-store-section', 'Event store', storeView);
}

function storeView(store: EventStoreView): SafeHtml {
  const halted = store.halted;
  const state =
    halted === undefined
      ? html`<p class="ok-text">Not halted.</p>`
      : html`<div class="halt"><p><strong>Halted at v${halted.v}</strong> (${halted.type}), after ${halted.attempts} attempt(s):
${halted.error?.step} ${halted.error?.model === undefined ? '' : html`in model <code>${halted.error.model}</code>`}: <span class="error">${halted.error?.name}: ${halted.error?.message}</span></p>
<details><summary>data</summary><pre class="payload">${JSON.stringify(halted.data, null, 2)}</pre></details>
${action('Retry now', '/api/event-store/retry', {})}
${action(`Skip v${halted.v}`, '/api/event-store/skip', { v: halted.v }, `Record v${halted.v} as skipped and go on with the next event?`)}</div>`;
  return html`<section id="event-store-section"><h2>Event store</h2><p>Version <strong id="es-version">${store.version}</strong></p>${state}</section>`;
}
