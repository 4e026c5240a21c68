import type { HistoryPoint } from '../metrics/history-store.js';
import { html, type SafeHtml } from './html.js';

/** A line of a chart: a field of {@link HistoryPoint}, its label, its colour, and a factor to scale it by. */
interface ChartLine {
  readonly field: Exclude<keyof HistoryPoint, 'minute'>;
  readonly label: string;
  readonly stroke: string;
  readonly scale?: number;
}

/** The history charts: an id each, a title, and the lines drawn on it. */
const CHARTS: readonly { id: string; title: string; lines: readonly ChartLine[] }[] = [
  {
    id: 'throughput',
    title: 'Throughput per minute',
    lines: [
      { field: 'published', label: 'published', stroke: '#1a56b8' },
      { field: 'handled', label: 'handled', stroke: '#1f7a3a' },
    ],
  },
  {
    id: 'failures',
    title: 'Failures and retries per minute',
    lines: [
      { field: 'failed', label: 'failed', stroke: '#a3261b' },
      { field: 'retried', label: 'retried', stroke: '#c77700' },
    ],
  },
  {
    id: 'dead-letters',
    title: 'Dead letters per minute',
    lines: [{ field: 'deadLettered', label: 'dead letters', stroke: '#6d1710' }],
  },
  {
    id: 'backlog',
    title: 'Backlog (largest in the minute)',
    lines: [{ field: 'backlog', label: 'events waiting', stroke: '#34405a' }],
  },
  {
    id: 'backlog-age',
    title: 'Backlog age, seconds (oldest waiting event)',
    lines: [{ field: 'backlogAgeMs', label: 'age (s)', stroke: '#7a3ea3', scale: 0.001 }],
  },
];

/**
 * The history section: one uPlot chart a concept, drawn and updated by the
 * page's script from `GET api/history` (the section itself is never
 * replaced by a refresh); "No history yet." until there are points.
 */
export function historySection(): SafeHtml {
  return html`<section id="history-section" data-static="1"><h2>Last 24 hours</h2>
<p class="empty" id="no-history">No history yet.</p>
<div class="charts">${CHARTS.map(
    (chart) =>
      html`<div class="chart" id="chart-${chart.id}" data-chart="${chart.id}" data-lines="${JSON.stringify(chart.lines)}" data-points="0" hidden><h3>${chart.title}</h3><div class="plot"></div></div>`,
  )}</div></section>`;
}
