// Parts of the game and analysis pages: clocks, the move list, exports, chat.

import { formatClock } from './clock.js';
import { el } from './dom';
import { formatMs } from './util';
import { store } from './state';
import { lang, t, tn } from './i18n';
import type { ChatLine, GameView, MoveRecord, ReplayedGame, Room, Side, TimeControl } from './api-types';

export function clockText(control: TimeControl | null | undefined): string {
  if (!control || control.kind === 'unlimited') return t('game.clock-unlimited');
  if (control.kind === 'fischer') return t('game.clock-fischer', { main: formatMs(control.main_ms), seconds: control.increment_ms / 1000 });
  if (control.kind === 'correspondence') return tn('game.clock-days', control.days_per_move);
  return t('game.clock-byoyomi-control', { main: formatMs(control.main_ms), periods: control.periods, seconds: control.period_ms / 1000 });
}

// ---------------------------------------------------------------------------------------------
// Play

// The notations a move list can be read in; the Japanese (KIF) and play-site forms exist for
// Tori only, other games show Hodges there.
export type Notation = 'hodges' | 'short' | 'japanese' | 'usi';
export const NOTATIONS: [Notation, string][] = [
  ['hodges', 'Hodges'], ['short', 'Play site'], ['japanese', '日本式'], ['usi', 'USI']];

/** A notation's name in the visitor's language (the play sites' form is the one in words). */
function notationLabel(key: string, label: string): string {
  return key === 'short' ? t('game.notation-play-site') : label;
}

/** The notation the visitor chose, else their language's: 日本式 (as KIF writes it) in
 * Japanese, Hodges in English. */
export function notation(): Notation {
  const chosen = localStorage.getItem('tsubame.notation');
  const known = NOTATIONS.find(([key]) => key === chosen);
  if (known) return known[0];
  return lang() === 'ja' ? 'japanese' : 'hodges';
}

/** A move as a move list shows it: its text in each notation, whether it gives check, and the
 * analysis's mark (`??`, `?`, `?!`) if any. */
export type ListedMove = Pick<MoveRecord, 'ply' | 'hodges' | 'usi' | 'japanese' | 'short' | 'check'> & {
  judgement?: string | null,
};

export function moveText(m: Pick<MoveRecord, 'hodges' | 'usi' | 'japanese' | 'short'>): string {
  return m[notation()] || m.hodges;
}

/** The mark after a move that gives check: apart from the move's text, where a `+` means a
 * promotion. */
export function checkMark(): HTMLElement {
  return el('span', { class: 'check-mark', 'data-check': '', title: t('game.check'), 'aria-label': t('game.check') }, '+');
}

/** The analysis's marks in words, in the visitor's language at the time. */
function judgementWords(): Partial<Record<string, string>> {
  return { '??': t('game.blunder'), '?': t('game.mistake'), '?!': t('game.inaccuracy') };
}

/** A move list with a choice of notation (remembered); `onNotation` redraws it. */
export function moveListNode(moves: ListedMove[], current: number, onPick: (ply: number) => void,
  onNotation?: () => void): HTMLElement {
  const list = el('div', { class: 'moves', 'data-moves': moves.length, 'data-notation': notation() });
  for (let i = 0; i < moves.length; i += 2) {
    list.append(el('span', {}, `${i / 2 + 1}.`));
    for (const m of [moves[i], moves[i + 1]]) {
      if (!m) { list.append(el('span')); continue; }
      list.append(el('span', { class: `mv${m.ply === current ? ' cur' : ''}`, 'data-ply': m.ply,
        onclick: () => onPick(m.ply) }, moveText(m), m.check ? checkMark() : null,
        m.judgement ? el('span', { class: `judgement j${m.judgement.length}${m.judgement === '?!' ? 'i' : ''}`, 'data-judgement': m.judgement,
          title: judgementWords()[m.judgement] }, m.judgement) : null));
    }
  }
  if (!onNotation) return list;
  const choice = el('select', { name: 'notation', 'aria-label': t('game.notation-label'), onchange: (e: Event) => {
    localStorage.setItem('tsubame.notation', (e.target as HTMLSelectElement).value);
    onNotation();
  } }, NOTATIONS.map(([key, label]) => el('option', { value: key, selected: key === notation() }, notationLabel(key, label))));
  return el('div', { class: 'move-list' }, el('label', { class: 'notation' }, t('game.notation'), choice), list);
}

/** The replay buttons' symbols and what they do, in words for screen readers: the words are
 * read when used, in the visitor's language at the time. */
export const REPLAY_BUTTONS: [string, string][] = ([
  ['|◀', () => t('game.first-position')], ['◀', () => t('game.previous-move')],
  ['▶', () => t('game.next-move')], ['▶|', () => t('game.last-move')],
] as [string, () => string][]).map(([label, words]) => {
  const pair: [string, string] = [label, ''];
  Object.defineProperty(pair, 1, { get: words, enumerable: true });
  return pair;
});

/** Scrolls a move list so that its current move (or its end) is visible. */
export function keepInView(container: HTMLElement): void {
  const list = container.querySelector<HTMLElement>('.moves');
  if (!list) return;
  const current = list.querySelector<HTMLElement>('.mv.cur');
  list.scrollTop = current ? current.offsetTop - list.offsetTop - list.clientHeight / 2 : list.scrollHeight;
  // On a phone the list is one row that scrolls sideways.
  list.scrollLeft = current ? current.offsetLeft - list.offsetLeft - list.clientWidth / 2 : list.scrollWidth;
}

