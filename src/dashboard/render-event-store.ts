import type { EventStoreView, HaltedSubscriptionView, SnapshotPart } from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';
import { flagged } from './render-format.js';
import { action, sectionOf } from './render-parts.js';

/** The event store's version, queue, writer, halt (with retry and skip) and halted subscriptions. */
export function eventStoreSection(part: SnapshotPart<EventStoreView>): SafeHtml {
  return sectionOf(part, 'event-store-section', 'Event store', storeView);
}

function storeView(store: EventStoreView): SafeHtml {
  const halted = store.halted;
  const state =
    halted === undefined
      ? html`<p class="ok-text">Not halted.</p>`
      : html`<div class="halt"><p class="error">${flagged('halted', html`<strong>Halted at v${halted.v}</strong>`)} (${halted.type}), after ${halted.attempts} attempt(s):
${halted.error?.step} ${halted.error?.model === undefined ? '' : html`in model <code>${halted.error.model}</code>`}: <span class="error">${halted.error?.name}: ${halted.error?.message}</span></p>
<details><summary>data</summary><pre class="payload">${JSON.stringify(halted.data, null, 2)}</pre></details>
${action('Retry now', '/api/event-store/retry', {})}
${action(`Skip v${halted.v}`, '/api/event-store/skip', { v: halted.v }, `Record v${halted.v} as skipped and go on with the next event?`)}</div>`;
  const writer = store.writerHere
    ? 'this process is the writer'
    : 'the writer is another process (or none is running): this one only reads';
  return html`<section id="event-store-section"><h2>Event store</h2>
<dl class="counts"><div><dt>version</dt><dd id="es-version">${store.version}</dd></div><div><dt>queued, not handled</dt><dd id="es-queued">${store.queued}</dd></div></dl>
<p class="note" id="es-writer">Writer: ${writer}.</p>${state}${subscriptions(store.haltedSubscriptions)}</section>`;
}

function subscriptions(halted: readonly HaltedSubscriptionView[]): SafeHtml {
  if (halted.length === 0) return html`<p class="ok-text">No subscription halted.</p>`;
  return html`<table id="halted-subscriptions"><thead><tr><th>subscription</th><th class="n">halted at</th><th>error</th></tr></thead>
<tbody>${halted.map((s) => html`<tr class="attention"><td>${flagged('halted', s.name)}</td><td class="n">v${s.v}</td><td class="error">${s.error}</td></tr>`)}</tbody></table>`;
}
