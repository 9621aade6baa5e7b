// The board widget on shogiground: legal moves from the server, promotions and lion routes, hands,
// the piece inspector.

import { Shogiground } from 'shogiground';
import type { Api } from 'shogiground/api';
import type { Config } from 'shogiground/config';
import type { SquareHighlight } from 'shogiground/draw';
import type { Color, DropDests, Key, MoveDests, PieceName, PieceNode, Pieces, PiecesDiff, SquareNode } from 'shogiground/types';
import { parseSfen, parseMove, squareName, squareOf } from './sfen.js';
import type { SfenCell, SfenPosition, UsiMove } from './sfen.js';
import type { VariantInfo } from './types';
import { el } from './dom';
import { diagramRadius, moveDiagram, powerNotes } from './pieceinfo';
import { pieceStyles, roleClass } from './pieces';
import { BoardKeys } from './boardkeys';
import { title, variantInfo } from './util';
import { lang, pieceName, t } from './i18n';

/** The width of the column of bars and tools beside the board, with its gap (style.css). */
const BESIDE_COLUMN = 236;

export type { SfenCell, SfenPosition, UsiMove } from './sfen.js';

/** What a page shows on the board: the variant by name, the position, the legal moves and the
 * last move in USI, the square of a king in check. */
export type BoardState = {
  variant: string,
  sfen: string,
  legal?: string[],
  lastMove?: string | null,
  check?: string | null,
  interactive?: boolean,
  premoveFor?: Color | null,
};

export class Board {
  /** Plays a move the player chose: USI text. */
  onMove: (usi: string) => void;
  /** Gote at the bottom. */
  flipped = false;
  /** The game whose seat set `flipped`: a player's own choice holds within the game. */
  flippedFor: string | null = null;
  /** The square size chosen, in pixels; none: the size that fits the window. */
  zoom: number | null = null;
  ground: Api | null = null;
  groundVariant: string | null = null;
  root: HTMLElement;
  boardNode: HTMLElement;
  topHand: HTMLElement;
  bottomHand: HTMLElement;
  zoomInput: HTMLInputElement;
  inspector: HTMLElement;
  /** The places above and below the board for the players' names and clocks: the player
   * across the board above, the one at the bottom below, as over a real board. */
  topBar: HTMLElement;
  bottomBar: HTMLElement;
  /** Flip, zoom and fit, under the board (or beside it, see `layout`). */
  tools: HTMLElement;
  /** Where the board was last touched, as fractions of its width and height from its top left. */
  touched: { x: number, y: number } | null = null;
  /** The tools' height as a row under the board, with its gap. */
  toolsHeight = 34;
  onWindowResize: () => void;
  onEscape: (event: KeyboardEvent) => void;
  premoveFor: Color | null = null;
  variant: VariantInfo | undefined;
  sfen = '';
  position: SfenPosition | null = null;
  legal: UsiMove[] = [];
  lastMove: UsiMove | null = null;
  check: Key | null = null;
  interactive = true;
  codeToRole: Map<string, string> = new Map();
  roleToCode: Map<string, string> = new Map();
  handRoles: string[] = [];
  passes: Map<Key, UsiMove[]> = new Map();
  shown: string | null = null;
  /** The keyboard's cursor as square marks. */
  cursorMarks: SquareHighlight[] = [];
  keys: BoardKeys;

  /** Called after the player turned the board round. */
  onFlip: () => void;

