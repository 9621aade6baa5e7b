// The computer's levels as the pages show them: what each does and its estimated rating, and
// the level a visitor last chose.

import { el } from './dom';

/** Each level's estimated rating: from the levels' Tori ladder (`scripts/strength-levels`, 100
 * games each against the next, in docs/engine.md), placed so that level 4 is a newcomer's 1500. */
const LEVEL_RATINGS = [670, 930, 1170, 1500, 1800, 2200, 2440, 3000];

/** The computer's eight levels: what each does (the engine's limits for it) and its estimated
 * rating. */
export const COMPUTER_LEVELS: { words: string, rating: number, about: string }[] = [
  { words: 'first game', rating: LEVEL_RATINGS[0], about: 'Looks one move ahead and often plays its second to sixth choice: it misses captures and mates.' },
  { words: 'beginner', rating: LEVEL_RATINGS[1], about: 'A short look ahead, and now and then one of its four best moves rather than the best.' },
  { words: 'casual', rating: LEVEL_RATINGS[2], about: 'Sees simple tactics; still strays from its best move.' },
  { words: 'club', rating: LEVEL_RATINGS[3], about: 'A club player: a few moves ahead, seldom strays.' },
  { words: 'strong club', rating: LEVEL_RATINGS[4], about: 'Deeper, and strays only between moves of nearly equal worth.' },
  { words: 'expert', rating: LEVEL_RATINGS[5], about: 'Deeper still, strays very little.' },
  { words: 'master', rating: LEVEL_RATINGS[6], about: 'Always its best move, from a search of about a fifth of a second.' },
  { words: 'full strength', rating: LEVEL_RATINGS[7], about: 'The engine at full strength on the game\'s clock, up to 5 s a move.' },
];

/** The text of a level in a list: its number, what it is and its estimated rating. */
export function levelLabel(level: number): string {
  const info = COMPUTER_LEVELS[level - 1];
  return `${level}: ${info.words} (about ${info.rating})`;
}

/** The levels as a list's options, `chosen` selected; each label after `prefix`. */
export function levelOptions(chosen: number, prefix = '') {
  return COMPUTER_LEVELS.map((_, i) => el('option', { value: i + 1, selected: i + 1 === chosen }, `${prefix}${levelLabel(i + 1)}`));
}

/** The computer level last chosen here, level 1 for a first visit. */
export function computerLevel(): number {
  const stored = Number(localStorage.getItem('tsubame.computer-level'));
  return stored >= 1 && stored <= COMPUTER_LEVELS.length ? stored : 1;
}

export function rememberComputerLevel(level: number) {
  localStorage.setItem('tsubame.computer-level', String(level));
}

