/**
 * The page's charts (no build step): `window.__commitbus.drawHistory(view)`
 * draws what `GET api/history` answered with uPlot (loaded before it from
 * `<basePath>/assets/uplot.js`), one chart for each `[data-chart]` of the
 * history section, its lines from the chart's `data-lines` (none while no
 * minute has anything recorded: "No history yet."); a chart already
 * drawn takes the new data in place. Each chart's `data-points` and
 * `window.__charts[id]` tell how many minutes it holds, and the latter each
 * line's last value and total (what the tests read).
 */
export const CHART_SCRIPT = `
(() => {
  const charts = {};
  window.__charts = charts;
  const app = (window.__commitbus = window.__commitbus || {});
  const section = document.getElementById('history-section');
  const empty = document.getElementById('no-history');
  const columns = (points, lines) => {
    const xs = points.map((p) => Date.parse(p.minute) / 1000);
    return [xs, ...lines.map((l) => points.map((p) => (p[l.field] == null ? null : p[l.field] * (l.scale || 1))))];
  };
  const create = (box, lines, data) => {
    const target = box.querySelector('.plot');
    const width = Math.max(320, Math.floor(target.getBoundingClientRect().width) || 400);
    const series = [{}, ...lines.map((l) => ({ label: l.label, stroke: l.stroke, width: 1.5 }))];
    return new uPlot({ width, height: 170, series, scales: { x: { time: true } }, axes: [{}, { size: 56 }] }, data, target);
  };
  app.drawHistory = (view) => {
    const points = view.points || [];
    if (typeof uPlot !== 'function') {
      empty.hidden = false;
      empty.textContent = 'No charts: uPlot did not load.';
      return;
    }
    // Every minute is present (zero-filled): "no history" is no minute with anything recorded.
    const recorded = points.some((p) => p.published || p.handled || p.failed || p.retried || p.deadLettered || p.backlog != null);
    empty.hidden = recorded;
    empty.textContent = 'No history yet.';
    if (!recorded) {
      for (const box of section.querySelectorAll('[data-chart]')) box.hidden = true;
      return;
    }
    for (const box of section.querySelectorAll('[data-chart]')) {
      const id = box.dataset.chart;
      const lines = JSON.parse(box.dataset.lines);
      const data = columns(points, lines);
      box.hidden = false;
      const chart = charts[id];
      if (chart) chart.plot.setData(data);
      else charts[id] = { plot: create(box, lines, data) };
      charts[id].points = points.length;
      charts[id].series = lines.length;
      charts[id].last = lines.map((_, i) => data[i + 1][points.length - 1]);
      charts[id].totals = lines.map((_, i) => data[i + 1].reduce((sum, v) => sum + (v || 0), 0));
      box.dataset.points = String(points.length);
      box.dataset.series = String(lines.length);
    }
  };
  app.historyFailed = (message) => {
    empty.hidden = false;
    empty.textContent = 'The history could not be read: ' + message;
  };
})();
`;
