// The computer's levels as the pages show them: what each does and its estimated rating, and
// the level a visitor last chose.

import { el } from './dom';
import { t } from './i18n';

/** Each level's estimated rating: from the levels' Tori ladder (`scripts/strength-levels`, 100
 * games each against the next, in docs/engine.md), placed so that level 4 is a newcomer's 1500. */
const LEVEL_RATINGS = [670, 930, 1170, 1500, 1800, 2200, 2440, 3000];

/** One level: its words and what it does are read in the visitor's language when asked. */
function level(rating: number, words: () => string, about: () => string) {
  return { rating, get words() { return words(); }, get about() { return about(); } };
}

/** The computer's eight levels: what each does (the engine's limits for it) and its estimated
 * rating. */
export const COMPUTER_LEVELS: { words: string, rating: number, about: string }[] = [
  level(LEVEL_RATINGS[0], () => t('lobby.level-first-game'), () => t('lobby.level-first-game-about')),
  level(LEVEL_RATINGS[1], () => t('lobby.level-beginner'), () => t('lobby.level-beginner-about')),
  level(LEVEL_RATINGS[2], () => t('lobby.level-casual'), () => t('lobby.level-casual-about')),
  level(LEVEL_RATINGS[3], () => t('lobby.level-club'), () => t('lobby.level-club-about')),
  level(LEVEL_RATINGS[4], () => t('lobby.level-strong-club'), () => t('lobby.level-strong-club-about')),
  level(LEVEL_RATINGS[5], () => t('lobby.level-expert'), () => t('lobby.level-expert-about')),
  level(LEVEL_RATINGS[6], () => t('lobby.level-master'), () => t('lobby.level-master-about')),
  level(LEVEL_RATINGS[7], () => t('lobby.level-full-strength'), () => t('lobby.level-full-strength-about')),
];

/** The text of a level in a list: its number, what it is and its estimated rating. */
export function levelLabel(level: number): string {
  const info = COMPUTER_LEVELS[level - 1];
  return t('lobby.level-label', { level, words: info.words, rating: info.rating });
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

