// Playing with the keyboard: the board and each hand are reached with Tab. On the board the
// arrow keys move a cursor and Enter or Space picks up the piece under it and puts it down
// where the cursor is; in a hand Left and Right choose a piece and Enter picks it up for a drop
// on the board. Each step is said in words in a live region for screen readers.

import { squareName, squareOf } from './sfen.js';
import type { Color, Key } from 'shogiground/types';
import type { Board } from './board';
import { el } from './dom';
import { pieceName, sideName, t, tn } from './i18n';

/** The name of the kind with the sfen `code`. */
function kindName(board: Board, code: string): string {
  const role = board.variant?.roles.find((r) => r.sfen === code);
  return (role && pieceName(role)) || code;
}


/** The words for a piece of `color` with the sfen `code`. */
function pieceWords(board: Board, code: string, color: string): string {
  return t('board.piece-words', { side: sideName(color), piece: kindName(board, code) });
}

/** Keyboard play on a board. */
export class BoardKeys {
  board: Board;
  /** The square the cursor is on; none until the board has had the focus. */
  cursor: Key | null = null;
  /** Which of a hand's pieces the hand's cursor is on. */
  handIndex = 0;
  announcer: HTMLElement;
  /** Whether the keys are the board's: the board or a hand came into focus by the keyboard. A
   * click focuses them too, and then the page's own keys (arrows through the moves) stay. */
  active = false;
  /** A pointer went down just now: the focus that follows is a click's. */
  pointing = false;

  constructor(board: Board) {
    this.board = board;
    this.announcer = el('div', { class: 'visually-hidden', 'aria-live': 'polite', 'data-board-says': '' });
    board.root.append(this.announcer);
    const node = board.boardNode;
    node.tabIndex = 0;
    node.setAttribute('role', 'application');
    node.setAttribute('aria-roledescription', t('board.board-role'));
    node.setAttribute('aria-label', t('board.board-label'));
    node.addEventListener('keydown', (event) => this.onBoardKey(event));
    node.addEventListener('focus', () => {
      this.active = !this.pointing;
      if (!this.active) return;
      this.cursor ??= this.startSquare();
      this.show();
      this.say(this.describe(this.cursor));
    });
    node.addEventListener('blur', () => { this.active = false; this.show(); });
    for (const hand of [board.topHand, board.bottomHand]) {
      hand.tabIndex = 0;
      hand.setAttribute('role', 'application');
      hand.setAttribute('aria-roledescription', t('board.hand-role'));
      hand.addEventListener('keydown', (event) => this.onHandKey(event, hand));
      hand.addEventListener('focus', () => {
        this.active = !this.pointing;
        if (!this.active) return;
        this.handIndex = 0;
        this.showHand(hand);
        this.sayHand(hand);
      });
      hand.addEventListener('blur', () => { this.active = false; this.showHand(hand); });
    }
    for (const target of [node, board.topHand, board.bottomHand]) {
      // A pointer takes over from the keys: the cursor goes until the keyboard is used to
      // come back (Tab).
      target.addEventListener('pointerdown', () => {
        this.pointing = true;
        const was = this.active;
        this.active = false;
        setTimeout(() => {
          this.pointing = false;
          if (was) { this.show(); for (const hand of [board.topHand, board.bottomHand]) this.showHand(hand); }
        }, 0);
      });
    }
  }

  /** Where the cursor starts: the middle of the player's side of the board. */
  startSquare(): Key {
    const { files, ranks } = this.board.position!;
    const rank = this.board.flipped ? Math.floor(ranks / 4) : ranks - 1 - Math.floor(ranks / 4);
    return squareName(Math.ceil(files / 2), rank);
  }

  say(text: string) {
    this.announcer.textContent = text;
  }

  /** The square and what stands on it, in words. */
  describe(square: string): string {
    const cell = this.board.cellAt(square);
    return t('board.square', { square, what: cell ? pieceWords(this.board, cell.code, cell.color) : t('board.empty') });
  }

  /** Draws the cursor (while the board has the focus) with the board's other marks. */
  show() {
    const focused = this.active && document.activeElement === this.board.boardNode;
    this.board.highlight(focused && this.cursor ? [{ key: this.cursor, className: 'kbd-cursor' }] : []);
  }

