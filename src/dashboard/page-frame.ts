import type { FastifyReply } from 'fastify';
import { html, SafeHtml } from './html.js';
import { PAGE_STYLE } from './page-style.js';
import { navBar } from './render-nav.js';

/** What the browser and router pages add to the overview's style: labels of state, aligned numbers, detail. */
const EXTRA_STYLE = `
.state{border-radius:9px;padding:0 7px;font-size:12px;font-weight:600;white-space:nowrap}
.state.bad{background:#fbe3e0;color:#a3261b}.state.warn{background:#fdf0d5;color:#7a4b00}.state.good{background:#e2f3e7;color:#1f7a3a}
pre.stack{white-space:pre-wrap;font-size:12px;margin:2px 0;color:#5b6475}
#confirm{border:1px solid #e3b341;background:#fff8e6;border-radius:6px;padding:8px 14px;margin:12px 0}
.pager{display:flex;gap:12px;margin:8px 0}dl.letter{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}
dl.letter dd{font-size:13px;font-weight:400}
`;

/** A page of the dashboard besides the overview: its title, where it sits, and its main content. */
export interface Frame {
  /** The `<title>` and the heading's page name. */
  readonly title: string;
  /** The dashboard's base path (`''` at the root). */
  readonly basePath: string;
  /** Which link of the header is this page. */
  readonly current: 'dead-letters' | 'router';
  /** The nonce the page's style and script carry. */
  readonly nonce: string;
  /** The `<main>` content. */
  readonly main: SafeHtml;
  /** Markup between `#status` and `main`, which an action's refresh of `main` leaves alone. */
  readonly before?: SafeHtml;
  /** The page's script, if any. */
  readonly script?: string;
}

/** The whole page of `frame`: the overview's style, a header linking the pages, `#status`, `main`. */
export function renderFrame(frame: Frame): string {
  const script =
    frame.script === undefined ? '' : html`<script nonce="${frame.nonce}">${safe(frame.script)}</script>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>commitbus · ${frame.title}</title><style nonce="${frame.nonce}">${safe(PAGE_STYLE + EXTRA_STYLE)}</style></head>
<body data-base="${frame.basePath}">
<header><h1>commitbus · ${frame.title}</h1>${navBar(frame.basePath, frame.current)}</header>
<div id="status" role="status"></div>
${frame.before}
<main>${frame.main}</main>
${script}
</body></html>`.value;
}

/**
 * Sends a page with the overview's headers: a Content-Security-Policy that
 * runs only `nonce`'s script and style, and no caching. Forms may submit to
 * the dashboard itself (the browser's filter is a GET form); actions still
 * need the header only the page's script sends.
 */
export function sendPage(reply: FastifyReply, nonce: string, page: string): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('cache-control', 'no-store')
    .send(page);
}

/** A state in colour with its text label (never colour alone): `bad`, `warn` or `good`. */
export function stateLabel(label: string, tone: 'bad' | 'warn' | 'good'): SafeHtml {
  return html`<span class="state ${tone}">${label}</span>`;
}

// Markup this module's callers wrote themselves (the style sheet and the scripts are constants).
function safe(text: string): SafeHtml {
  return new SafeHtml(text);
}