  constructor(options: { onMove: (usi: string) => void, onFlip?: () => void }) {
    this.onMove = options.onMove;
    this.onFlip = options.onFlip || (() => {});
    this.flipped = false;
    this.zoom = null;
    this.ground = null;
    this.groundVariant = null;
    this.root = el('div', { class: 'board-area' });
    this.boardNode = el('div', { class: 'board' });
    this.topHand = el('div', { class: 'hand top-hand' });
    this.bottomHand = el('div', { class: 'hand bottom-hand' });
    this.zoomInput = <HTMLInputElement>el('input', { type: 'range', min: 20, max: 72, class: 'zoom', 'aria-label': t('board.zoom-label'),
      oninput: (e: Event) => this.zoomTo(Number((e.target as HTMLInputElement).value)) });
    // The piece inspector: touching any piece (either side's, on the board or in hand) shows
    // its name and how it moves.
    this.inspector = el('section', { class: 'inspector', hidden: true, 'aria-label': t('board.piece-card') });
    this.topBar = el('div', { class: 'player-bar', 'data-bar': 'top' });
    this.bottomBar = el('div', { class: 'player-bar', 'data-bar': 'bottom' });
    this.root.append(this.topBar, this.topHand,
      el('div', { class: 'board-wrap' }, this.boardNode),
      this.bottomHand,
      this.bottomBar,
      this.tools = el('div', { class: 'actions board-tools' },
        el('button', { class: 'secondary', 'data-action': 'flip', onclick: () => { this.flipped = !this.flipped; this.render(); this.onFlip(); } }, t('board.flip')),
        el('label', { class: 'zoom' }, t('board.zoom'), this.zoomInput),
        // Back to the size that fits the window, after zooming in to read a big board.
        el('button', { class: 'secondary small', 'data-action': 'fit', title: t('board.fit-title'),
          onclick: () => this.zoomTo(null) }, t('board.fit'))),
      this.inspector);
    for (const node of [this.boardNode, this.topHand, this.bottomHand]) {
      node.addEventListener('pointerdown', (event) => this.inspectAt(event));
    }
    this.boardNode.addEventListener('pointerdown', (event) => {
      const board = this.boardNode.getBoundingClientRect();
      this.touched = { x: (event.clientX - board.left) / board.width, y: (event.clientY - board.top) / board.height };
    });
    this.onWindowResize = () => this.resize();
    window.addEventListener('resize', this.onWindowResize);
    this.onEscape = (event: KeyboardEvent) => { if (event.key === 'Escape') this.closeInspector(); };
    this.keys = new BoardKeys(this);
    document.addEventListener('keydown', this.onEscape);
  }

  /** Lets go of the window and document listeners when the page leaves the board. */
  destroy() {
    window.removeEventListener('resize', this.onWindowResize);
    document.removeEventListener('keydown', this.onEscape);
    this.ground?.destroy();
    this.ground = null;
  }

  /** `premoveFor`: the player's colour while the other side is to move, to let them premove
   * (and predrop); the premove is played once their turn comes, if it is legal then. */
  setState({ variant, sfen, legal = [], lastMove = null, check = null, interactive = true,
    premoveFor = null }: BoardState): void {
    this.premoveFor = premoveFor;
    this.variant = variantInfo(variant);
    // Every move closes the piece card: it was about the position before.
    if (this.sfen !== undefined && sfen !== this.sfen) this.closeInspector();
    this.sfen = sfen;
    this.position = parseSfen(sfen);
    this.legal = legal.map(parseMove).filter((move) => move !== null);
    this.lastMove = lastMove ? parseMove(lastMove) : null;
    this.check = check as Key | null;
    this.interactive = interactive;
    this.render();
  }

