import type { OperatorAction } from '../support/operator-action-log.js';
import { AUDIT_SHOWN } from './bus-audit.js';
import { isUnavailable, type SnapshotPart } from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';
import { time } from './render-format.js';

/** The audit trail: the newest operator actions (who, from where, what, on what, how many). */
export function auditSection(part: SnapshotPart<readonly OperatorAction[]>): SafeHtml {
  if (isUnavailable(part)) {
    return html`<section id="audit-section"><h2>Operator actions</h2><p class="error unavailable">unavailable: ${part.unavailable}</p></section>`;
  }
  const body =
    part.length === 0
      ? html`<p class="empty">No operator action recorded yet.</p>`
      : html`<table id="audit"><thead><tr><th>at</th><th>who</th><th>from</th><th>action</th><th>target</th><th class="n">count</th></tr></thead>
<tbody>${part.map(
          (a) =>
            html`<tr data-action="${a.id}"><td>${time(a.at)}</td><td>${a.actor}</td><td>${a.source}</td><td>${a.action}</td><td>${a.target}</td><td class="n">${a.count ?? ''}</td></tr>`,
        )}</tbody></table>`;
  return html`<section id="audit-section"><h2>Operator actions <span class="note">(the newest ${AUDIT_SHOWN})</span></h2>${body}</section>`;
}
