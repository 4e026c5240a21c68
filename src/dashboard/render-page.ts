import { CHART_SCRIPT } from './chart-script.js';
import { assetPath } from './dashboard-assets.js';
import { type DashboardSnapshot, isUnavailable } from './dashboard-snapshot.js';
import { html, SafeHtml } from './html.js';
import { LIVE_SCRIPT } from './live-script.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import { attentionSection } from './render-attention.js';
import { auditSection } from './render-audit.js';
import { backlogSection } from './render-backlog.js';
import { eventStoreSection } from './render-event-store.js';
import { historySection } from './render-history.js';
import { navBar } from './render-nav.js';
import { deadLettersSection, haltedSection, rulesSection, subscribersSection } from './render-sections.js';
import { workersSection } from './render-workers.js';

/** Where the page's links and requests go. */
export interface PageContext {
  /** The dashboard's base path (`''` at the root). */
  readonly basePath: string;
  /** How often the page reads itself and the history again, in ms (`refreshMs`). */
  readonly refreshMs: number;
  /** Whether bull-board is mounted at `<basePath>/queues`. */
  readonly bullBoard: boolean;
  /** Whether bull-board refuses changes. */
  readonly bullBoardReadOnly: boolean;
  /** Why bull-board is not mounted though there are BullMQ queues (e.g. it is not installed). */
  readonly bullBoardNote?: string;
  /** The nonce the Content-Security-Policy allows the page's scripts and styles with. */
  readonly nonce: string;
}

/**
 * The overview page, server-rendered from a snapshot: every value from the
 * bus (payloads, handler names, errors) goes through `html`, so it is text.
 * Its script reads it again every `refreshMs` and replaces the sections
 * that changed in place (see `live-script.ts`).
 */
export function renderPage(snapshot: DashboardSnapshot, context: PageContext): string {
  const { basePath, nonce } = context;
  const queues = context.bullBoard
    ? html`<a href="${basePath}/queues/">BullMQ queues (bull-board)</a><span class="meta" id="bull-board-mode">${context.bullBoardReadOnly ? 'read-only' : 'writable'}</span>`
    : html`<span class="meta" id="bull-board-note">no bull-board: ${noBoard(snapshot, context)}</span>`;
  const readAt = isUnavailable(snapshot.status) ? new Date().toISOString() : snapshot.status.readAt;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>commitbus · ${snapshot.bus}</title><style nonce="${nonce}">${new SafeHtml(PAGE_STYLE)}</style>
<link rel="stylesheet" nonce="${nonce}" href="${assetPath(basePath, 'uplot.css')}"></head>
<body data-base="${basePath}" data-refresh-ms="${context.refreshMs}">
<header><h1>commitbus</h1>${navBar(basePath, 'overview')}<span class="meta">bus <strong>${snapshot.bus}</strong> on ${snapshot.transport}</span>${queues}
<span id="live" data-updated-at="">updated at --:--:--</span><button type="button" id="refresh">Refresh</button></header>
<div id="status" role="status"></div>
<main data-read-at="${readAt}" data-dead-letters="${snapshot.deadLetterCount}">
${attentionSection(snapshot)}
${backlogSection(snapshot)}
${historySection()}
${workersSection(snapshot)}
${deadLettersSection(snapshot)}
${haltedSection(snapshot.halted)}
${rulesSection(snapshot.rules)}
${snapshot.subscribers === undefined ? '' : subscribersSection(snapshot.subscribers)}
${snapshot.eventStore === undefined ? '' : eventStoreSection(snapshot.eventStore)}
${auditSection(snapshot.audit)}
</main>
<script nonce="${nonce}" src="${assetPath(basePath, 'uplot.js')}"></script>
<script nonce="${nonce}">${new SafeHtml(CHART_SCRIPT)}</script>
<script nonce="${nonce}">${new SafeHtml(LIVE_SCRIPT)}</script>
<script nonce="${nonce}">${new SafeHtml(PAGE_SCRIPT)}</script>
</body></html>`;
  return page.value;
}

function noBoard(snapshot: DashboardSnapshot, context: PageContext): string {
  if (context.bullBoardNote !== undefined) return context.bullBoardNote;
  const none = !isUnavailable(snapshot.queues) && snapshot.queues.length === 0;
  return none ? `the ${snapshot.transport} transport has no BullMQ queues` : 'not mounted';
}
