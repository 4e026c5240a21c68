import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { HaltedKey } from '../ordering/halted-key.js';
import type { SchedulingRule } from '../scheduling/scheduling-rule.js';
import {
  type DashboardSnapshot,
  isUnavailable,
  type SnapshotPart,
  type SubscriberView,
} from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';
import { pretty, time } from './render-format.js';
import { action, sectionOf, unavailableSection } from './render-parts.js';

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

function options(values: readonly string[]): SafeHtml {
  return html`<option value="">any</option>${values.map((v) => html`<option>${v}</option>`)}`;
}

/** Dead letters with re-drive and purge (one, matching a filter, all). */
export function deadLettersSection(snapshot: DashboardSnapshot): SafeHtml {
  const letters = snapshot.deadLetters;
  if (isUnavailable(letters)) return unavailableSection('dead-letter-section', 'Dead letters', letters);
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
<table id="dead-letters"><thead><tr><th>dead at</th><th>kind</th><th>handler</th><th>handling key</th><th>reason</th><th class="n">attempts</th><th>error</th><th>payload</th><th></th></tr></thead>
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
      : html`<table id="halted"><thead><tr><th>order key</th><th>lane</th><th>handler</th><th class="n">seq</th><th>reason</th><th>error</th><th class="n">attempts</th><th class="n">waiting</th><th>halted at</th><th></th></tr></thead>
<tbody>${halted.map(
          (
            h,
          ) => html`<tr class="attention" data-key="${h.key}"><td><span class="label">halted</span>${h.key}</td><td>${h.lane}</td><td>${h.handler}</td><td class="n">${h.seq}</td><td>${h.reason}</td>
<td class="error">${h.error}</td><td class="n">${h.attempts}</td><td class="n">${h.waiting}</td><td>${time(h.haltedAt)}</td>
<td class="actions">${action('Re-drive', '/api/ordering/redrive', { key: h.key })}
${action('Skip', '/api/ordering/skip', { key: h.key }, `Give up the failed handler of ${h.key} for good (kept as a dead letter) and go on?`)}</td></tr>`,
        )}</tbody></table>`;
  return html`<section id="halted-section"><h2>Halted order keys <span class="badge${halted.length > 0 ? ' error' : ''}">${halted.length}</span></h2>${body}</section>`;
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
      : html`<table id="subscribers"><thead><tr><th>subscriber</th><th>callback</th><th>topics</th><th>state</th><th class="n">queued</th><th class="n">batches</th><th>oldest</th><th class="n">health</th><th>last error</th></tr></thead>
<tbody>${subscribers.map((s) => {
          const q = s.queue;
          return html`<tr><td>${s.name}</td><td>${s.callback}</td><td>${s.topics.join(', ')}</td><td>${s.paused ? 'paused' : 'delivering'}${s.ordered ? ', ordered' : ''}</td>
<td class="n">${q?.queued ?? 0}</td><td class="n">${q?.batches ?? 0}</td><td>${q?.oldest == null ? '' : time(q.oldest)}</td><td class="n">${q?.health ?? ''}</td>
<td class="error">${q?.lastError?.message}</td></tr>`;
        })}</tbody></table>`;
  return html`<section id="router-section"><h2>Router subscribers</h2>${body}</section>`;
}
