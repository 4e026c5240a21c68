import type { DeadLetter } from '../dead-letters/dead-letter.js';
import { html, type SafeHtml } from './html.js';
import {} from './page-frame.js';
import { pretty, time } from './render-format.js';

/** One letter: its fields, every attempt (time, error, stack), its payload, re-drive and purge. */
export function letterDetail(letter: DeadLetter, back: string): SafeHtml {
  const field = (label: string, value: string | undefined) =>
    value === undefined ? '' : html`<dt>${label}</dt><dd>${value}</dd>`;
  const attempts = letter.attempts.map(
    (a) => html`<tr><td class="n">${a.attempt}</td><td>${time(a.at)}</td><td>${a.name}</td>
<td><span class="error">${a.error}</span>${a.stack === undefined ? '' : html`<pre class="stack">${a.stack}</pre>`}</td></tr>`,
  );
  return html`<section id="letter-detail" data-letter="${letter.id}"><h2>Dead letter <code>${letter.id}</code></h2>
<p><a href="${back}">back to the list</a></p>
<dl class="letter">${field('kind', letter.kind)}${field('handler', letter.handler)}${field('handling key', letter.handlingKey)}${field('event id', letter.eventId)}${field('reason', letter.reason)}
<dt>first failed</dt><dd>${time(letter.firstFailedAt)}</dd><dt>given up</dt><dd>${time(letter.deadAt)}</dd></dl>
<div class="bulk"><button type="button" data-post="/api/dead-letters/redrive" data-body="${JSON.stringify({ id: letter.id })}">Re-drive</button>
<button type="button" data-post="/api/dead-letters/purge" data-body="${JSON.stringify({ id: letter.id })}" data-confirm="${`Delete dead letter ${letter.id} without running it?`}">Purge</button></div>
<h2>Attempts <span class="badge">${letter.attempts.length}</span></h2>
<table id="attempts"><thead><tr><th class="n">#</th><th>at</th><th>error</th><th>message and stack</th></tr></thead><tbody>${attempts}</tbody></table>
<h2>Payload</h2><pre class="payload" id="payload">${pretty(letter.payload)}</pre></section>`;
}