  /** How the board stands in the window: the side length of a square in pixels (the zoom
   * chosen, or the largest with which the board and its hands fit the window, in width and in
   * height, beside the side panel when the window is wide enough for it), and whether the
   * players' bars and the tools stand in a column beside the board rather than above and below
   * it: they do on a wide window where that makes the squares larger (a Wa or Tenjiku board,
   * whose height is the window's; any board on a phone held sideways), as the clocks stand
   * beside the board on lishogi. */
  layout(): { size: number, beside: boolean } {
    const { files, ranks } = this.position!;
    const hands = (this.handRoles || []).length > 0;
    const header = document.querySelector<HTMLElement>('.top')?.offsetHeight || 40;
    // The players' bars, when a page fills them, with the gaps beside them. The tools are a
    // row when below the board: measured then, assumed before.
    const barHeight = (bar: HTMLElement) => (bar.offsetHeight ? bar.offsetHeight + 7 : 0);
    if (!this.root.classList.contains('beside') && this.tools.offsetParent) this.toolsHeight = barHeight(this.tools);
    const bars = barHeight(this.topBar) + barHeight(this.bottomBar) + this.toolsHeight;
    // The hands' padding and gaps; the page's padding with the frame's padding and coordinates,
    // both a little narrower beside (style.css).
    const handsHeight = hands ? 2 * 6 + 2 * 7 : 0;
    const heightInSquares = (ranks + (hands ? 1.8 : 0)) * this.squareRatio();
    const sidePanel = window.innerWidth >= 900 ? 300 : 0;
    const fit = (fixedHeight: number, fixedWidth: number) => {
      const fromHeight = (window.innerHeight - fixedHeight) / heightInSquares;
      const fromWidth = (window.innerWidth - 24 - 34 - sidePanel - fixedWidth) / files;
      return Math.max(14, Math.min(72, Math.floor(Math.min(fromHeight, fromWidth))));
    };
    const stacked = fit(header + bars + 24 + 28 + handsHeight, 0);
    // Beside on a wide window, or a phone held sideways (the side panel then below).
    const besideSize = sidePanel || window.innerWidth > window.innerHeight
      ? fit(header + 16 + 24 + handsHeight, BESIDE_COLUMN) : 0;
    // A page that shows neither bars nor tools (a rules page's start position) has no column
    // to put beside the board, and would leave its width empty.
    const column = this.topBar.hasChildNodes() || this.bottomBar.hasChildNodes()
      || getComputedStyle(this.tools).display !== 'none';
    const beside = column && besideSize > stacked;
    return { size: this.zoom || (beside ? besideSize : stacked), beside };
  }

  /** How much taller than wide a square is: a little, as on a real board (11:12), but square
   * on the big boards, whose height is what the window lacks. */
  squareRatio(): number {
    return this.position!.ranks >= 12 ? 1 : 12 / 11;
  }

  /** Zooms to squares of `size` pixels (none: the size that fits), keeping in view the place
   * of the board last touched, where it was on the screen (the middle of what is seen, before
   * any touch): a player zooms in to read the corner they look at. */
  zoomTo(size: number | null) {
    const before = this.boardNode.getBoundingClientRect();
    const seen = {
      x: (Math.max(0, before.left) + Math.min(window.innerWidth, before.right)) / 2,
      y: (Math.max(0, before.top) + Math.min(window.innerHeight, before.bottom)) / 2,
    };
    const point = this.touched || { x: (seen.x - before.left) / before.width, y: (seen.y - before.top) / before.height };
    // A touched place scrolled out of sight since is brought back to the window's edge.
    const within = (value: number, length: number) => Math.min(Math.max(value, 24), length - 24);
    const at = this.touched ? {
      x: within(before.left + point.x * before.width, window.innerWidth),
      y: within(before.top + point.y * before.height, window.innerHeight),
    } : seen;
    this.zoom = size;
    this.resize();
    const after = this.boardNode.getBoundingClientRect();
    this.root.scrollLeft += after.left + point.x * after.width - at.x;
    window.scrollBy(0, after.top + point.y * after.height - at.y);
  }

  resize() {
    if (!this.position) return;
    const { size, beside } = this.layout();
    this.zoomInput.value = String(size);
    this.root.classList.toggle('beside', beside);
    this.root.style.setProperty('--sq', `${size}px`);
    this.root.style.setProperty('--sq-h', `${Math.round(size * this.squareRatio() * 100) / 100}px`);
  }

  /** Shows `usi` (a better move, from the analysis) as an arrow on the board, a drop as a
   * ring on its square; none: no arrow. */
  setArrow(usi: string | null | undefined) {
    const mv = usi ? parseMove(usi) : null;
    const to = mv?.squares[mv.squares.length - 1];
    this.boardNode.dataset.arrow = mv ? mv.text : '';
    this.ground?.setAutoShapes(mv && to ? [{ orig: mv.drop ? to : mv.squares[0], dest: to, brush: 'primary' }] : []);
  }

