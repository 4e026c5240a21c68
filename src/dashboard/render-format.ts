import { html, type SafeHtml } from './html.js';

/** A moment as `YYYY-MM-DD HH:MM:SS` (UTC) in a `<time>` element. */
export function time(at: Date | number | string): SafeHtml {
  const iso = new Date(at).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)}</time>`;
}

/** A duration in words: `850 ms`, `42 s`, `12 min`, `5 h`. */
export function age(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** A state that needs attention in words and colour: `<span class="label">HALTED</span>` and its text. */
export function flagged(label: string, text: SafeHtml | string): SafeHtml {
  return html`<span class="label">${label}</span>${text}`;
}

/** A payload that is JSON, indented; anything else as it is (shown as text either way). */
export function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}
