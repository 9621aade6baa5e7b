// The Tsubame web UI: lobby, play board, replay, import and analysis. The server is the
// authority on rules: the board only offers the legal moves the server lists, and every move
// goes to the server, which answers with the new position. Each page is a module of its own;
// this one routes between them.

import { page, store } from './state';
import { accountPage, refreshAccount } from './account';
import { analysisPage } from './analysis';
import { api } from './api';
import { el } from './dom';
import { gamePage, joinPage } from './game';
import { importPage } from './import';
import { lobbyPage } from './lobby';
import { playerPage } from './player';
import { puzzlePage } from './puzzles';
import { learnPage } from './learn';
import { app } from './prefs';
import { rulesPage } from './rules';

export async function route() {
  page.cleanup();
  page.cleanup = () => {};
  // Each page shows who is logged in and how many games wait for them as of now.
  refreshAccount();
  // A player's page has an address of its own, `/@/name`, to share.
  const playerPath = location.pathname.match(/^\/@\/([A-Za-z0-9_-]+)\/?$/);
  if (playerPath && !location.hash) return playerPage(playerPath[1]);
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'game' && parts[1]) return gamePage(parts[1]);
  if (parts[0] === 'join' && parts[1]) return joinPage(parts[1], parts[2]);
  if (parts[0] === 'import') return importPage();
  if (parts[0] === 'analysis') return analysisPage();
  if (parts[0] === 'rules') return rulesPage(parts[1] || 'tori');
  if (parts[0] === 'puzzles') return puzzlePage(parts[1], parts[2]);
  if (parts[0] === 'learn') return learnPage(parts[1]);
  if (parts[0] === 'login' || parts[0] === 'signup') return accountPage(parts[0]);
  if (parts[0] === '@' && parts[1]) return playerPage(decodeURIComponent(parts[1]));
  return lobbyPage();
}

export async function start() {
  try {
    store.variants = await api('/api/variants');
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, `cannot reach the server: ${e.message}`));
    return;
  }
  await refreshAccount();
  setInterval(refreshAccount, 15000);
  window.addEventListener('hashchange', route);
  page.route();
}

page.route = route;
start();