  /** Sets up the piece kinds of the variant: role names, hand order and label styles. */
  prepareVariant() {
    const name = this.variant?.name || 'unknown';
    if (this.groundVariant === name) return;
    this.groundVariant = name;
    this.codeToRole = new Map();
    this.roleToCode = new Map();
    (this.variant?.roles || []).forEach((info, index) => {
      const role = roleClass(info, index);
      this.codeToRole.set(info.sfen, role);
      this.roleToCode.set(role, info.sfen);
    });
    // Pieces that can be held in hand: unpromoted and not royal, in the variant's order. Tenjiku
    // has no drops (captured pieces leave the game), so its board has no hands.
    this.handRoles = (this.variant?.roles || [])
      .filter((info) => !info.royal && !info.sfen.startsWith('+') && this.variant!.name !== 'tenjiku')
      .map((info) => this.codeToRole.get(info.sfen)!);
    const styleId = `pieces-${name}`;
    if (this.variant && !document.getElementById(styleId)) {
      document.head.append(el('style', { id: styleId }, pieceStyles(this.variant, this.codeToRole)));
    }
    this.ground?.destroy();
    this.ground = null;
  }

  /** The role of a piece code, adding one for a code the variant list does not name. */
  roleOf(code: string): string {
    if (!this.codeToRole.has(code)) {
      const role = `code-${[...code].map((c) => c.charCodeAt(0)).join('-')}`;
      this.codeToRole.set(code, role);
      this.roleToCode.set(role, code);
      document.head.append(el('style', {}, `piece.${role}::after { content: "${code.replace(/["\\]/g, '')}"; }`));
    }
    return this.codeToRole.get(code)!;
  }

  pieces(): Pieces {
    const { files, squares } = this.position!;
    const pieces: Pieces = new Map();
    squares.forEach((row, rank) => row.forEach((cell, column) => {
      if (cell) pieces.set(squareName(files - column, rank), { role: this.roleOf(cell.code), color: cell.color });
    }));
    return pieces;
  }

  handsSfen(): string {
    const parts = [];
    for (const color of ['sente', 'gote'] as const) {
      for (const [code, count] of Object.entries(this.position!.hands[color])) {
        parts.push(`${count > 1 ? count : ''}${color === 'sente' ? code : code.toLowerCase()}`);
      }
    }
    return parts.join('');
  }

  /** Legal moves grouped by where they start: board squares, and `color role` for drops. */
  destinations(): { moves: MoveDests, drops: DropDests } {
    const moves: MoveDests = new Map();
    const drops: DropDests = new Map();
    this.passes = new Map();
    if (!this.interactive) return { moves, drops };
    for (const mv of this.legal) {
      const to = mv.squares[mv.squares.length - 1];
      if (mv.drop) {
        const key: PieceName = `${this.position!.turn} ${this.roleOf(mv.drop)}`;
        drops.set(key, [...new Set([...(drops.get(key) || []), to])]);
      } else if (mv.squares[0] === to) {
        // A move back to its own square (a lion's pass, igui): picked by clicking the piece
        // again, which shogiground reports as an unselect.
        this.passes.set(to, [...(this.passes.get(to) || []), mv]);
      } else {
        moves.set(mv.squares[0], [...new Set([...(moves.get(mv.squares[0]) || []), to])]);
      }
    }
    return { moves, drops };
  }

  candidates(from: string, to: Key): UsiMove[] {
    return this.legal.filter((mv) => (mv.drop ? `${mv.drop}*` : mv.squares[0]) === from
      && mv.squares[mv.squares.length - 1] === to);
  }

