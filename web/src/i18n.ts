// The UI's words in English and Japanese, from one message catalogue: a file per part of the
// site under `messages/` (`frame`, `game`, ...), each holding the same keys in both languages.
// `t('frame.nav-play')` is the word in the visitor's language; `{name}` in a text is filled from
// the parameters. The language is the visitor's choice, else the browser's, and the page's
// `lang` follows it.

import type { RoleInfo, VariantInfo } from './types';

type Texts = Record<string, string>;
type Area = { en: Texts; ja: Texts };

// Every part of the catalogue, by the first word of its keys. esbuild bundles the JSON files.
import frame from './messages/frame.json';
import game from './messages/game.json';
import board from './messages/board.json';
import analysis from './messages/analysis.json';
import lobby from './messages/lobby.json';
import account from './messages/account.json';
import importArea from './messages/import.json';
import options from './messages/options.json';
import learn from './messages/learn.json';
import lesson from './messages/lesson.json';
import puzzles from './messages/puzzles.json';
import rules from './messages/rules.json';
import editor from './messages/editor.json';
import settings from './messages/settings.json';
import moderation from './messages/moderation.json';
import challenge from './messages/challenge.json';
import arena from './messages/arena.json';
import errors from './messages/errors.json';

const CATALOGUE: Record<string, Area> = { frame, game, board, analysis, lobby, account, import: importArea, options, learn, lesson, puzzles, rules, editor, settings, moderation, challenge, arena, errors };

export type Lang = 'en' | 'ja';
export const LANGS: Lang[] = ['en', 'ja'];

function initialLang(): Lang {
  const stored = localStorage.getItem('tsubame.lang');
  if (stored === 'en' || stored === 'ja') return stored;
  // The first of the browser's languages that the site speaks.
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  const spoken = preferred.find((l) => /^(en|ja)\b/i.test(l || ''));
  return spoken && /^ja\b/i.test(spoken) ? 'ja' : 'en';
}

let current: Lang = initialLang();
document.documentElement.lang = current;

/** The visitor's language. */
export function lang(): Lang {
  return current;
}

/** Chooses the language, remembered in this browser; the page's own words follow at once. */
export function setLang(choice: Lang) {
  current = choice;
  localStorage.setItem('tsubame.lang', choice);
  document.documentElement.lang = choice;
  translateStatic();
}

/** The text of `key` (`area.name`) in the visitor's language, `{param}`s filled in. */
export function t(key: string, params: Record<string, string | number> = {}): string {
  const dot = key.indexOf('.');
  const area = CATALOGUE[key.slice(0, dot)];
  const name = key.slice(dot + 1);
  const text = area?.[current]?.[name] ?? area?.en?.[name] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, param) => (param in params ? String(params[param]) : whole));
}

/** Whether the catalogue has `key` (`area.name`). */
export function hasText(key: string): boolean {
  const dot = key.indexOf('.');
  return CATALOGUE[key.slice(0, dot)]?.en?.[key.slice(dot + 1)] !== undefined;
}

/** A text that depends on a count: `key.one` for one, `key.other` otherwise (Japanese has
 * only `.other`); `{count}` is the count. */
export function tn(key: string, count: number, params: Record<string, string | number> = {}): string {
  const dot = key.indexOf('.');
  const area = CATALOGUE[key.slice(0, dot)];
  const one = `${key.slice(dot + 1)}.one`;
  const form = count === 1 && area?.[current]?.[one] !== undefined ? 'one' : 'other';
  return t(`${key}.${form}`, { count, ...params });
}

/** A game's name: "Tori shogi", 禽将棋. */
export function gameTitle(variant: Pick<VariantInfo, 'name' | 'title'> | undefined, name = ''): string {
  const key = variant?.name || name;
  return current === 'ja' ? t(`frame.game-${key}`) : variant?.title || key;
}

/** A piece's name: its English name, or in Japanese the kanji the literature writes. */
export function pieceName(role: Pick<RoleInfo, 'name' | 'kanji'>): string {
  return current === 'ja' ? role.kanji : role.name;
}

/** A side's name: "sente", 先手; anything but a side as it is. */
export function sideName(side: string): string {
  return side === 'sente' || side === 'gote' ? t(`frame.${side}`) : side;
}

/** The text of `key` with some of its `{name}`s taken by nodes (a link, a code element), for
 * a sentence whose word order differs between the languages; the other `{param}`s filled in. */
export function tParts<N>(key: string, nodes: Record<string, N>, params: Record<string, string | number> = {}): (string | N)[] {
  return t(key, params).split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? nodes[part] ?? `{${part}}` : part))
    .filter((part) => part !== '');
}

/** The words written into the page itself (the top bar): elements with `data-i18n` take the
 * key's text, `data-i18n-title` and `data-i18n-label` their title and accessible name. */
export function translateStatic(root: ParentNode = document) {
  for (const node of root.querySelectorAll<HTMLElement>('[data-i18n]')) node.textContent = t(node.dataset.i18n ?? '');
  for (const node of root.querySelectorAll<HTMLElement>('[data-i18n-title]')) node.title = t(node.dataset.i18nTitle ?? '');
  for (const node of root.querySelectorAll<HTMLElement>('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel ?? ''));
}
