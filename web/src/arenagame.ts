// Taking a paired player to their new arena game. The arena pairs without asking, and the
// first move has a deadline: wherever the player is on the site (the arena page, the finished
// game's page, the lobby), a new game of theirs opens at once, with a sound; while they play
// another game, a notice with a link appears instead, so that no clock runs on unwatched. Each
// game is opened once per browser, so a player who leaves a game in play is not dragged back.

import { el } from './dom';
import { t } from './i18n';
import { sound } from './prefs';
import { navigate, page } from './state';

const taken = (game: string) => `tsubame.arena-taken.${game}`;
/** The games opened in this tab (when the browser's storage refuses to keep them). */
const openedHere = new Set<string>();

/** Whether this browser has opened the game already. */
function seenBefore(game: string): boolean {
  try {
    return openedHere.has(game) || localStorage.getItem(taken(game)) !== null;
  } catch {
    return openedHere.has(game);
  }
}

/** Notes that this browser opens the game now. */
function noteOpened(game: string) {
  openedHere.add(game);
  try {
    localStorage.setItem(taken(game), String(Date.now()));
    // Old marks go: a game is over within a day.
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const key = localStorage.key(i);
      if (key?.startsWith('tsubame.arena-taken.') && Date.now() - Number(localStorage.getItem(key)) > 86_400_000) {
        localStorage.removeItem(key);
      }
    }
  } catch { /* storage refused: this tab's memory keeps it */ }
}

/** A notice at the top of the page that the game has started, with a link to it. */
function notice(game: string) {
  document.querySelector('[data-arena-call]')?.remove();
  const call = el('div', { class: 'arena-call', role: 'alert', 'data-arena-call': game },
    t('arena.game-started'), ' ',
    el('a', { href: `/game/${game}`, onclick: () => call.remove() }, t('arena.open-game')));
  document.body.append(call);
}

/** Opens the player's new arena game `game`, unless this browser has opened it already. */
export function takeToArenaGame(game: string | null | undefined) {
  if (!game) return;
  const here = location.pathname === `/game/${game}`;
  if (seenBefore(game) || here) return;
  const playing = page.playing();
  // While the player's page still plays another game (its end may not have reached the page
  // yet), a notice: the game is opened, not marked, so that the arena page the finished game
  // leads to opens it then.
  if (playing && playing !== game) {
    if (document.querySelector('[data-arena-call]')?.getAttribute('data-arena-call') !== game) sound('start');
    notice(game);
    return;
  }
  sound('start');
  noteOpened(game);
  navigate(`/game/${game}`);
}