  render(): void {
    if (!this.position) return;
    this.prepareVariant();
    this.resize();
    const { files, ranks } = this.position;
    const { moves, drops } = this.destinations();
    const orientation: 'sente' | 'gote' = this.flipped ? 'gote' : 'sente';
    // Shogiground types squares as literal unions: the server's square names are typed as its
    // keys where they are read (`UsiMove`, `check`).
    const config: Config = {
      sfen: { hands: this.handsSfen() },
      orientation,
      turnColor: this.position.turn,
      activeColor: this.interactive ? this.position.turn : (this.premoveFor || undefined),
      checks: this.check ? [this.check] : false,
      lastDests: this.lastMove ? this.lastMove.squares : undefined,
      lastPiece: this.lastMove?.drop ? { role: this.roleOf(this.lastMove.drop), color: this.position.turn === 'sente' ? 'gote' : 'sente' } : undefined,
      coordinates: { enabled: true, files: 'numeric', ranks: 'engine' },
      hands: { roles: this.handRoles },
      movable: { free: false, dests: moves, showDests: true },
      droppable: { free: false, dests: drops, showDests: true },
      drawable: { squares: [] },
      premovable: { enabled: Boolean(this.premoveFor) },
      predroppable: { enabled: Boolean(this.premoveFor) && this.handRoles.length > 0 },
    };
    this.boardNode.dataset.sfen = this.sfen;
    this.boardNode.style.setProperty('--files', String(files));
    this.boardNode.style.setProperty('--ranks', String(ranks));
    // Shogiground keeps classes of its own on these elements: only ours are changed.
    for (const node of [this.boardNode, this.topHand, this.bottomHand]) {
      for (const name of [...node.classList]) if (name.startsWith('pieces-')) node.classList.remove(name);
      node.classList.add(`pieces-${this.groundVariant}`);
    }
    for (const hand of [this.topHand, this.bottomHand]) hand.hidden = this.handRoles.length === 0;
    this.topHand.dataset.hand = this.flipped ? 'sente' : 'gote';
    this.bottomHand.dataset.hand = orientation;
    // Each hand says whose it is, in the visitor's language.
    for (const hand of [this.topHand, this.bottomHand]) {
      hand.dataset.handLabel = hand.dataset.hand === 'sente' ? `☗ ${t('frame.Sente')}` : `☖ ${t('frame.Gote')}`;
    }
    // A selection survives a repeated state of the same position (the server may send one
    // again); a new position or turn clears it.
    const shown = `${this.sfen} ${this.interactive} ${this.flipped}`;
    if (shown !== this.shown) Object.assign(config, { selected: undefined, selectedPiece: undefined });
    this.shown = shown;
    if (!this.ground) {
      this.ground = Shogiground({
        ...config,
        // Only the board's size: the pieces are set below.
        sfen: { ...config.sfen, board: Array(ranks).fill(String(files)).join('/') },
        // Square cells on the big boards (see `squareRatio`), so that arrows meet their squares.
        squareRatio: this.squareRatio() === 1 ? [1, 1] : [11, 12],
        scaleDownPieces: false,
        // Premove destinations from the pieces' own moves (shogiground's are chess and
        // shogi pieces'): where the piece could go if the board stayed as it is, slides
        // running through pieces, which may have moved by then. Legality is the server's,
        // when the turn comes.
        premovable: { ...config.premovable, showDests: true, generate: (key) => this.premoveDests(key) },
        predroppable: { ...config.predroppable, showDests: true, generate: () => this.predropDests() },
        drawable: { enabled: false, visible: true, squares: [] },
        highlight: { lastDests: true, check: true },
        animation: { enabled: true, duration: 200 },
        forsyth: { fromForsyth: (text) => this.codeToRole.get(text.toUpperCase()) },
        movable: { ...config.movable, events: { after: (orig, dest) => this.choose(this.candidates(orig, dest)) } },
        droppable: { ...config.droppable, events: { after: (piece, key) => this.choose(this.candidates(`${this.roleToCode.get(piece.role)}*`, key)) } },
        events: {
          insert: () => this.label(),
          select: () => setTimeout(() => this.showPass(), 0),
          unselect: (key) => { if (this.passes.has(key)) this.choose(this.passes.get(key)!); },
        },
      }, { board: this.boardNode, hands: { top: this.topHand, bottom: this.bottomHand } });
    } else {
      // The hands' roles are the variant's, set when the board is made: shogiground resets
      // its whole state (a premove included) whenever a `set` names them again.
      delete config.hands;
      this.ground.set(config, true);
    }
    // The board's own sfen is only the size: the pieces (whose codes shogiground's parser
    // cannot read in Tenjiku) are set directly, as a difference so that moves animate.
    const wanted = this.pieces();
    const change: PiecesDiff = new Map();
    for (const [key, piece] of wanted) {
      const have = this.ground.state.pieces.get(key);
      if (!have || have.role !== piece.role || have.color !== piece.color) change.set(key, piece);
    }
    for (const key of this.ground.state.pieces.keys()) if (!wanted.has(key)) change.set(key, undefined);
    if (change.size) this.ground.setPieces(change);
    this.label();
    // The drawn marks were reset with the state: the cursor and the pass again.
    this.highlight();
    for (const hand of [this.topHand, this.bottomHand]) this.keys.showHand(hand);
    // The player's turn has come: a premove (or predrop) waiting for it is played if it is
    // legal now, and dropped if not.
    if (this.interactive && !this.ground.playPremove()) this.ground.playPredrop();
  }

