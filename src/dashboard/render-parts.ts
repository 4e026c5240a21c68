import { isUnavailable, type SnapshotPart } from './dashboard-snapshot.js';
import { html, type SafeHtml } from './html.js';

/** A button that POSTs `body` to `path` (see `page-script.ts`), asking `confirm` first when given. */
export function action(label: string, path: string, body: object, confirm?: string): SafeHtml {
  return html`<button type="button" data-post="${path}" data-body="${JSON.stringify(body)}" data-confirm="${confirm}">${label}</button>`;
}

/** A section whose data could not be read: its title and `unavailable: <message>`. */
export function unavailableSection(
  id: string,
  title: string,
  part: { readonly unavailable: string },
): SafeHtml {
  return html`<section id="${id}"><h2>${title}</h2><p class="error unavailable">unavailable: ${part.unavailable}</p></section>`;
}

/** Renders `part` with `render`, or says why it is unavailable. */
export function sectionOf<T>(
  part: SnapshotPart<T>,
  id: string,
  title: string,
  render: (value: T) => SafeHtml,
): SafeHtml {
  return isUnavailable(part) ? unavailableSection(id, title, part) : render(part);
}
