import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import { describeError } from '../support/logger.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import type { SnapshotSources } from './dashboard-snapshot.js';
import {
  type ErrorGroups,
  type LetterPage,
  readErrorGroups,
  readLetterPage,
} from './dead-letter-browser-api.js';
import { letterDetail } from './dead-letter-detail.js';
import { type ErrorGroup, firstLine } from './dead-letter-error-groups.js';
import { type BrowserFilter, browserFilterOf, browserFilterQuery, type Fields } from './dead-letter-query.js';
import { DEAD_LETTERS_SCRIPT } from './dead-letters-script.js';
import { html, type SafeHtml } from './html.js';
import { renderFrame, sendPage, stateLabel } from './page-frame.js';
import { noAnswerMessage } from './read-within.js';
import { time } from './render-format.js';
import { KINDS, REASONS } from './render-sections.js';

const CONFIRM = html`<div id="confirm" role="alertdialog" aria-labelledby="confirm-text" hidden>
<p id="confirm-text"></p><button type="button" id="confirm-yes">Confirm</button> <button type="button" id="confirm-no">Cancel</button></div>`;

/**
 * The dead-letter browser at `<basePath>/dead-letters`: letters newest first
 * with a filter and a cursor to the next page; `?view=groups` groups them by
 * handler and first line of error (read on demand: it decodes every matching
 * letter); `?id=` shows one letter with every attempt and its payload. Bulk
 * re-drive and purge ask for the count first (see `dead-letters-script.ts`).
 */
export function registerDeadLettersPage(app: FastifyInstance, base: string, sources: SnapshotSources): void {
  app.get(`${base}/dead-letters`, async (request: FastifyRequest, reply: FastifyReply) => {
    const nonce = randomBytes(16).toString('base64');
    const query = (request.query ?? {}) as Fields;
    const main = await readWithin(() => mainOf(sources, base, query), sources.readTimeoutMs).catch(
      (error: unknown) => unavailable(describeError(error).message),
    );
    const content = main === NO_ANSWER ? unavailable(noAnswerMessage(sources.readTimeoutMs)) : main;
    const page = renderFrame({
      title: 'Dead letters',
      basePath: base,
      current: 'dead-letters',
      nonce,
      before: CONFIRM,
      main: content,
      script: DEAD_LETTERS_SCRIPT,
    });
    return sendPage(reply, nonce, page);
  });
}

async function mainOf(sources: SnapshotSources, base: string, query: Fields): Promise<SafeHtml> {
  const filter = browserFilterOf(query);
  const listLink = pageHref(base, browserFilterQuery(filter));
  if (typeof query.id === 'string' && query.id !== '') {
    const letter = await sources.bus.deadLetters.get(query.id);
    return letter === undefined
      ? html`<p class="empty">No dead letter has the id <code>${query.id}</code> (re-driven or purged?). <a href="${listLink}">Back to the list</a></p>`
      : letterDetail(letter, listLink);
  }
  const total = (await sources.bus.status()).deadLetters.count;
  const form = filterForm(filter, query.view === 'groups');
  if (query.view === 'groups')
    return html`${form}${groupsView(await readErrorGroups(sources, query), filter, base)}`;
  return html`${form}${listView(await readLetterPage(sources, query), filter, base, total)}`;
}

function unavailable(message: string): SafeHtml {
  return html`<p class="error unavailable">unavailable: ${message}</p>`;
}

function filterForm(filter: BrowserFilter, grouped: boolean): SafeHtml {
  const input = (name: string, label: string, value: string | undefined) =>
    html`<label>${label} <input name="${name}" value="${value ?? ''}"></label>`;
  const select = (name: string, label: string, values: readonly string[], value: string | undefined) =>
    html`<label>${label} <select name="${name}"><option value="">any</option>${values.map((v) => html`<option${v === value ? html` selected` : ''}>${v}</option>`)}</select></label>`;
  return html`<form class="filter" id="letter-filter" method="get">
${input('handler', 'handler', filter.handler)} ${input('handlingKey', 'handling key', filter.handlingKey)} ${input('eventId', 'event id', filter.eventId)}
${select('kind', 'kind', KINDS, filter.kind)} ${select('reason', 'reason', REASONS, filter.reason)} ${input('error', 'error contains', filter.errorIncludes)}
<label><input type="checkbox" name="view" value="groups"${grouped ? html` checked` : ''}> grouped by error</label>
<button type="submit">Filter</button></form>`;
}

