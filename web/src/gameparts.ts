// Parts of the game and analysis pages: clocks, the move list, exports, chat.

import { formatClock } from './clock.js';
import { myName } from './account';
import { el } from './dom';
import { formatMs } from './util';

export function clockText(control) {
  if (!control || control.kind === 'unlimited') return 'unlimited';
  if (control.kind === 'fischer') return `${formatMs(control.main_ms)} + ${control.increment_ms / 1000}s`;
  if (control.kind === 'correspondence') return `${control.days_per_move} day${control.days_per_move === 1 ? '' : 's'}/move`;
  return `${formatMs(control.main_ms)} + ${control.periods}×${control.period_ms / 1000}s`;
}

// ---------------------------------------------------------------------------------------------
// Play

// The notations a move list can be read in; the Japanese (KIF) and play-site forms exist for
// Tori only, other games show Hodges there.
export const NOTATIONS = [['hodges', 'Hodges'], ['short', 'Play site'], ['japanese', '日本式'], ['usi', 'USI']];

export function notation() {
  const chosen = localStorage.getItem('tsubame.notation');
  return NOTATIONS.some(([key]) => key === chosen) ? chosen : 'hodges';
}

export function moveText(m) {
  return m[notation()] || m.hodges;
}

/** The mark after a move that gives check: apart from the move's text, where a `+` means a
 * promotion. */
export function checkMark() {
  return el('span', { class: 'check-mark', 'data-check': '', title: 'check', 'aria-label': 'check' }, '+');
}

/** A move list with a choice of notation (remembered); `onNotation` redraws it. */
export function moveListNode(moves, current, onPick, onNotation) {
  const list = el('div', { class: 'moves', 'data-moves': moves.length, 'data-notation': notation() });
  for (let i = 0; i < moves.length; i += 2) {
    list.append(el('span', {}, `${i / 2 + 1}.`));
    for (const m of [moves[i], moves[i + 1]]) {
      if (!m) { list.append(el('span')); continue; }
      list.append(el('span', { class: `mv${m.ply === current ? ' cur' : ''}`, 'data-ply': m.ply,
        onclick: () => onPick(m.ply) }, moveText(m), m.check ? checkMark() : null,
        m.judgement ? el('span', { class: `judgement j${m.judgement.length}${m.judgement === '?!' ? 'i' : ''}`, 'data-judgement': m.judgement,
          title: { '??': 'blunder', '?': 'mistake', '?!': 'inaccuracy' }[m.judgement] }, m.judgement) : null));
    }
  }
  if (!onNotation) return list;
  const choice = el('select', { name: 'notation', 'aria-label': 'notation', onchange: (e) => {
    localStorage.setItem('tsubame.notation', e.target.value);
    onNotation();
  } }, NOTATIONS.map(([key, label]) => el('option', { value: key, selected: key === notation() }, label)));
  return el('div', { class: 'move-list' }, el('label', { class: 'notation' }, 'Notation ', choice), list);
}

/** The replay buttons' symbols and what they do, in words for screen readers. */
export const REPLAY_BUTTONS: [string, string][] = [['|◀', 'First position'], ['◀', 'Previous move'], ['▶', 'Next move'], ['▶|', 'Last move']];

/** Scrolls a move list so that its current move (or its end) is visible. */
export function keepInView(container) {
  const list = container.querySelector('.moves');
  if (!list) return;
  const current = list.querySelector('.mv.cur');
  list.scrollTop = current ? current.offsetTop - list.offsetTop - list.clientHeight / 2 : list.scrollHeight;
  // On a phone the list is one row that scrolls sideways.
  list.scrollLeft = current ? current.offsetLeft - list.offsetLeft - list.clientWidth / 2 : list.scrollWidth;
}