/** Export: every form the game has, each with Copy and Download. */
export function exportNode(record: Pick<ReplayedGame, 'usi_record' | 'hodges_text' | 'exports' | 'fen' | 'variant'>,
  name = 'game'): HTMLElement {
  const forms = ([
    ['usi', t('game.export-usi'), record.usi_record, 'usi.txt'],
    ['hodges', 'Hodges', record.hodges_text, 'hodges.txt'],
    ['kif', 'KIF', record.exports?.kif, 'kif'],
    ['pgn', t('game.export-pgn'), record.exports?.pgn, 'pgn'],
    ['record', t('game.export-record'), record.exports?.record, 'tsr'],
    ['fen', t('game.export-fen'), record.fen, 'fen.txt'],
  ] as [string, string, string | null | undefined, string][])
    .filter((form): form is [string, string, string, string] => Boolean(form[2]));
  const status = el('small', { class: 'help', 'aria-live': 'polite', 'data-export-status': '' });
  const parts = forms.map(([key, label, text, extension]) => {
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(text);
        status.textContent = t('game.copied', { form: label });
      } catch {
        const box = parts.find((p) => p.dataset.exportForm === key)?.querySelector('textarea');
        box?.select();
        status.textContent = t('game.copy-not-allowed');
      }
    };
    const download = () => {
      const link = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' })),
        download: `tsubame-${record.variant}-${name}.${extension}` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    };
    return el('div', { class: 'export-form', 'data-export-form': key },
      el('div', { class: 'export-head' }, el('label', {}, label),
        el('button', { class: 'secondary small', type: 'button', 'data-copy': key, onclick: copy }, t('game.copy')),
        el('button', { class: 'secondary small', type: 'button', 'data-download': key, onclick: download }, t('game.download'))),
      el('textarea', { rows: key === 'hodges' || key === 'kif' || key === 'pgn' || key === 'record' ? 4 : 2,
        readonly: true, 'data-export': key }, text));
  });
  return el('div', { class: 'panel' }, el('h2', {}, t('game.export')), parts, status);
}

/** The tab's icon carries a red dot while it is the player's move, as the title does. */
export function showTurnIcon(myTurn: boolean): void {
  const icon = document.querySelector('link[rel="icon"]');
  const href = myTurn ? '/favicon-turn.svg' : '/favicon.svg';
  if (icon && icon.getAttribute('href') !== href) icon.setAttribute('href', href);
}

/** A correspondence clock: days and hours, hours and minutes, then the usual clock. */
export function formatDays(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  if (hours >= 24) return t('game.days-hours', { days: Math.floor(hours / 24), hours: hours % 24 });
  if (hours >= 1) return t('game.hours-minutes', { hours, minutes: Math.floor((ms % 3_600_000) / 60_000) });
  return formatClock(ms);
}

/** A game's chat: the room this page sees, lines shown as text, a box to write, and for a
 * player, a switch that mutes the opponent (remembered for the game). */
export function chatPanel(id: string, say: (text: string) => void) {
  const lines = el('div', { class: 'chat-lines', 'data-chat-lines': '', role: 'log', 'aria-live': 'polite' });
  const input = el('input', { maxlength: 300, placeholder: t('game.chat-placeholder'), 'aria-label': t('game.chat-message'), 'data-chat-input': '' });
  const heading = el('h2', {}, t('game.chat'));
  const note = el('small', { class: 'help', 'data-chat-note': '' });
  const muteKey = `tsubame.mute.${id}`;
  const mute = el('input', { type: 'checkbox', 'data-chat-mute': '', checked: localStorage.getItem(muteKey) === '1' });
  const muteLabel = el('label', { class: 'help' }, mute, t('game.chat-mute'));
  const form = el('form', { class: 'chat-form', onsubmit: (event: SubmitEvent) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text) say(text);
    input.value = '';
  } }, input, el('button', { type: 'submit', class: 'small', 'data-action': 'chat-send' }, t('game.chat-send')));
  const root = el('div', { class: 'panel chat', 'data-chat': '' }, heading, lines, form, note, muteLabel);
  let room: Room | null = null;
  let all: ChatLine[] = [];
  let opponentName: string | null = null;
  let canWrite = false;
  function draw() {
    const hidden = room === 'players' && mute.checked && opponentName;
    lines.replaceChildren(...all.filter((line) => !(hidden && line.author === opponentName)).map((line) => el('div', { class: 'chat-line', 'data-chat-line': line.id },
      el('span', { class: 'chat-author' }, line.author), ' ', el('span', { class: 'chat-text' }, line.text))));
    lines.scrollTop = lines.scrollHeight;
  }
  mute.addEventListener('change', () => { localStorage.setItem(muteKey, mute.checked ? '1' : '0'); draw(); });
  return {
    root,
    history(newRoom: Room, newLines: ChatLine[]) {
      room = newRoom;
      all = newLines;
      heading.textContent = room === 'players' ? t('game.chat-players') : t('game.chat-spectators');
      draw();
    },
    add(line: ChatLine) {
      if (all.some((l) => l.id === line.id)) return;
      all = [...all, line].slice(-200);
      draw();
    },
    setGame(game: Pick<GameView, 'sente_name' | 'gote_name'>, seat: Side | null) {
      opponentName = seat ? game[`${seat === 'sente' ? 'gote' : 'sente'}_name` as const] : null;
      canWrite = Boolean(seat) || Boolean(store.me.account);
      muteLabel.hidden = !seat;
      form.hidden = !canWrite;
      note.textContent = canWrite ? '' : t('game.chat-log-in');
    },
  };
}
