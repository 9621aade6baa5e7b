// The site's "not found" page: an address that is none of the site's pages, or a player or an
// arena that does not exist. The server answers such an address with 404; the page says so in
// the visitor's language, with the address as written and the ways on.

import { el } from './dom';
import { t, tParts } from './i18n';
import { app } from './prefs';

/** Shows the "not found" page in place of the page's content. */
export function notFoundPage() {
  document.title = t('frame.not-found-title');
  app.replaceChildren(el('div', { class: 'panel not-found', 'data-not-found': '' },
    el('h2', {}, t('frame.not-found')),
    // The address stands as written, in the sentence of either language.
    el('p', {}, ...tParts('frame.not-found-text', { path: el('code', {}, location.pathname) })),
    el('p', {}, el('a', { href: '/' }, t('frame.nav-play')), ' · ', el('a', { href: '/puzzles' }, t('frame.nav-puzzles')), ' · ',
      el('a', { href: '/learn' }, t('frame.nav-learn')), ' · ', el('a', { href: '/rules/tori' }, t('frame.nav-rules')))));
}
