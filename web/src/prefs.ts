// The page frame and the visitor's switches kept in the browser: sound, theme, the pieces, the
// language.

import { play as playSound, setMuted } from './sound.js';
import type { SoundName } from './sound.js';
import { LANGS, type Lang, lang, setLang, translateStatic } from './i18n';
import { page } from './state';

export const app = document.getElementById('app') as HTMLElement;
export const soundBox = document.getElementById('sound') as HTMLInputElement;
soundBox.checked = localStorage.getItem('tsubame.sound') !== '0';
setMuted(!soundBox.checked);
soundBox.addEventListener('change', () => {
  localStorage.setItem('tsubame.sound', soundBox.checked ? '1' : '0');
  setMuted(!soundBox.checked);
});

/** The game sounds sound.js plays. */
export type { SoundName };

/** Plays a game sound; the switch keeps the name of the last one played. */
export function sound(name: SoundName) {
  if (playSound(name)) soundBox.parentElement!.dataset.played = name;
}

// The theme: the system's (auto), light or dark, remembered.
export const themeSelect = document.getElementById('theme') as HTMLSelectElement;
export function applyTheme(choice: string) {
  if (choice === 'light' || choice === 'dark') document.documentElement.dataset.theme = choice;
  else delete document.documentElement.dataset.theme;
}
const storedTheme = localStorage.getItem('tsubame.theme');
themeSelect.value = storedTheme === 'light' || storedTheme === 'dark' ? storedTheme : 'auto';
applyTheme(themeSelect.value);
themeSelect.addEventListener('change', () => {
  localStorage.setItem('tsubame.theme', themeSelect.value);
  applyTheme(themeSelect.value);
});

// The pieces: pictures (Tori's birds), kanji or Latin letters, remembered. Every piece on the
// page follows the page's `data-pieces` through CSS, so a change redraws nothing.
export const PIECE_SETS = ['pictures', 'kanji', 'latin'] as const;
export type PieceSet = typeof PIECE_SETS[number];
export const pieceSetSelect = document.getElementById('pieces') as HTMLSelectElement;
function storedPieceSet(): PieceSet {
  const stored = localStorage.getItem('tsubame.pieces');
  if (stored !== null && (PIECE_SETS as readonly string[]).includes(stored)) return stored as PieceSet;
  // The earlier switch kept only whether Latin letters were wanted: a visitor who had it (on or
  // off) keeps Latin letters or kanji; a new one gets pictures.
  const latin = localStorage.getItem('tsubame.latin');
  return latin === '1' ? 'latin' : latin === '0' ? 'kanji' : 'pictures';
}
export function applyPieceSet(choice: PieceSet) {
  document.documentElement.dataset.pieces = choice;
  pieceSetSelect.value = choice;
}
applyPieceSet(storedPieceSet());
pieceSetSelect.addEventListener('change', () => {
  const choice = (PIECE_SETS as readonly string[]).includes(pieceSetSelect.value) ? pieceSetSelect.value as PieceSet : 'pictures';
  localStorage.setItem('tsubame.pieces', choice);
  applyPieceSet(choice);
});

// The top bar's menu: on a narrow screen the pages and switches fold behind one button, so the
// bar stays one row; it closes again when a page is chosen.
const header = document.querySelector('header.top') as HTMLElement;
export const menuButton = document.getElementById('menu-button') as HTMLButtonElement;
export function setMenuOpen(open: boolean) {
  header.classList.toggle('menu-open', open);
  menuButton.setAttribute('aria-expanded', String(open));
}
menuButton.addEventListener('click', () => setMenuOpen(!header.classList.contains('menu-open')));
document.getElementById('menu')?.addEventListener('click', (event) => {
  if ((event.target as HTMLElement).closest('a')) setMenuOpen(false);
});

// On a wide screen the switches (pieces, sound, theme, language) open below their button, so
// that the bar stays one row whoever is logged in; on a narrow one they stand in the menu.
const displayButton = document.getElementById('display-button') as HTMLButtonElement;
const switches = document.getElementById('switches') as HTMLElement;
function setDisplayOpen(open: boolean) {
  // Right under the button, whose place depends on the words and the account beside it.
  if (open) switches.style.right = `${header.getBoundingClientRect().right - displayButton.getBoundingClientRect().right}px`;
  header.classList.toggle('display-open', open);
  displayButton.setAttribute('aria-expanded', String(open));
}
displayButton.addEventListener('click', () => setDisplayOpen(!header.classList.contains('display-open')));
document.addEventListener('click', (event) => {
  const target = event.target as HTMLElement;
  if (!target.closest?.('#switches, #display-button')) setDisplayOpen(false);
});
document.addEventListener('keydown', (event) => { if (event.key === 'Escape') setDisplayOpen(false); });

// The language: English or Japanese, the browser's unless chosen; a change redraws the page.
export const langSelect = document.getElementById('lang') as HTMLSelectElement;
langSelect.value = lang();
translateStatic();
langSelect.addEventListener('change', () => {
  const choice = (LANGS as string[]).includes(langSelect.value) ? langSelect.value as Lang : 'en';
  setLang(choice);
  // A page holding work its address does not keep speaks the new language from the next page
  // on, rather than lose the work.
  if (!page.holdsWork()) page.route();
});
