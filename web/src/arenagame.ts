// Taking a paired player to their new arena game. The arena pairs without asking, and the
// first move has a deadline: wherever the player is on the site (the arena page, the finished
// game's page, the lobby), a new game of theirs opens at once, with a sound. Each game is
// opened once per browser, so a player who leaves a game in play is not dragged back to it.

import { sound } from './prefs';
import { navigate } from './state';

const taken = (game: string) => `tsubame.arena-taken.${game}`;

/** Opens the player's new arena game `game`, unless this browser has opened it already. */
export function takeToArenaGame(game: string | null | undefined) {
  if (!game) return;
  const here = location.pathname === `/game/${game}`;
  let seen = false;
  try {
    seen = localStorage.getItem(taken(game)) !== null;
    localStorage.setItem(taken(game), String(Date.now()));
  } catch { /* storage refused: open it anyway */ }
  if (seen || here) return;
  sound('start');
  navigate(`/game/${game}`);
}