  /** Squares a piece of the premoving side could reach from `key`, by its move vectors and
   * powers, whatever stands in the way. */
  premoveDests(key: string): Key[] {
    const { files, ranks } = this.position!;
    const { file, rank } = squareOf(key);
    const cell = this.cellAt(key);
    const role = cell && this.variant!.roles.find((r) => r.sfen === cell.code);
    if (!cell || !role) return [];
    const sign = cell.color === 'sente' ? 1 : -1;
    const out = new Set<Key>();
    const add = (left: number, forward: number) => {
      const f = file + sign * left;
      const r = rank - sign * forward;
      if (f >= 1 && f <= files && r >= 0 && r < ranks && !(left === 0 && forward === 0)) out.add(squareName(f, r));
    };
    const reach = Math.max(files, ranks);
    for (const move of role.moves) {
      const limit = move.slide ? (move.limit || reach) : 1;
      for (let n = 1; n <= limit; n++) add(move.left * n, move.forward * n);
    }
    const powers = role.powers;
    if (powers) {
      const around = (d: number) => { for (let l = -d; l <= d; l++) for (let f = -d; f <= d; f++) add(l, f); };
      if (powers.lion === 'full' || powers.lion === 'lion-hawk') around(2);
      const lines = typeof powers.lion === 'object' && powers.lion ? powers.lion.line : [];
      for (const [l, f] of lines) { add(l, f); add(2 * l, 2 * f); }
      if (powers.area) around(powers.area);
      for (const [l, f] of powers.range_jump?.directions || []) for (let n = 1; n <= reach; n++) add(l * n, f * n);
      if (powers.tetrarch) around(3);
    }
    return [...out];
  }

  /** Every empty square: a predrop may go anywhere now empty. */
  predropDests(): Key[] {
    const { files, ranks, squares } = this.position!;
    const out: Key[] = [];
    for (let r = 0; r < ranks; r++) {
      for (let f = 1; f <= files; f++) if (!squares[r][files - f]) out.push(squareName(f, r));
    }
    return out;
  }

  /** Marks the board's squares and hand pieces with their names, for people and tests. */
  label() {
    for (const square of this.boardNode.querySelectorAll<SquareNode>('sq')) square.dataset.square = square.sgKey;
    for (const hand of [this.topHand, this.bottomHand]) {
      for (const wrap of hand.querySelectorAll<HTMLElement>('sg-hp-wrap')) {
        const piece = wrap.firstElementChild as PieceNode | null;
        if (piece) wrap.dataset.drop = this.roleToCode.get(piece.sgRole) || '';
      }
    }
  }

