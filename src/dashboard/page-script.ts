/**
 * The page's one script (no build step): buttons and forms with `data-post`
 * POST JSON to the dashboard's API (a form's submit button may name
 * another path in `data-path`, and ask first with `data-confirm`) with the header that proves the request
 * comes from this page (see `request-guard.ts`), then the page is read
 * again (see `live-script.ts`, which it runs after), and the outcome shown in `#status`.
 */
export const PAGE_SCRIPT = `
(() => {
  const base = document.body.dataset.base || '';
  const status = document.getElementById('status');
  const say = (text, failed) => {
    status.textContent = text;
    status.className = failed ? 'failed' : 'ok';
  };
  const refresh = () => window.__commitbus.refresh();
  const post = async (path, body) => {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({ message: response.statusText }));
    say(answer.message || response.statusText, !response.ok);
    await refresh();
  };
  const fields = (form) => {
    const out = {};
    for (const [name, value] of new FormData(form)) if (value !== '') out[name] = String(value);
    return out;
  };
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-post]');
    if (!button) return;
    event.preventDefault();
    if (button.dataset.confirm && !confirm(button.dataset.confirm)) return;
    post(button.dataset.post, JSON.parse(button.dataset.body || '{}')).catch((e) => say(String(e), true));
  });
  document.addEventListener('submit', (event) => {
    const form = event.target.closest('form[data-post]');
    if (!form) return;
    event.preventDefault();
    const submitter = event.submitter || {};
    const how = submitter.dataset || {};
    if (how.confirm && !confirm(how.confirm)) return;
    const body = fields(form);
    post(how.path || form.dataset.post, form.dataset.wrap ? { [form.dataset.wrap]: body } : body).catch((e) => say(String(e), true));
  });
  document.getElementById('refresh').addEventListener('click', () => refresh().then(() => say('refreshed', false)));
})();
`;
