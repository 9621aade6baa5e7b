// The computer's levels as the pages show them: what each does and its estimated rating, and
// the level a visitor last chose.

import { api } from './api';
import { el } from './dom';
import { t } from './i18n';
import type { EngineQueue } from './api-types';

/** Each level's estimated rating by game: from the levels' ladders (`scripts/strength-levels`,
 * each level against the next, in docs/engine.md), placed so that level 4 is a newcomer's 1500.
 * Tenjiku's levels have budgets of their own, and their own ladder. */
const LEVEL_RATINGS: Record<string, number[]> = {
  tori: [670, 930, 1170, 1500, 1800, 2200, 2440, 3000],
  wa: [825, 950, 1330, 1500, 1670, 2005, 2245, 2720],
  tenjiku: [965, 1155, 1330, 1500, 1730, 1855, 1970, 2110],
};
/** Without a game named, Tori's: the lists that name none are Tori's first. */
const ratingsOf = (variant?: string): number[] | undefined => LEVEL_RATINGS[variant || 'tori'];

/** One level: its words and what it does are read in the visitor's language when asked. */
function level(words: () => string, about: () => string) {
  return { get words() { return words(); }, get about() { return about(); } };
}

/** The computer's eight levels: what each is and does (the engine's limits for it). */
export const COMPUTER_LEVELS: { words: string, about: string }[] = [
  level(() => t('lobby.level-first-game'), () => t('lobby.level-first-game-about')),
  level(() => t('lobby.level-beginner'), () => t('lobby.level-beginner-about')),
  level(() => t('lobby.level-casual'), () => t('lobby.level-casual-about')),
  level(() => t('lobby.level-club'), () => t('lobby.level-club-about')),
  level(() => t('lobby.level-strong-club'), () => t('lobby.level-strong-club-about')),
  level(() => t('lobby.level-expert'), () => t('lobby.level-expert-about')),
  level(() => t('lobby.level-master'), () => t('lobby.level-master-about')),
  level(() => t('lobby.level-full-strength'), () => t('lobby.level-full-strength-about')),
];

/** What a level does in a game: Tenjiku's levels have budgets of their own (the engine's
 * `TENJIKU_LEVELS`), so below the top level they are told apart by how much of one ply they see. */
export function levelAbout(level: number, variant?: string): string {
  const tenjiku = variant === 'tenjiku' ? TENJIKU_ABOUT[level - 1] : undefined;
  return tenjiku ? tenjiku() : COMPUTER_LEVELS[level - 1].about;
}

/** Tenjiku's levels 1-7; level 8 is every game's full strength. */
const TENJIKU_ABOUT = [
  () => t('lobby.level-tenjiku-1-about'), () => t('lobby.level-tenjiku-2-about'),
  () => t('lobby.level-tenjiku-3-about'), () => t('lobby.level-tenjiku-4-about'),
  () => t('lobby.level-tenjiku-5-about'), () => t('lobby.level-tenjiku-6-about'),
  () => t('lobby.level-tenjiku-7-about'),
];

/** The text of a level in a list: its number, what it is and its estimated rating in the game. */
export function levelLabel(level: number, variant?: string): string {
  const info = COMPUTER_LEVELS[level - 1];
  const rating = ratingsOf(variant)?.[level - 1];
  return rating === undefined ? t('lobby.level-label-unmeasured', { level, words: info.words })
    : t('lobby.level-label', { level, words: info.words, rating });
}

/** The levels as a list's options for a game, `chosen` selected; each label after `prefix`. */
export function levelOptions(chosen: number, prefix = '', variant?: string) {
  return COMPUTER_LEVELS.map((_, i) => el('option', { value: i + 1, selected: i + 1 === chosen }, `${prefix}${levelLabel(i + 1, variant)}`));
}

/** The computer level last chosen here, level 1 for a first visit. */
export function computerLevel(): number {
  const stored = Number(localStorage.getItem('tsubame.computer-level'));
  return stored >= 1 && stored <= COMPUTER_LEVELS.length ? stored : 1;
}

export function rememberComputerLevel(level: number) {
  localStorage.setItem('tsubame.computer-level', String(level));
}


/** A note beside the computer's levels, shown only while its moves wait long (the server's
 * engine work queued: `GET /api/engine/queue`); `showEngineQueue` fills it in. */
export function engineQueueNote(): HTMLElement {
  const note = el('p', { class: 'help engine-queue', 'data-engine-queue': '', role: 'status', hidden: '' });
  showEngineQueue(note);
  return note;
}

/** Asks the server how long the computer's moves wait, and shows or hides the note. */
export async function showEngineQueue(note: HTMLElement) {
  let queue: EngineQueue;
  try { queue = await api<EngineQueue>('/api/engine/queue'); } catch { return; }
  const seconds = Math.max(1, Math.round(Math.max(queue.recent_wait_ms, queue.oldest_wait_ms) / 1000));
  note.textContent = queue.long ? t('lobby.computer-slow', { seconds }) : '';
  note.hidden = !queue.long;
}
