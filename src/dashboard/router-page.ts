import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DeliveryAttempt } from '../router/delivery-attempt-log.js';
import { describeError } from '../support/logger.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import type { SnapshotSources } from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';
import { renderFrame, sendPage, stateLabel } from './page-frame.js';
import { noAnswerMessage } from './read-within.js';
import { time } from './render-format.js';
import { type RouterSubscriberView, type RouterView, readRouterView } from './router-api.js';

/**
 * The router page at `<basePath>/router`: topics, subscribers with their
 * state (in colour and words), queue, success rate over their logged
 * attempts and last error, and each one's newest attempts. Without the
 * router's stores it says how to give them.
 */
export function registerRouterPage(app: FastifyInstance, base: string, sources: SnapshotSources): void {
  app.get(`${base}/router`, async (_request, reply: FastifyReply) => {
    const nonce = randomBytes(16).toString('base64');
    const main = await mainOf(sources).catch((error: unknown) => unavailable(describeError(error).message));
    return sendPage(
      reply,
      nonce,
      renderFrame({ title: 'Router', basePath: base, current: 'router', nonce, main }),
    );
  });
}

async function mainOf(sources: SnapshotSources): Promise<SafeHtml> {
  const { router } = sources;
  if (router === undefined) {
    return html`<section id="router-off"><h2>Router</h2><p class="note">This dashboard was started without the router's stores.
Run <code>commitbus dashboard --router</code>, or pass <code>router: bus.router</code> (or a running router's <code>stores</code>) to <code>startDashboard</code>.</p></section>`;
  }
  const view = await readWithin(() => readRouterView(router), sources.readTimeoutMs);
  return view === NO_ANSWER ? unavailable(noAnswerMessage(sources.readTimeoutMs)) : routerView(view);
}

function unavailable(message: string): SafeHtml {
  return html`<p class="error unavailable">unavailable: ${message}</p>`;
}

function routerView(view: RouterView): SafeHtml {
  const topics =
    view.topics.length === 0
      ? html`<p class="empty">No topics.</p>`
      : html`<table id="topics"><thead><tr><th>topic</th><th>publisher</th><th class="n">events</th></tr></thead><tbody>${view.topics.map(
          (t) =>
            html`<tr><td>${t.name}</td><td>${t.publisher ?? '(none yet)'}</td><td class="n">${t.events}</td></tr>`,
        )}</tbody></table>`;
  const subscribers =
    view.subscribers.length === 0
      ? html`<p class="empty">No subscribers.</p>`
      : html`<table id="router-subscribers"><thead><tr><th>subscriber</th><th>state</th><th>topics</th><th class="n">queued</th><th class="n">sent</th><th class="n">health</th><th class="n">success</th><th>last error</th></tr></thead>
<tbody>${view.subscribers.map(subscriberRow)}</tbody></table>`;
  return html`<section id="router-topics"><h2>Topics <span class="badge">${view.topics.length}</span></h2>${topics}</section>
<section id="router-subscriber-section"><h2>Subscribers <span class="badge">${view.subscribers.length}</span></h2>${subscribers}</section>
${view.subscribers.map(attemptLog)}`;
}

function subscriberRow(s: RouterSubscriberView): SafeHtml {
  const q = s.queue;
  const rate = s.successRate === null ? '' : `${(s.successRate * 100).toFixed(1)} %`;
  return html`<tr data-subscriber="${s.name}"><td>${s.name}<br><span class="note">${s.callback}</span></td><td>${state(s)}</td><td>${s.topics.join(', ')}</td>
<td class="n">${q?.queued ?? 0}</td><td class="n">${q?.sent ?? 0}</td><td class="n">${q?.health ?? ''}</td>
<td class="n" title="${`of the last ${s.attemptsLogged} attempts`}">${rate}</td>
<td class="error">${q?.lastError == null ? '' : html`${q.lastError.message} <span class="note">${time(q.lastError.at)}</span>`}</td></tr>`;
}

// Failing (its last delivery failed) outranks paused, which outranks delivering; each says so in words.
function state(s: RouterSubscriberView): SafeHtml {
  const failing = s.queue?.lastError != null;
  const labels = [
    failing ? stateLabel('failing', 'bad') : undefined,
    s.paused ? stateLabel('paused', 'warn') : undefined,
    !failing && !s.paused ? stateLabel('delivering', 'good') : undefined,
    s.ordered ? html`<span class="note">ordered</span>` : undefined,
  ];
  return html`${labels}`;
}

function attemptLog(s: RouterSubscriberView): SafeHtml {
  const rows =
    s.attempts.length === 0
      ? html`<p class="empty">No attempts logged.</p>`
      : html`<table class="attempts"><thead><tr><th>at</th><th>outcome</th><th class="n">status</th><th>error</th><th class="n">events</th><th class="n">duration ms</th></tr></thead><tbody>${s.attempts.map(attemptRow)}</tbody></table>`;
  return html`<section class="attempt-log" data-subscriber="${s.name}"><h2>Attempts of ${s.name} <span class="badge">newest ${s.attempts.length}</span></h2>${rows}</section>`;
}

function attemptRow(a: DeliveryAttempt): SafeHtml {
  return html`<tr><td>${time(a.at)}</td><td>${a.ok ? stateLabel('delivered', 'good') : stateLabel('failed', 'bad')}</td>
<td class="n">${a.status ?? ''}</td><td class="error">${a.error ?? ''}</td><td class="n">${a.events}</td><td class="n">${a.durationMs}</td></tr>`;
}