/** Export: every form the game has, each with Copy and Download. */
export function exportNode(record, name = 'game') {
  const forms = [
    ['usi', 'SFEN + USI moves', record.usi_record, 'usi.txt'],
    ['hodges', 'Hodges', record.hodges_text, 'hodges.txt'],
    ['kif', 'KIF', record.exports?.kif, 'kif'],
    ['pgn', 'Play-site PGN', record.exports?.pgn, 'pgn'],
    ['record', 'Tsubame record', record.exports?.record, 'tsr'],
    ['fen', 'Play-site FEN (final position)', record.fen, 'fen.txt'],
  ].filter(([, , text]) => text);
  const status = el('small', { class: 'help', 'aria-live': 'polite', 'data-export-status': '' });
  const parts = forms.map(([key, label, text, extension]) => {
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(text);
        status.textContent = `${label} copied.`;
      } catch {
        const box = parts.find((p) => p.dataset.exportForm === key)?.querySelector('textarea');
        box?.select();
        status.textContent = 'Copy is not allowed here: the text is selected, press Ctrl+C.';
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
        el('button', { class: 'secondary small', type: 'button', 'data-copy': key, onclick: copy }, 'Copy'),
        el('button', { class: 'secondary small', type: 'button', 'data-download': key, onclick: download }, 'Download')),
      el('textarea', { rows: key === 'hodges' || key === 'kif' || key === 'pgn' || key === 'record' ? 4 : 2,
        readonly: true, 'data-export': key }, text));
  });
  return el('div', { class: 'panel' }, el('h2', {}, 'Export'), parts, status);
}

/** The tab's icon carries a red dot while it is the player's move, as the title does. */
export function showTurnIcon(myTurn) {
  const icon = document.querySelector('link[rel="icon"]');
  const href = myTurn ? '/favicon-turn.svg' : '/favicon.svg';
  if (icon && icon.getAttribute('href') !== href) icon.setAttribute('href', href);
}

/** A correspondence clock: days and hours, hours and minutes, then the usual clock. */
export function formatDays(ms) {
  const hours = Math.floor(ms / 3_600_000);
  if (hours >= 24) return `${Math.floor(hours / 24)}d ${hours % 24}h`;
  if (hours >= 1) return `${hours}h ${Math.floor((ms % 3_600_000) / 60_000)}m`;
  return formatClock(ms);
}

/** A game's chat: the room this page sees, lines shown as text, a box to write, and for a
 * player, a switch that mutes the opponent (remembered for the game). */
export function chatPanel(id, say) {
  const lines = el('div', { class: 'chat-lines', 'data-chat-lines': '', role: 'log', 'aria-live': 'polite' });
  const input = el('input', { maxlength: 300, placeholder: 'Say something…', 'aria-label': 'Chat message', 'data-chat-input': '' });
  const heading = el('h2', {}, 'Chat');
  const note = el('small', { class: 'help', 'data-chat-note': '' });
  const muteKey = `tsubame.mute.${id}`;
  const mute = el('input', { type: 'checkbox', 'data-chat-mute': '', checked: localStorage.getItem(muteKey) === '1' });
  const muteLabel = el('label', { class: 'help' }, mute, ' Mute the opponent');
  const form = el('form', { class: 'chat-form', onsubmit: (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text) say(text);
    input.value = '';
  } }, input, el('button', { type: 'submit', class: 'small', 'data-action': 'chat-send' }, 'Send'));
  const root = el('div', { class: 'panel chat', 'data-chat': '' }, heading, lines, form, note, muteLabel);
  let room = null;
  let all = [];
  let opponentName = null;
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
    history(newRoom, newLines) {
      room = newRoom;
      all = newLines;
      heading.textContent = room === 'players' ? 'Chat with your opponent' : 'Spectators\' chat';
      draw();
    },
    add(line) {
      if (all.some((l) => l.id === line.id)) return;
      all = [...all, line].slice(-200);
      draw();
    },
    setGame(game, seat) {
      opponentName = seat ? game[`${seat === 'sente' ? 'gote' : 'sente'}_name`] : null;
      canWrite = Boolean(seat) || Boolean(myName());
      muteLabel.hidden = !seat;
      form.hidden = !canWrite;
      note.textContent = canWrite ? '' : 'Log in to chat with the other spectators.';
    },
  };
}