  onBoardKey(event: KeyboardEvent) {
    const board = this.board;
    if (!this.active || !board.position || !board.ground || event.ctrlKey || event.metaKey || event.altKey) return;
    const { files, ranks } = board.position;
    // Arrows go the way they point on the screen, whichever side is at the bottom.
    const turn = board.flipped ? -1 : 1;
    const step = { ArrowUp: [0, -turn], ArrowDown: [0, turn], ArrowLeft: [turn, 0], ArrowRight: [-turn, 0] }[event.key];
    const at = squareOf(this.cursor ?? this.startSquare());
    if (step) {
      const file = Math.min(files, Math.max(1, at.file + step[0]));
      const rank = Math.min(ranks - 1, Math.max(0, at.rank + step[1]));
      this.cursor = squareName(file, rank);
      this.say(this.describe(this.cursor));
    } else if (event.key === 'Enter' || event.key === ' ') {
      this.cursor ??= this.startSquare();
      const before = board.sfen;
      board.ground.selectSquare(this.cursor);
      const picked = board.ground.state.selected;
      if (picked && picked === this.cursor) {
        const cell = board.cellAt(picked);
        const dests = board.ground.state.movable.dests?.get(picked)?.length || 0;
        this.say(tn('board.picked-up', dests, { piece: cell ? pieceWords(board, cell.code, cell.color) : t('board.piece'), square: picked }));
      } else if (board.sfen === before && !picked) {
        this.say(t('board.nothing-here', { square: this.cursor }));
      }
    } else if (event.key === 'Escape') {
      board.ground.cancelMoveOrDrop();
      this.say(t('board.let-go'));
    } else {
      return;
    }
    event.preventDefault();
    // The page's own keys (arrows through the moves) are not for the board's keys.
    event.stopPropagation();
    this.show();
  }

  /** The kinds in a hand, in its order, with how many of each. */
  handPieces(hand: HTMLElement): { wrap: HTMLElement, code: string }[] {
    return [...hand.querySelectorAll<HTMLElement>('sg-hp-wrap')]
      .filter((wrap) => wrap.dataset.nb && wrap.dataset.nb !== '0' && wrap.dataset.drop)
      .map((wrap) => ({ wrap, code: wrap.dataset.drop! }));
  }

  showHand(hand: HTMLElement) {
    const focused = this.active && document.activeElement === hand;
    const pieces = this.handPieces(hand);
    for (const [index, { wrap }] of pieces.entries()) wrap.classList.toggle('kbd-cursor', focused && index === this.handIndex);
  }

  sayHand(hand: HTMLElement) {
    const pieces = this.handPieces(hand);
    const color = hand.dataset.hand || '';
    const piece = pieces[this.handIndex];
    this.say(piece ? t('board.hand-piece', { side: sideName(color), piece: kindName(this.board, piece.code), number: piece.wrap.dataset.nb! })
      : t('board.hand-empty', { side: sideName(color) }));
  }

  onHandKey(event: KeyboardEvent, hand: HTMLElement) {
    const board = this.board;
    if (!this.active || !board.ground || event.ctrlKey || event.metaKey || event.altKey) return;
    const pieces = this.handPieces(hand);
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      if (pieces.length) this.handIndex = (this.handIndex + (event.key === 'ArrowRight' ? 1 : -1) + pieces.length) % pieces.length;
      this.sayHand(hand);
    } else if (event.key === 'Enter' || event.key === ' ') {
      const piece = pieces[this.handIndex];
      const role = piece && board.codeToRole.get(piece.code);
      if (!role) { this.sayHand(hand); return; }
      // Board.render names each hand's side.
      board.ground.selectPiece({ role, color: hand.dataset.hand as Color });
      if (board.ground.state.selectedPiece) {
        // On to the board, to choose where it goes.
        this.cursor ??= this.startSquare();
        board.boardNode.focus();
        this.active = true;
        this.show();
        this.say(t('board.drop-picked', { piece: pieceWords(board, piece.code, hand.dataset.hand || ''), where: this.describe(this.cursor) }));
      } else {
        this.say(t('board.cannot-drop', { piece: kindName(board, piece.code) }));
      }
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    this.showHand(hand);
  }
}
