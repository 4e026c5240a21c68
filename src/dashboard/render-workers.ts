import type { WorkerStatus } from '../bus/worker-status.js';
import { type DashboardSnapshot, isUnavailable } from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';
import { workWaiting } from './render-attention.js';
import { age, time } from './render-format.js';

/**
 * The bus's workers from `bus.status().workers`: how many are alive, and a
 * row each (alive first; busy of concurrency, its last beat's age), gone
 * ones marked; no worker alive is shown as an error, flagged when work waits.
 */
export function workersSection(snapshot: DashboardSnapshot): SafeHtml {
  const s = snapshot.status;
  if (isUnavailable(s)) {
    return html`<section id="workers-section"><h2>Workers</h2><p class="error unavailable">unavailable: ${s.unavailable}</p></section>`;
  }
  const { workers } = s;
  const gone = workers.list.length - workers.alive;
  const waiting = workWaiting(s);
  const summary =
    workers.alive === 0
      ? html`<p class="error" id="no-worker">${waiting > 0 ? html`<span class="label">no worker</span>` : ''}No worker alive: nothing handles the bus's work.${waiting > 0 ? ` ${waiting} event(s) and job(s) wait.` : ''}</p>`
      : html`<p class="ok-text">${workers.alive} alive${gone > 0 ? `, ${gone} gone` : ''}.</p>`;
  const readAt = Date.parse(s.readAt);
  const rows = [...workers.list].sort((a, b) => Number(b.alive) - Number(a.alive));
  const table =
    rows.length === 0
      ? ''
      : html`<table id="workers"><thead><tr><th>worker</th><th>state</th><th>host</th><th class="n">pid</th><th>version</th><th>transport</th><th class="n">busy</th><th class="n">concurrency</th><th>started</th><th class="n">last beat</th></tr></thead>
<tbody>${rows.map((w) => row(w, readAt))}</tbody></table>`;
  return html`<section id="workers-section"><h2>Workers <span class="badge">${workers.alive}</span></h2>${summary}${table}
<p class="note">A worker is gone once its last beat is older than ${Math.round(workers.goneAfterMs / 1_000)} s (workers.goneAfterMs).</p></section>`;
}

function row(w: WorkerStatus, readAt: number): SafeHtml {
  const ago = Math.max(0, readAt - Date.parse(w.lastBeatAt));
  return html`<tr data-worker="${w.id}"${w.alive ? '' : html` class="warn"`}><td><code>${w.id.slice(0, 8)}</code></td><td class="${w.alive ? 'ok-text' : 'error'}">${w.alive ? 'alive' : 'gone'}</td><td>${w.host}</td><td class="n">${w.pid}</td><td>${w.version}</td><td>${w.transport}</td><td class="n">${w.busy}</td><td class="n">${w.concurrency}</td><td>${time(w.startedAt)}</td><td class="n"><time datetime="${w.lastBeatAt}">${age(ago)} ago</time></td></tr>`;
}