  /** Shows the piece under a pointer in the inspector. */
  inspectAt(event: PointerEvent): void {
    if (!this.position || !this.variant) return;
    const handPiece = (event.target as Element).closest?.<PieceNode>('.hand piece');
    if (handPiece) {
      // A hand's pieces are the variant's (`handRoles`), and render names each hand's side.
      const hand = handPiece.closest<HTMLElement>('.hand')!;
      if (this.opensCard(hand.dataset.hand!)) this.inspect(this.roleToCode.get(handPiece.sgRole)!, hand.dataset.hand!);
      return;
    }
    const square = [...this.boardNode.querySelectorAll<HTMLElement>('sq[data-square]')].find((sq) => {
      const r = sq.getBoundingClientRect();
      return event.clientX >= r.left && event.clientX < r.right && event.clientY >= r.top && event.clientY < r.bottom;
    });
    if (!square) return;
    const cell = this.cellAt(square.dataset.square!);
    // An empty square is a destination or a miss, and a piece taken is a move: the card has
    // done its work.
    if (!cell || this.isMoveTo(square.dataset.square!)) this.closeInspector();
    else if (this.opensCard(cell.color)) this.inspect(cell.code, cell.color);
  }

  /** Whether touching `square` now moves the piece picked up (on the board or in hand) there,
   * or through it (a lion's first step), or premoves it there. */
  isMoveTo(square: string): boolean {
    const state = this.ground?.state;
    if (!state) return false;
    const from = state.selected || (state.selectedPiece ? `${this.roleToCode.get(state.selectedPiece.role)}*` : null);
    if (!from) return false;
    // In the opponent's turn a piece picked up goes to a premove's (or predrop's) square.
    if (this.premoveFor) {
      const dests = state.selected ? state.premovable.dests : state.predroppable.dests;
      return Boolean(dests?.includes(square as Key));
    }
    return this.legal.some((mv) => (mv.drop ? `${mv.drop}*` : mv.squares[0]) === from
      && (mv.drop ? mv.squares : mv.squares.slice(1)).includes(square as Key));
  }

  /** Whether touching a piece of `color` shows its card. On a phone the card covers the
   * lower board, where a piece being moved may be going: a piece picked up to move (the
   * destinations show its moves) opens no card, and only changes one already open. */
  opensCard(color: string): boolean {
    const beingMoved = this.interactive && color === this.position!.turn;
    return !beingMoved || !this.inspector.hidden || !window.matchMedia('(max-width: 600px)').matches;
  }

  /** Closes the piece card. */
  closeInspector() {
    this.inspector.hidden = true;
  }

  inspect(code: string, color: string): void {
    // Only ever called with a variant set (`inspectAt`).
    const variant = this.variant!;
    const role = variant.roles.find((r) => r.sfen === code);
    if (!role) return;
    const radius = diagramRadius(variant);
    const named = (sfen: string) => { const found = variant.roles.find((r) => r.sfen === sfen); return String(found && pieceName(found)); };
    // In Japanese the kanji is the piece's name, and the English name goes beside it.
    const [name, other] = lang() === 'ja' ? [role.kanji, title(role.name)] : [title(role.name), role.kanji];
    this.inspector.replaceChildren(
      el('div', { class: 'inspector-head' },
        el('h3', {}, name, ' ', el('small', {}, `${other} · ${role.hodges}`)),
        el('button', { type: 'button', class: 'secondary small', 'data-action': 'close-inspector', 'aria-label': t('board.close-card'),
          onclick: () => this.closeInspector() }, '×')),
      el('div', { class: 'inspector-body' }, moveDiagram(variant, role, radius),
        el('div', {},
          powerNotes(role).map((note) => el('p', { class: 'note' }, note)),
          role.promotes_to ? el('p', { class: 'note' }, t('board.promotes-to', { piece: named(role.promotes_to) })) : null,
          role.promoted_from ? el('p', { class: 'note' }, t('board.promoted-from', { piece: named(role.promoted_from) })) : null,
          el('p', { class: 'note' }, t('board.piece-of', { side: color === 'gote' ? t('frame.Gote') : t('frame.Sente') }),
            el('a', { href: `/rules/${variant.name}` }, t('board.all-rules'))))));
    this.inspector.dataset.inspector = code;
    this.inspector.dataset.color = color;
    this.inspector.hidden = false;
  }

  /** A selected piece that may move back to its own square shows that square as a destination. */
  showPass() {
    this.highlight();
  }