function bulkButtons(filter: BrowserFilter, label: string, group?: ErrorGroup): SafeHtml {
  const body = (action: string) =>
    JSON.stringify({
      action,
      filter,
      ...(group === undefined ? {} : { group: { handler: group.handler ?? null, message: group.message } }),
    });
  return html`<button type="button" data-bulk="${body('redrive')}">Re-drive ${label}</button>
<button type="button" data-bulk="${body('purge')}">Purge ${label}</button>`;
}

function listView(page: LetterPage, filter: BrowserFilter, base: string, total: number): SafeHtml {
  const query = browserFilterQuery(filter);
  const grouped = new URLSearchParams(query);
  grouped.set('view', 'groups');
  const next = new URLSearchParams(query);
  if (page.next !== null) next.set('after', page.next);
  const rows = page.letters.map((letter) => letterRow(letter, base, query));
  const table =
    rows.length === 0
      ? html`<p class="empty">No dead letters match.</p>`
      : html`<table id="letters"><thead><tr><th>dead at</th><th>state</th><th>handler</th><th>handling key</th><th>event id</th><th class="n">attempts</th><th>error</th></tr></thead><tbody>${rows}</tbody></table>`;
  return html`<section id="letter-list"><h2>Dead letters, newest first <span class="badge">${total} stored</span></h2>
<div class="bulk">${bulkButtons(filter, 'matching…')} <a href="${pageHref(base, grouped)}">grouped by error</a></div>
${table}<div class="pager"><a href="${pageHref(base, query)}">first page</a>${page.next === null ? '' : html`<a id="next-page" href="${pageHref(base, next)}">next page</a>`}</div></section>`;
}

function letterRow(letter: DeadLetter, base: string, query: URLSearchParams): SafeHtml {
  const detail = new URLSearchParams(query);
  detail.set('id', letter.id);
  return html`<tr data-letter="${letter.id}"><td><a href="${pageHref(base, detail)}">${time(letter.deadAt)}</a></td>
<td>${stateLabel(`${letter.kind} · ${letter.reason}`, 'bad')}</td><td>${letter.handler}</td><td>${letter.handlingKey}</td><td>${letter.eventId}</td>
<td class="n">${letter.attempts.length}</td><td class="error">${firstLine(letter.error)}</td></tr>`;
}

function groupsView(view: ErrorGroups, filter: BrowserFilter, base: string): SafeHtml {
  const rows = view.groups.map((group) => {
    const letters = browserFilterQuery({
      ...filter,
      ...(group.handler === undefined ? {} : { handler: group.handler }),
      ...(group.message === '' ? {} : { errorIncludes: group.message }),
    });
    return html`<tr data-group="${JSON.stringify([group.handler ?? null, group.message])}"><td>${group.handler ?? '(none)'}</td><td class="error">${group.message}</td>
<td class="n">${group.count}</td><td>${time(group.firstSeen)}</td><td>${time(group.lastSeen)}</td>
<td class="actions"><a href="${pageHref(base, letters)}">letters</a> ${bulkButtons(filter, 'group…', group)}</td></tr>`;
  });
  const table =
    rows.length === 0
      ? html`<p class="empty">No dead letters match.</p>`
      : html`<table id="groups"><thead><tr><th>handler</th><th>error (first line)</th><th class="n">letters</th><th>first seen</th><th>last seen</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  return html`<section id="letter-groups"><h2>Dead letters grouped by error <span class="badge">${view.scanned} read</span></h2>
<p class="note">Counted from every matching letter, read now (at most 10,000).</p>${table}</section>`;
}

function pageHref(base: string, query: URLSearchParams): string {
  const text = query.toString();
  return `${base}/dead-letters${text === '' ? '' : `?${text}`}`;
}
