// The Tsubame web UI: lobby, play board, replay, import and analysis. The server is the
// authority on rules: the board only offers the legal moves the server lists, and every move
// goes to the server, which answers with the new position. Each page is a module of its own;
// this one routes between them.

import { page, store, navigate } from './state';
import { accountPage, refreshAccount } from './account';
import { analysisPage } from './analysis';
import { editorPage } from './editor';
import { api, errorText } from './api';
import { el } from './dom';
import { gamePage, joinPage } from './game';
import { importPage } from './import';
import { lobbyPage } from './lobby';
import { playerPage } from './player';
import { puzzlePage } from './puzzles';
import { learnPage } from './learn';
import { app, setMenuOpen } from './prefs';
import { rulesPage } from './rules';
import { settingsPage } from './settings';
import { adminPage } from './moderation';
import { tvPage } from './tv';
import { tournamentPage, tournamentsPage } from './tournaments';
import { gameTitle, t } from './i18n';
import { notFoundPage } from './notfound';
import type { VariantInfo } from './types';

export async function route() {
  page.cleanup();
  page.cleanup = () => {};
  page.rerender = () => {};
  page.holdsWork = () => false;
  page.playing = () => null;
  // The notice of a new arena game goes once the game is open.
  const call = document.querySelector<HTMLElement>('[data-arena-call]');
  if (call && location.pathname === `/game/${call.dataset.arenaCall}`) call.remove();
  setMenuOpen(false);
  // Links from before the site had real addresses (`/#/rules/wa`) open the page they named.
  if (location.hash.startsWith('#/')) history.replaceState(null, '', location.hash.slice(1) || '/');
  // Each page shows who is logged in and how many games wait for them as of now.
  refreshAccount();
  const parts = location.pathname.replace(/^\/+|\/+$/g, '').split('/').map((part) => {
    try { return decodeURIComponent(part); } catch { return part; }
  });
  const [first, second, third] = parts;
  const game = (name: string | undefined) => name === undefined || store.variants.some((v) => v.name === name);
  const title = (name: string) => gameTitle(store.variants.find((v) => v.name === name), name);
  // Every page has its heading for screen readers, whatever the page draws.
  const heading = (text: string) => { pageHeading.textContent = text; };
  if (parts.length === 1 && first === '') { heading(t('frame.heading-home')); return lobbyPage(); }
  if (first === 'game' && second && parts.length === 2) { heading(t('frame.heading-game')); return gamePage(second); }
  if (first === 'join' && second && third && parts.length === 3) { heading(t('frame.heading-join')); return joinPage(second, third); }
  if (first === 'import' && parts.length === 1) { heading(t('frame.heading-import')); return importPage(); }
  if (first === 'analysis' && parts.length === 1) { heading(t('frame.heading-analysis')); return analysisPage(); }
  if (first === 'editor' && parts.length <= 2 && game(second)) { heading(t('frame.heading-editor')); return editorPage(second); }
  if (first === 'rules' && parts.length <= 2 && game(second)) { heading(t('frame.heading-rules', { game: title(second || 'tori') })); return rulesPage(second || 'tori'); }
  if (first === 'puzzles' && parts.length <= 3 && game(second)) { heading(t('frame.heading-puzzles')); return puzzlePage(second, third); }
  if (first === 'learn' && parts.length <= 3 && game(second)) { heading(t('frame.heading-learn')); return learnPage(second, third); }
  if ((first === 'login' || first === 'signup') && parts.length === 1) { heading(t(first === 'login' ? 'frame.heading-login' : 'frame.heading-signup')); return accountPage(first); }
  if (first === 'tv' && parts.length <= 2 && game(second)) { heading(t('frame.heading-tv')); return tvPage(second); }
  if (first === 'tournaments' && parts.length === 1) { heading(t('frame.heading-tournaments')); return tournamentsPage(); }
  if (first === 'tournament' && second && parts.length === 2) { heading(t('frame.heading-tournament')); return tournamentPage(second); }
  if (first === 'admin' && parts.length === 1) { heading(t('frame.heading-admin')); return adminPage(); }
  if (first === 'account' && parts.length === 1) { heading(t('frame.heading-settings')); return settingsPage(); }
  if (first === '@' && second && parts.length === 2) { heading(t('frame.heading-player', { name: second })); return playerPage(second); }
  heading(t('frame.heading-not-found'));
  return notFoundPage();
}

const pageHeading = document.getElementById('page-heading') as HTMLElement;

/** A click on a link to one of the site's pages shows the page without loading the site
 * again; a link opened in a new tab, a download or another site's link goes its own way. */
function followLink(event: MouseEvent) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = (event.target as HTMLElement).closest?.('a[href]') as HTMLAnchorElement | null;
  if (!link || link.target || link.hasAttribute('download')) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/assets/')) return;
  event.preventDefault();
  if (url.pathname + url.search !== location.pathname + location.search) navigate(url.pathname + url.search);
}

export async function start() {
  try {
    store.variants = await api<VariantInfo[]>('/api/variants');
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, t('frame.no-server', { error: errorText(e) })));
    return;
  }
  await refreshAccount();
  setInterval(refreshAccount, 15000);
  // A part of the site that saw the session end (a stream or socket the server closed).
  window.addEventListener('tsubame:account-changed', () => refreshAccount());
  document.addEventListener('click', followLink);
  window.addEventListener('popstate', route);
  page.route();
}

page.route = route;
start();
