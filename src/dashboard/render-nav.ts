import { html, type SafeHtml } from './html.js';

/** The dashboard's pages, as the nav bar links them. */
export type DashboardPageName = 'overview' | 'dead-letters' | 'router';

const PAGES: readonly { name: DashboardPageName; label: string; path: string }[] = [
  { name: 'overview', label: 'Overview', path: '/' },
  { name: 'dead-letters', label: 'Dead letters', path: '/dead-letters' },
  { name: 'router', label: 'Router', path: '/router' },
];

/** The nav bar every dashboard page shows, `current` marked (`aria-current="page"`). */
export function navBar(basePath: string, current: DashboardPageName): SafeHtml {
  return html`<nav class="pages" aria-label="dashboard pages">${PAGES.map(
    (page) =>
      html`<a href="${basePath}${page.path}"${current === page.name ? html` aria-current="page"` : ''}>${page.label}</a>`,
  )}</nav>`;
}
