/**
 * The page's live refresh (no build step): every `data-refresh-ms` it reads
 * the page (`GET <basePath>/`) and the history (`GET api/history`) again and
 * replaces in place each section whose markup changed, keeping the
 * operator's forms (what they typed, the focus) and open details; the
 * history section is never replaced, its charts take the new data.
 * `#live` says "updated at HH:MM:SS", or "stale: ..." (and the page is
 * dimmed) while the dashboard does not answer. Dead letters that grew
 * between its reads, or were stored by the bus (its history), in the last
 * minutes are added to the attention list. `window.__commitbus.refresh()` reads at once.
 */
export const LIVE_SCRIPT = `
(() => {
  const RECENT_MINUTES = 5;
  const body = document.body;
  const base = body.dataset.base || '';
  const every = Number(body.dataset.refreshMs) || 5000;
  const live = document.getElementById('live');
  const app = (window.__commitbus = window.__commitbus || {});
  const clock = (ms) => new Date(ms).toTimeString().slice(0, 8);
  const mainOf = () => document.querySelector('main');
  let deadBefore = Number(mainOf().dataset.deadLetters);
  // What the dead-letter count grew by at each read of the last minutes: [when, by].
  let growth = [];
  let recent = 0;
  let updatedAt = 0;

  const keyOf = (el) => {
    const row = el.closest('[data-letter],[data-key],[data-worker],[data-queue],[data-action]');
    const ids = row ? [...row.attributes].filter((a) => a.name.startsWith('data-')).map((a) => a.value) : [];
    const summary = el.querySelector('summary');
    return ids.join('|') + '#' + (summary ? summary.textContent : '');
  };
  const swapSection = (old, fresh) => {
    const focused = old.contains(document.activeElement) ? document.activeElement : null;
    const range = focused && typeof focused.selectionStart === 'number' ? [focused.selectionStart, focused.selectionEnd] : null;
    const kept = old.querySelectorAll('form');
    fresh.querySelectorAll('form').forEach((form, i) => {
      const mine = kept[i];
      if (mine && mine.dataset.post === form.dataset.post) form.replaceWith(mine);
    });
    const open = new Set([...old.querySelectorAll('details[open]')].map(keyOf));
    for (const d of fresh.querySelectorAll('details')) if (open.has(keyOf(d))) d.open = true;
    old.replaceWith(fresh);
    if (focused && document.contains(focused)) {
      focused.focus();
      if (range) focused.setSelectionRange(range[0], range[1]);
    }
  };
  // The answer's <main> in an inert template: its head (style, scripts) is never parsed into a document.
  const mainIn = (text) => {
    const start = text.indexOf('<main');
    const end = text.lastIndexOf('</main>');
    if (start < 0 || end < start) return null;
    const template = document.createElement('template');
    template.innerHTML = text.slice(start, end + 7);
    return template.content.querySelector('main');
  };
  const swap = (next) => {
    const main = mainOf();
    const before = {};
    for (const dd of main.querySelectorAll('dd[data-field]')) before[dd.dataset.field] = dd.textContent;
    const incomings = [...next.children];
    const ids = new Set(incomings.map((s) => s.id));
    let previous = null;
    for (const incoming of incomings) {
      const fresh = document.adoptNode(incoming);
      const old = fresh.id ? document.getElementById(fresh.id) : null;
      if (!old) {
        if (previous) previous.after(fresh);
        else main.prepend(fresh);
      } else if (!old.dataset.static && old.innerHTML !== fresh.innerHTML) swapSection(old, fresh);
      previous = document.getElementById(fresh.id) || fresh;
    }
    for (const old of [...main.children]) if (old.id && !ids.has(old.id) && !old.dataset.static) old.remove();
    main.dataset.readAt = next.dataset.readAt;
    main.dataset.deadLetters = next.dataset.deadLetters;
    for (const dd of main.querySelectorAll('dd[data-field]')) {
      const was = before[dd.dataset.field];
      dd.classList.toggle('changed', was !== undefined && was !== dd.textContent);
    }
  };
  const showGrowing = () => {
    const item = document.getElementById('dead-letters-growing');
    if (!item) return;
    const why = [];
    growth = growth.filter(([at]) => at > Date.now() - RECENT_MINUTES * 60000);
    const grew = growth.reduce((sum, [, by]) => sum + by, 0);
    if (grew > 0) why.push('+' + grew + ' seen by this page in the last ' + RECENT_MINUTES + ' minutes');
    if (recent > 0) why.push(recent + ' stored in the last ' + RECENT_MINUTES + ' minutes');
    item.hidden = why.length === 0;
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = 'growing';
    item.replaceChildren(label, document.createTextNode('Dead letters growing: ' + why.join(', ') + '.'));
    const shown = document.querySelectorAll('#attention li:not([hidden])').length;
    const count = document.getElementById('attention-count');
    if (count) count.textContent = String(shown);
    const clear = document.getElementById('all-clear');
    if (clear) clear.hidden = shown > 0;
  };
  const readHistory = async () => {
    const answer = await fetch(base + '/api/history', { cache: 'no-store' });
    if (!answer.ok) {
      const failed = await answer.json().catch(() => ({}));
      app.historyFailed(failed.message || 'HTTP ' + answer.status);
      return;
    }
    const view = await answer.json();
    recent = (view.points || []).slice(-RECENT_MINUTES).reduce((sum, p) => sum + (p.deadLettered || 0), 0);
    app.drawHistory(view);
  };
  const fresh = () => {
    updatedAt = Date.now();
    live.className = '';
    live.dataset.updatedAt = String(updatedAt);
    live.textContent = 'updated at ' + clock(updatedAt);
    body.classList.remove('stale');
  };
  const stale = (why) => {
    live.className = 'stale';
    live.textContent = 'stale: ' + why + (updatedAt ? ' (showing ' + clock(updatedAt) + ')' : '');
    body.classList.add('stale');
  };
  const read = async () => {
    try {
      const [page] = await Promise.all([
        fetch(base + '/', { headers: { accept: 'text/html' }, cache: 'no-store' }),
        readHistory(),
      ]);
      const next = page.ok ? mainIn(await page.text()) : null;
      if (next === null) {
        stale(page.ok ? 'the dashboard answered without its page' : 'the dashboard answered HTTP ' + page.status);
        return;
      }
      swap(next);
      const dead = Number(mainOf().dataset.deadLetters);
      if (dead > deadBefore) growth.push([Date.now(), dead - deadBefore]);
      deadBefore = dead;
      showGrowing();
      fresh();
    } catch (error) {
      stale(error instanceof TypeError ? 'the dashboard does not answer' : error.message);
    }
  };
  let chain = Promise.resolve();
  let timer;
  app.refresh = () => {
    clearTimeout(timer);
    chain = chain.then(read).finally(() => {
      clearTimeout(timer);
      timer = setTimeout(app.refresh, every);
    });
    return chain;
  };
  fresh();
  readHistory()
    .then(showGrowing, (error) => app.historyFailed(String(error)))
    .finally(() => {
      timer = setTimeout(app.refresh, every);
    });
})();
`;
