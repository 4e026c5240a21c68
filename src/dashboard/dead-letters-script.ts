/**
 * The dead-letter browser's script (no build step). A button with
 * `data-bulk` (a JSON body: action, filter, group) asks the server for the
 * count first (`dryRun`), shows it in `#confirm` ("Re-drive 37 dead letters
 * of handler X with error 'Y'?"), and only its Confirm button posts the
 * action, with the preview the dry run returned, so the server acts on
 * exactly what was counted. A button with `data-post` posts its `data-body`
 * at once, after the browser's confirm when it has `data-confirm`. Every POST
 * carries the header of `request-guard.ts`; the page is read again after an
 * action. Server text reaches the page only as `textContent`.
 */
export const DEAD_LETTERS_SCRIPT = `
(() => {
  const base = document.body.dataset.base || '';
  const status = document.getElementById('status');
  const box = document.getElementById('confirm');
  let pending;
  const say = (text, failed) => {
    status.textContent = text;
    status.className = failed ? 'failed' : 'ok';
  };
  const post = async (path, body) => {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({ message: response.statusText }));
    // A refusal rejects with its message (fail() shows it); no Error object is needed in the page.
    if (!response.ok) throw { message: answer.message || response.statusText };
    return answer;
  };
  const refresh = async () => {
    const response = await fetch(location.href, { headers: { accept: 'text/html' } });
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    const main = page.querySelector('main');
    // A refusal (401, 503) is a page without the list: keep the one shown, and say so.
    if (!response.ok || main === null) throw { message: 'could not read the page again: HTTP ' + response.status };
    document.querySelector('main').replaceWith(main);
  };
  const hide = () => {
    pending = undefined;
    if (box) box.hidden = true;
  };
  const preview = async (body) => {
    const answer = await post('/api/dead-letters/bulk', { ...body, dryRun: true });
    if (answer.count === 0) {
      hide();
      say('no dead letters match: nothing to do', false);
      return;
    }
    pending = { ...body, preview: { count: answer.count, notAfter: answer.notAfter, digest: answer.digest } };
    document.getElementById('confirm-text').textContent = answer.message;
    box.hidden = false;
    document.getElementById('confirm-yes').focus();
  };
  const confirmPending = async () => {
    const body = pending;
    hide();
    if (!body) return;
    const answer = await post('/api/dead-letters/bulk', body);
    say(answer.message, false);
    await refresh();
  };
  const fail = (error) => say(String(error.message || error), true);
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (!button) return;
    if (button.id === 'confirm-yes') return void confirmPending().catch(fail);
    if (button.id === 'confirm-no') return void (hide(), say('cancelled: nothing was done', false));
    if (button.dataset.bulk) return void preview(JSON.parse(button.dataset.bulk)).catch(fail);
    if (!button.dataset.post) return;
    if (button.dataset.confirm && !confirm(button.dataset.confirm)) return;
    post(button.dataset.post, JSON.parse(button.dataset.body || '{}'))
      .then((answer) => { say(answer.message, false); return refresh(); })
      .catch(fail);
  });
})();
`;
