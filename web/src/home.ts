// The home page's quick pairing, play-the-computer buttons and game cards.

import { dailyPuzzleNode } from './puzzles';
import { store, navigate } from './state';
import { myName } from './account';
import { api, errorText } from './api';
import { el } from './dom';
import { gameTitle, t } from './i18n';
import { miniBoard } from './pieces';
import { RULES_INTRO } from './rules';
import { computerLevel, engineQueueNote, levelOptions, rememberComputerLevel } from './levels';
import type { GameView, TimeControl } from './types';
import type { SeatGrant } from './api-types';

export const QUICK_CONTROLS: Record<string, [number, number][] | undefined> = {
  tori: [[3, 10], [5, 10], [10, 30]],
  wa: [[10, 30], [20, 30], [30, 60]],
  tenjiku: [[20, 30], [30, 60], [60, 60]],
};

export function quickClock([minutes, seconds]: [number, number]): TimeControl {
  return { kind: 'byoyomi', main_ms: minutes * 60000, periods: 1, period_ms: seconds * 1000 };
}

export function sameClock(a: TimeControl, b: TimeControl): boolean {
  return JSON.stringify(a) === JSON.stringify({ ...b });
}

/** The style rules naming a variant's pieces, added once. */
export function isOwnSeek(game: GameView): boolean {
  const name = myName();
  return Boolean(localStorage.getItem(`tsubame.token.${game.id}`))
    || (name !== null && [game.sente_name, game.gote_name].includes(name));
}

/** Joins an open seek of this game and clock, or makes one, and opens the game. */
export async function quickPair(variant: string, control: [number, number]) {
  const clock = quickClock(control);
  // Logged in, quick pairing is rated, as on the play sites; guests play casual games.
  const rated = Boolean(myName());
  const seeks = await api<GameView[]>('/api/lobby');
  const match = seeks.find((g) => g.variant === variant && sameClock(g.time_control, clock)
    && !isOwnSeek(g) && g.rated === rated && !g.rating_range);
  const grant = match
    ? await api<SeatGrant>(`/api/games/${match.id}/join`, {})
    : await api<SeatGrant>('/api/games', { variant, opponent: 'human', side: 'random', clock, public: true, rated });
  localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
  navigate(`/game/${grant.game_id}`);
}

export async function playComputer(variant: string, level: number) {
  // Every game the site offers has its quick controls.
  const clock = quickClock(QUICK_CONTROLS[variant]![1]);
  const grant = await api<SeatGrant>('/api/games', { variant, opponent: 'engine', level, side: 'sente', clock });
  localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
  navigate(`/game/${grant.game_id}`);
}

/** The computer's level for the home page's games, remembered for the next visit. */
function levelPicker(variant: string) {
  const chosen = computerLevel();
  return el('select', { name: 'computer-level', 'data-computer-level': variant, 'aria-label': t('lobby.computer-level'),
    title: t('lobby.computer-level-title'),
    onchange: (event: Event) => {
      const picked = event.target as HTMLSelectElement;
      rememberComputerLevel(Number(picked.value));
      for (const other of document.querySelectorAll<HTMLSelectElement>('[data-computer-level]')) other.value = picked.value;
    } }, levelOptions(chosen, `${t('lobby.level')} `, variant));
}

export function homeNode(beside: HTMLElement | null = null) {
  const error = el('div', { class: 'error', 'data-home-error': '' });
  const attempt = (action: () => Promise<void>) => async () => {
    error.textContent = '';
    try { await action(); } catch (e) { error.textContent = errorText(e); }
  };
  const cards = store.variants.filter((v) => v.available).map((v) => el('section', { class: 'panel game-card', 'data-game': v.name },
    // About 128 pixels across, whatever the board's size.
    miniBoard(v.name, v.start_sfen, Math.round(128 / v.files)),
    el('div', { class: 'game-card-text' },
      el('h2', {}, gameTitle(v)),
      el('p', {}, RULES_INTRO[v.name] || ''),
      el('div', { class: 'quick' }, (QUICK_CONTROLS[v.name] || []).map((control) => el('button', {
        type: 'button', 'data-quick': `${v.name} ${control[0]}+${control[1]}`,
        title: t('lobby.quick-title', { minutes: control[0], seconds: control[1] }),
        onclick: attempt(() => quickPair(v.name, control)) }, t('lobby.quick-label', { minutes: control[0], seconds: control[1] }))))),
    // Under the board and the words, across the whole card: the computer's level names itself
    // and its rating in full, which the words' column is too narrow for.
    el('div', { class: 'row game-card-foot' },
      el('button', { type: 'button', class: 'secondary', 'data-computer': v.name,
        onclick: attempt(() => playComputer(v.name, computerLevel())) }, t('lobby.play-computer')),
      levelPicker(v.name),
      el('a', { href: `/rules/${v.name}` }, t('lobby.rules-and-pieces')),
      el('a', { href: `/learn/${v.name}`, 'data-learn-link': v.name }, t('lobby.learn-to-play')))));
  // The day's puzzle comes when the server answers; without one the page shows none.
  const daily = el('div', { class: 'daily-host' });
  dailyPuzzleNode('tori').then((node) => daily.replaceWith(node), () => daily.remove());
  return el('div', { class: 'home' },
    el('p', { class: 'tagline' }, t('lobby.tagline')),
    el('div', { class: 'game-cards' }, cards), engineQueueNote(), el('div', { class: 'home-row' }, daily, beside), error);
}

// ---------------------------------------------------------------------------------------------
// Lobby

// Rule options in plain words: the server names them for programs (`drop-mate: loses`); a
// player reads what each choice means. Options missing here show the server's own help.
