import { type DashboardSnapshot, isUnavailable } from './dashboard-snapshot.js';
import { html, SafeHtml } from './html.js';
import { PAGE_SCRIPT } from './page-script.js';
import {
  backlogSection,
  deadLettersSection,
  eventStoreSection,
  haltedSection,
  rulesSection,
  subscribersSection,
} from './render-sections.js';
import { workersSection } from './render-workers.js';

/** The pages' style sheet (one for every page, under the CSP nonce). */
export const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:16px;align-items:baseline}
header h1{font-size:18px;margin:0}header a{color:#9cc4ff}header .meta{color:#b8bfcc}
main{padding:8px 20px 40px}section{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 14px;margin:12px 0}
h2{font-size:15px;margin:6px 0 8px}.badge{background:#e4e8ee;border-radius:9px;padding:0 7px;font-size:12px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #eceff3;vertical-align:top}
th{color:#5b6475;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
.error{color:#a3261b;max-width:28em;overflow-wrap:anywhere}.note,.empty{color:#5b6475}.ok-text{color:#1f7a3a}
pre.payload{white-space:pre-wrap;overflow-wrap:anywhere;max-width:40em;background:#f5f6f8;padding:6px;margin:4px 0}
dl.counts{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 8px}dl.counts div{background:#f5f6f8;border-radius:6px;padding:6px 12px;min-width:7em}
dt{color:#5b6475;font-size:12px}dd{margin:0;font-size:20px;font-weight:600}
button{font:inherit;font-size:12px;padding:2px 8px;border:1px solid #b9c1cd;border-radius:4px;background:#fff;cursor:pointer}
button:hover{background:#eef2f8}.actions{white-space:nowrap}form.filter{margin:6px 0;display:flex;gap:8px;flex-wrap:wrap;align-items:center}
input,select{font:inherit;font-size:12px}.bulk{display:flex;gap:8px;margin-bottom:4px}
.unavailable{font-weight:600}#status{min-height:1.4em;padding:4px 20px;font-size:13px}#status.ok{color:#1f7a3a}#status.failed{color:#a3261b}
`;

/** Where the page's links and requests go. */
export interface PageContext {
  /** The dashboard's base path (`''` at the root). */
  readonly basePath: string;
  /** Whether bull-board is mounted at `<basePath>/queues`. */
  readonly bullBoard: boolean;
  /** Why bull-board is not mounted though there are BullMQ queues (e.g. it is not installed). */
  readonly bullBoardNote?: string;
  /** The nonce the Content-Security-Policy allows the page's script and style with. */
  readonly nonce: string;
}

/**
 * The dashboard page, server-rendered from a snapshot: every value from the
 * bus (payloads, handler names, errors) goes through `html`, so it is text.
 */
export function renderPage(snapshot: DashboardSnapshot, context: PageContext): string {
  const queues = context.bullBoard
    ? html`<a href="${context.basePath}/queues/">BullMQ queues (bull-board)</a>`
    : html`<span class="meta" id="bull-board-note">no bull-board: ${noBoard(snapshot, context)}</span>`;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>commitbus · ${snapshot.bus}</title><style nonce="${context.nonce}">${new SafeHtml(STYLE)}</style></head>
<body data-base="${context.basePath}">
<header><h1>commitbus</h1><span class="meta">bus <strong>${snapshot.bus}</strong> on ${snapshot.transport}</span>${queues}
<button type="button" id="refresh">Refresh</button></header>
<div id="status" role="status"></div>
<main>
${backlogSection(snapshot)}
${workersSection(snapshot)}
${deadLettersSection(snapshot)}
${haltedSection(snapshot.halted)}
${rulesSection(snapshot.rules)}
${snapshot.subscribers === undefined ? '' : subscribersSection(snapshot.subscribers)}
${snapshot.eventStore === undefined ? '' : eventStoreSection(snapshot.eventStore)}
</main>
<script nonce="${context.nonce}">${new SafeHtml(PAGE_SCRIPT)}</script>
</body></html>`;
  return page.value;
}

function noBoard(snapshot: DashboardSnapshot, context: PageContext): string {
  if (context.bullBoardNote !== undefined) return context.bullBoardNote;
  const none = !isUnavailable(snapshot.queues) && snapshot.queues.length === 0;
  return none ? `the ${snapshot.transport} transport has no BullMQ queues` : 'not mounted';
}