  /** The board's own square marks: the pass back to a selected piece's square, and the
   * keyboard's cursor (`cursor`, kept until changed). */
  highlight(cursor: SquareHighlight[] = this.cursorMarks): void {
    this.cursorMarks = cursor;
    const selected = this.ground?.state.selected;
    const pass = selected && this.passes.has(selected) ? [{ key: selected, className: 'dest pass' }] : [];
    this.ground?.setSquareHighlights([...pass, ...cursor]);
  }

  /** The piece on a square (`{ code, color }`), or nothing. */
  cellAt(name: string): SfenCell | null | undefined {
    const { file, rank } = squareOf(name);
    return this.position!.squares[rank]?.[this.position!.files - file];
  }

  /** The piece on `from` as it would stand after moving, promoted or as it is: its code, its
   * side and its name. */
  standingAfter(from: string, promote: boolean): { code: string, color: string, name: string } | null {
    const cell = this.cellAt(from);
    if (!cell) return null;
    const info = this.variant?.roles.find((r) => r.sfen === cell.code);
    const code = promote && info?.promotes_to ? info.promotes_to : cell.code;
    const role = this.variant?.roles.find((r) => r.sfen === code);
    return { code, color: cell.color, name: (role && pieceName(role)) || code };
  }

  /** A piece drawn as on the board, for a choice between what a mover may become. */
  choicePiece(piece: { code: string, color: string, name: string }): HTMLElement {
    return el('span', { class: `choice-piece pieces-${this.groundVariant}`,
      title: piece.name, 'data-piece': piece.code },
    el('piece', { class: `${this.roleOf(piece.code)} ${piece.color}` }));
  }

  /** Several moves reach the square (promotion or not, a lion's routes): ask which. */
  choose(candidates: UsiMove[]): void {
    this.ground?.setSquareHighlights([]);
    if (candidates.length === 0) { this.render(); return; }
    if (candidates.length === 1) {
      this.onMove(candidates[0].text);
      return;
    }
    const promotion = candidates.some((c) => c.promote);
    // The route is named only where candidates differ by it (a lion's ways to one square), so
    // a plain promotion reads "Promote to the golden bird" and a lion's choice "Via 9n".
    const routes = new Set(candidates.map((c) => c.squares.join(' '))).size > 1;
    const box = el('div', { class: 'box' }, el('strong', {}, promotion ? t('board.promote-question') : t('board.choose-move')));
    const dialog = el('div', { class: 'dialog', 'data-dialog': 'choice' }, box);
    // Promotion first, as the play sites offer it: it is the usual answer.
    const ordered = [...candidates].sort((a, b) => Number(b.promote) - Number(a.promote));
    for (const mv of ordered) {
      const [from, ...rest] = mv.squares;
      const parts: string[] = [];
      if (routes || !promotion) {
        if (rest.length > 1) parts.push(t('board.via', { squares: rest.slice(0, -1).join(', ') }));
        else if (rest[0] === from) parts.push(t('board.pass'));
        else parts.push(t('board.directly'));
      }
      // A promotion names and shows the two pieces the mover may become, as on the play sites.
      const after = promotion ? this.standingAfter(from, mv.promote) : null;
      if (promotion) {
        const piece = after?.name ?? '';
        parts.push(mv.promote ? t('board.promote-to', { piece }) : t('board.stay-as', { piece }));
      }
      const shown = after && this.choicePiece(after);
      box.append(el('button', { 'data-choice': mv.promote ? 'promote' : 'stay', title: mv.text,
        onclick: () => { dialog.remove(); this.onMove(mv.text); } },
        shown, el('span', {}, parts.join(t('board.choice-joiner')))));
    }
    box.append(el('button', { class: 'secondary', onclick: () => { dialog.remove(); this.render(); } }, t('board.cancel')));
    document.body.append(dialog);
  }
}

// ---------------------------------------------------------------------------------------------
// Game analysis: the engine over every position of a record, through the server's bounded
// analysis queue, one position at a time; an evaluation graph with the biggest mistakes.
