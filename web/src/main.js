// The Tsubame web UI: lobby, play board, replay, import and analysis. The server is the
// authority on rules: the board only offers the legal moves the server lists, and every move
// goes to the server, which answers with the new position.

import { Shogiground } from 'shogiground';
import { parseSfen, parseMove, squareName, squareOf } from './sfen.js';
import { clockAt, formatClock, TENTHS_BELOW_MS } from './clock.js';
import { play as playSound, setMuted } from './sound.js';

const app = document.getElementById('app');
const soundBox = document.getElementById('sound');
soundBox.checked = localStorage.getItem('tsubame.sound') !== '0';
setMuted(!soundBox.checked);
soundBox.addEventListener('change', () => {
  localStorage.setItem('tsubame.sound', soundBox.checked ? '1' : '0');
  setMuted(!soundBox.checked);
});

/** Plays a game sound; the switch keeps the name of the last one played. */
function sound(name) {
  if (playSound(name)) soundBox.parentElement.dataset.played = name;
}

// The theme: the system's (auto), light or dark, remembered.
const themeSelect = document.getElementById('theme');
function applyTheme(choice) {
  if (choice === 'light' || choice === 'dark') document.documentElement.dataset.theme = choice;
  else delete document.documentElement.dataset.theme;
}
themeSelect.value = ['light', 'dark'].includes(localStorage.getItem('tsubame.theme')) ? localStorage.getItem('tsubame.theme') : 'auto';
applyTheme(themeSelect.value);
themeSelect.addEventListener('change', () => {
  localStorage.setItem('tsubame.theme', themeSelect.value);
  applyTheme(themeSelect.value);
});

const latinBox = document.getElementById('latin');
latinBox.checked = localStorage.getItem('tsubame.latin') === '1';
latinBox.addEventListener('change', () => {
  localStorage.setItem('tsubame.latin', latinBox.checked ? '1' : '0');
  rerender();
});

let variants = [];
let rerender = () => {};
let cleanup = () => {};

async function api(path, body, signal) {
  const response = await fetch(path, body === undefined ? { signal } : {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw Object.assign(new Error(data.error || `HTTP ${response.status}`), { status: response.status });
  return data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function variantInfo(name) {
  return variants.find((v) => v.name === name);
}

function tokenFor(id) {
  return localStorage.getItem(`tsubame.token.${id}`);
}

/** A time control's main time: `10:00`, `0:30`. */
function formatMs(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

// ---------------------------------------------------------------------------------------------
// The board

/** A CSS class name for a piece kind: shogiground names pieces by role strings that it also
 * uses as classes, so the variant's SFEN codes (`Q!`, `+D'`) are turned into safe words. */
function roleClass(info, index) {
  return `${info.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${index}`;
}

/** Shogiground's piece labels come from CSS: one rule per piece kind and variant, kanji by
 * default and Hodges letters under `.latin`. Built once per variant. */
function pieceStyles(variant, roles) {
  // Each character is escaped; `\A ` between two kanji starts a new line (they stand one above
  // the other, as written on a real piece).
  const quote = (parts) => `"${parts.map((part) => part.replace(/["\\]/g, '\\$&')).join('\\A ')}"`;
  const rules = [];
  for (const [code, role] of roles) {
    const info = variant.roles.find((r) => r.sfen === code);
    const kanji = [...(info?.kanji || code)];
    const latin = info ? info.hodges.replace('+', '') : code;
    const size = kanji.length > 1 ? 'two' : 'one';
    rules.push(`.pieces-${variant.name} piece.${role}::after { content: ${quote(kanji)}; }`,
      `.pieces-${variant.name} piece.${role} { --glyphs: var(--glyphs-${size}); }`,
      `.pieces-${variant.name}.latin piece.${role}::after { content: ${quote([latin])}; }`);
    if (code.startsWith('+')) rules.push(`.pieces-${variant.name} piece.${role} { --piece-ink: var(--promoted); }`);
  }
  return rules.join('\n');
}

/** A board widget on shogiground: position, selection, legal destinations (with the choice
 * between moves that reach the same square), hands and drops, flip, zoom, last move, check. */
class Board {
  constructor(options) {
    this.onMove = options.onMove;
    this.flipped = false;
    this.zoom = null;
    this.ground = null;
    this.groundVariant = null;
    this.root = el('div', { class: 'board-area' });
    this.boardNode = el('div', { class: 'board' });
    this.topHand = el('div', { class: 'hand' });
    this.bottomHand = el('div', { class: 'hand' });
    this.zoomInput = el('input', { type: 'range', min: 20, max: 72, class: 'zoom', 'aria-label': 'zoom',
      oninput: (e) => { this.zoom = Number(e.target.value); this.resize(); } });
    // The piece inspector: touching any piece (either side's, on the board or in hand) shows
    // its name and how it moves.
    this.inspector = el('section', { class: 'inspector', hidden: true });
    this.root.append(this.topHand,
      el('div', { class: 'board-wrap' }, this.boardNode),
      this.bottomHand,
      el('div', { class: 'actions' },
        el('button', { class: 'secondary', 'data-action': 'flip', onclick: () => { this.flipped = !this.flipped; this.render(); } }, 'Flip board'),
        el('label', { class: 'zoom' }, 'Zoom ', this.zoomInput),
        // Back to the size that fits the window, after zooming in to read a big board.
        el('button', { class: 'secondary small', 'data-action': 'fit', title: 'Fit the board to the window',
          onclick: () => { this.zoom = null; this.resize(); } }, 'Fit')),
      this.inspector);
    for (const node of [this.boardNode, this.topHand, this.bottomHand]) {
      node.addEventListener('pointerdown', (event) => this.inspectAt(event));
    }
    this.onWindowResize = () => this.resize();
    window.addEventListener('resize', this.onWindowResize);
  }

  /** Lets go of the window and document listeners when the page leaves the board. */
  destroy() {
    window.removeEventListener('resize', this.onWindowResize);
    this.ground?.destroy();
    this.ground = null;
  }

  /** `premoveFor`: the player's colour while the other side is to move, to let them premove
   * (and predrop); the premove is played once their turn comes, if it is legal then. */
  setState({ variant, sfen, legal = [], lastMove = null, check = null, interactive = true, premoveFor = null }) {
    this.premoveFor = premoveFor;
    this.variant = variantInfo(variant);
    this.sfen = sfen;
    this.position = parseSfen(sfen);
    this.legal = legal.map(parseMove).filter(Boolean);
    this.lastMove = lastMove ? parseMove(lastMove) : null;
    this.check = check;
    this.interactive = interactive;
    this.render();
  }

  /** The side length of a square in pixels: the zoom chosen, or the largest with which the
   * board and both hands fit the window, in width and in height, beside the side panel when
   * the window is wide enough for it to stand beside the board. */
  squareSize() {
    if (this.zoom) return this.zoom;
    const { files, ranks } = this.position;
    const hands = (this.handRoles || []).length > 0;
    const header = document.querySelector('.top')?.offsetHeight || 40;
    // Page padding, the frame's padding and coordinates, the hands' padding and gaps.
    const fixedHeight = header + 24 + 28 + (hands ? 2 * 6 + 2 * 7 : 0) + 8;
    // Squares are 12/11 as tall as wide; a hand is 0.9 of a square's height.
    const heightInSquares = (ranks + (hands ? 1.8 : 0)) * 12 / 11;
    const fromHeight = (window.innerHeight - fixedHeight) / heightInSquares;
    const sidePanel = window.innerWidth >= 900 ? 300 : 0;
    const fromWidth = (window.innerWidth - 24 - 34 - sidePanel) / files;
    return Math.max(14, Math.min(72, Math.floor(Math.min(fromHeight, fromWidth))));
  }

  resize() {
    if (!this.position) return;
    const size = this.squareSize();
    this.zoomInput.value = size;
    this.root.style.setProperty('--sq', `${size}px`);
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
      .filter((info) => !info.royal && !info.sfen.startsWith('+') && this.variant.name !== 'tenjiku')
      .map((info) => this.codeToRole.get(info.sfen));
    const styleId = `pieces-${name}`;
    if (this.variant && !document.getElementById(styleId)) {
      document.head.append(el('style', { id: styleId }, pieceStyles(this.variant, this.codeToRole)));
    }
    this.ground?.destroy();
    this.ground = null;
  }

  /** The role of a piece code, adding one for a code the variant list does not name. */
  roleOf(code) {
    if (!this.codeToRole.has(code)) {
      const role = `code-${[...code].map((c) => c.charCodeAt(0)).join('-')}`;
      this.codeToRole.set(code, role);
      this.roleToCode.set(role, code);
      document.head.append(el('style', {}, `piece.${role}::after { content: "${code.replace(/["\\]/g, '')}"; }`));
    }
    return this.codeToRole.get(code);
  }

  pieces() {
    const { files, squares } = this.position;
    const pieces = new Map();
    squares.forEach((row, rank) => row.forEach((cell, column) => {
      if (cell) pieces.set(squareName(files - column, rank), { role: this.roleOf(cell.code), color: cell.color });
    }));
    return pieces;
  }

  handsSfen() {
    const parts = [];
    for (const color of ['sente', 'gote']) {
      for (const [code, count] of Object.entries(this.position.hands[color])) {
        parts.push(`${count > 1 ? count : ''}${color === 'sente' ? code : code.toLowerCase()}`);
      }
    }
    return parts.join('');
  }

  /** Legal moves grouped by where they start: board squares, and `color role` for drops. */
  destinations() {
    const moves = new Map();
    const drops = new Map();
    this.passes = new Map();
    if (!this.interactive) return { moves, drops };
    for (const mv of this.legal) {
      const to = mv.squares[mv.squares.length - 1];
      if (mv.drop) {
        const key = `${this.position.turn} ${this.roleOf(mv.drop)}`;
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

  candidates(from, to) {
    return this.legal.filter((mv) => (mv.drop ? `${mv.drop}*` : mv.squares[0]) === from
      && mv.squares[mv.squares.length - 1] === to);
  }

  render() {
    if (!this.position) return;
    this.prepareVariant();
    this.resize();
    const { files, ranks } = this.position;
    const { moves, drops } = this.destinations();
    const orientation = this.flipped ? 'gote' : 'sente';
    const config = {
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
    this.boardNode.style.setProperty('--files', files);
    this.boardNode.style.setProperty('--ranks', ranks);
    // Shogiground keeps classes of its own on these elements: only ours are changed.
    for (const node of [this.boardNode, this.topHand, this.bottomHand]) {
      for (const name of [...node.classList]) if (name.startsWith('pieces-')) node.classList.remove(name);
      node.classList.add(`pieces-${this.groundVariant}`);
      node.classList.toggle('latin', latinBox.checked);
    }
    for (const hand of [this.topHand, this.bottomHand]) hand.hidden = this.handRoles.length === 0;
    this.topHand.dataset.hand = this.flipped ? 'sente' : 'gote';
    this.bottomHand.dataset.hand = orientation;
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
        squareRatio: [11, 12],
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
          unselect: (key) => { if (this.passes.has(key)) this.choose(this.passes.get(key)); },
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
    const change = new Map();
    for (const [key, piece] of wanted) {
      const have = this.ground.state.pieces.get(key);
      if (!have || have.role !== piece.role || have.color !== piece.color) change.set(key, piece);
    }
    for (const key of this.ground.state.pieces.keys()) if (!wanted.has(key)) change.set(key, undefined);
    if (change.size) this.ground.setPieces(change);
    this.label();
    // The player's turn has come: a premove (or predrop) waiting for it is played if it is
    // legal now, and dropped if not.
    if (this.interactive && !this.ground.playPremove()) this.ground.playPredrop();
  }

  /** Squares a piece of the premoving side could reach from `key`, by its move vectors and
   * powers, whatever stands in the way. */
  premoveDests(key) {
    const { files, ranks } = this.position;
    const { file, rank } = squareOf(key);
    const cell = this.cellAt(key);
    const role = cell && this.variant.roles.find((r) => r.sfen === cell.code);
    if (!role) return [];
    const sign = cell.color === 'sente' ? 1 : -1;
    const out = new Set();
    const add = (left, forward) => {
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
      const around = (d) => { for (let l = -d; l <= d; l++) for (let f = -d; f <= d; f++) add(l, f); };
      if (powers.lion === 'full' || powers.lion === 'lion-hawk') around(2);
      for (const [l, f] of powers.lion?.line || []) { add(l, f); add(2 * l, 2 * f); }
      if (powers.area) around(powers.area);
      for (const [l, f] of powers.range_jump?.directions || []) for (let n = 1; n <= reach; n++) add(l * n, f * n);
      if (powers.tetrarch) around(3);
    }
    return [...out];
  }

  /** Every empty square: a predrop may go anywhere now empty. */
  predropDests() {
    const { files, ranks, squares } = this.position;
    const out = [];
    for (let r = 0; r < ranks; r++) for (let f = 1; f <= files; f++) if (!squares[r][files - f]) out.push(squareName(f, r));
    return out;
  }

  /** Marks the board's squares and hand pieces with their names, for people and tests. */
  label() {
    for (const square of this.boardNode.querySelectorAll('sq')) square.dataset.square = square.sgKey;
    for (const hand of [this.topHand, this.bottomHand]) {
      for (const wrap of hand.querySelectorAll('sg-hp-wrap')) {
        const piece = wrap.firstElementChild;
        if (piece) wrap.dataset.drop = this.roleToCode.get(piece.sgRole) || '';
      }
    }
  }

  /** Shows the piece under a pointer in the inspector. */
  inspectAt(event) {
    if (!this.position || !this.variant) return;
    const handPiece = event.target.closest?.('.hand piece');
    if (handPiece) {
      const hand = handPiece.closest('.hand');
      this.inspect(this.roleToCode.get(handPiece.sgRole), hand.dataset.hand);
      return;
    }
    const square = [...this.boardNode.querySelectorAll('sq[data-square]')].find((sq) => {
      const r = sq.getBoundingClientRect();
      return event.clientX >= r.left && event.clientX < r.right && event.clientY >= r.top && event.clientY < r.bottom;
    });
    if (!square) return;
    const cell = this.cellAt(square.dataset.square);
    if (cell) this.inspect(cell.code, cell.color);
  }

  inspect(code, color) {
    const role = this.variant.roles.find((r) => r.sfen === code);
    if (!role) return;
    const radius = this.variant.name === 'tenjiku' ? 4 : 3;
    this.inspector.replaceChildren(
      el('h3', {}, title(role.name), ' ', el('small', {}, `${role.kanji} · ${role.hodges}`)),
      el('div', { class: 'inspector-body' }, moveDiagram(this.variant, role, radius),
        el('div', {},
          powerNotes(role).map((note) => el('p', { class: 'note' }, note)),
          role.promotes_to ? el('p', { class: 'note' }, `Promotes to the ${this.variant.roles.find((r) => r.sfen === role.promotes_to)?.name}.`) : null,
          role.promoted_from ? el('p', { class: 'note' }, `A promoted ${this.variant.roles.find((r) => r.sfen === role.promoted_from)?.name}.`) : null,
          el('p', { class: 'note' }, `${color === 'gote' ? 'Gote' : 'Sente'}'s piece, shown moving up the page. `,
            el('a', { href: `#/rules/${this.variant.name}` }, 'All the rules')))));
    this.inspector.dataset.inspector = code;
    this.inspector.dataset.color = color;
    this.inspector.hidden = false;
  }

  /** A selected piece that may move back to its own square shows that square as a destination. */
  showPass() {
    const selected = this.ground?.state.selected;
    const squares = selected && this.passes.has(selected) ? [{ key: selected, className: 'dest pass' }] : [];
    this.ground?.setSquareHighlights(squares);
  }

  /** The piece on `from` drawn as it would stand after moving: promoted or as it is. */
  /** The piece on a square (`{ code, color }`), or nothing. */
  cellAt(name) {
    const { file, rank } = squareOf(name);
    return this.position.squares[rank]?.[this.position.files - file];
  }

  pieceAfter(from, promote) {
    const cell = this.cellAt(from);
    if (!cell) return null;
    const info = this.variant?.roles.find((r) => r.sfen === cell.code);
    const code = promote && info?.promotes_to ? info.promotes_to : cell.code;
    const name = this.variant?.roles.find((r) => r.sfen === code)?.name || code;
    return el('span', { class: `choice-piece pieces-${this.groundVariant}${latinBox.checked ? ' latin' : ''}`,
      title: name, 'data-piece': code },
    el('piece', { class: `${this.roleOf(code)} ${cell.color}` }));
  }

  /** Several moves reach the square (promotion or not, a lion's routes): ask which. */
  choose(candidates) {
    this.ground?.setSquareHighlights([]);
    if (candidates.length === 0) { this.render(); return; }
    if (candidates.length === 1) {
      this.onMove(candidates[0].text);
      return;
    }
    const promotion = candidates.some((c) => c.promote);
    const box = el('div', { class: 'box' }, el('strong', {}, promotion ? 'Promote?' : 'Choose the move'));
    const dialog = el('div', { class: 'dialog', 'data-dialog': 'choice' }, box);
    for (const mv of candidates) {
      const [from, ...rest] = mv.squares;
      let label = 'Directly';
      if (mv.promote) label = 'Promote';
      else if (promotion) label = 'Do not promote';
      else if (rest.length > 1) label = `Via ${rest.slice(0, -1).join(', ')}`;
      else if (rest[0] === from) label = 'Pass';
      // A promotion shows the two pieces the mover may become, as on the play sites.
      const shown = promotion ? this.pieceAfter(from, mv.promote) : null;
      box.append(el('button', { 'data-choice': mv.promote ? 'promote' : 'stay',
        onclick: () => { dialog.remove(); this.onMove(mv.text); } },
        shown, el('span', {}, `${label} (${mv.text})`)));
    }
    box.append(el('button', { class: 'secondary', onclick: () => { dialog.remove(); this.render(); } }, 'Cancel'));
    document.body.append(dialog);
  }
}

// ---------------------------------------------------------------------------------------------
// Game analysis: the engine over every position of a record, through the server's bounded
// analysis queue, one position at a time; an evaluation graph with the biggest mistakes.

const EVAL_CAP = 2000;

/** A score for the side to move (`cp 35`, `mate -3`) as centipawns for sente, capped. */
function senteCentipawns(score, senteToMove) {
  const [kind, value] = String(score || 'cp 0').split(' ');
  const n = Number(value) || 0;
  const own = kind === 'mate' ? (n > 0 ? EVAL_CAP : -EVAL_CAP) : Math.max(-EVAL_CAP, Math.min(EVAL_CAP, n));
  return senteToMove ? own : -own;
}

function gameAnalysisNode(record, onPick) {
  const box = el('div', { class: 'game-analysis' });
  const button = el('button', { type: 'button', class: 'secondary', 'data-action': 'analyse-game' }, 'Analyse this game');
  const status = el('small', { class: 'help', 'data-analysis-status': '' });
  box.append(button, status);
  button.addEventListener('click', async () => {
    button.disabled = true;
    const evals = [];
    const plies = record.usi.length;
    for (let ply = 0; ply <= plies; ply++) {
      status.textContent = `Analysing position ${ply + 1} of ${plies + 1}…`;
      const senteToMove = / b /.test(` ${record.positions[ply].split(' ').slice(1).join(' ')} `);
      try {
        const reply = await api('/api/analyse', { variant: record.variant, options: record.options,
          sfen: record.start_sfen, moves: record.usi.slice(0, ply), depth: 12, movetime_ms: 150 });
        evals.push(senteCentipawns(reply.score, senteToMove));
      } catch (e) {
        // The game is over here: the side to move has lost, or nobody won.
        const winner = record.outcome?.winner || record.result?.winner;
        evals.push(winner === 'sente' ? EVAL_CAP : winner === 'gote' ? -EVAL_CAP : evals[evals.length - 1] || 0);
      }
    }
    status.textContent = '';
    box.replaceChildren(evalGraph(record, evals, onPick));
  });
  return box;
}

function evalGraph(record, evals, onPick) {
  const width = 300;
  const height = 120;
  const x = (ply) => (evals.length > 1 ? (ply / (evals.length - 1)) * width : 0);
  const y = (cp) => height / 2 - (cp / EVAL_CAP) * (height / 2);
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('viewBox', `-4 -4 ${width + 8} ${height + 8}`);
  svg.setAttribute('class', 'eval-graph');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'evaluation over the game, sente above');
  const shape = (tag, attrs) => {
    const node = document.createElementNS(svgNs, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.append(node);
    return node;
  };
  shape('rect', { x: 0, y: 0, width, height: height / 2, class: 'eval-sente' });
  shape('rect', { x: 0, y: height / 2, width, height: height / 2, class: 'eval-gote' });
  shape('polyline', { points: evals.map((cp, ply) => `${x(ply)},${y(cp)}`).join(' '), class: 'eval-line' });
  // A mistake: the mover's evaluation drops by 200 or more; the three worst are marked.
  const losses = record.usi.map((usi, i) => {
    const moverIsSente = evals.length > i + 1 && / b /.test(` ${record.positions[i].split(' ').slice(1).join(' ')} `);
    const drop = moverIsSente ? evals[i] - evals[i + 1] : evals[i + 1] - evals[i];
    return { ply: i + 1, drop, text: record.hodges[i] };
  }).filter((m) => m.drop >= 200).sort((a, b) => b.drop - a.drop).slice(0, 3);
  evals.forEach((cp, ply) => {
    const mistake = losses.some((m) => m.ply === ply);
    const dot = shape('circle', { cx: x(ply), cy: y(cp), r: mistake ? 4 : 2.2, class: mistake ? 'eval-mistake' : 'eval-point',
      'data-eval-ply': ply });
    dot.addEventListener('click', () => onPick(ply));
  });
  return el('div', {}, svg, losses.length
    ? el('ol', { class: 'mistakes' }, losses.map((m) => el('li', { 'data-mistake': m.ply },
      el('a', { href: '#', onclick: (e) => { e.preventDefault(); onPick(m.ply); } },
        `${Math.ceil(m.ply / 2)}${m.ply % 2 ? '.' : '…'} ${m.text}`), ` loses ${(m.drop / 100).toFixed(1)}`)))
    : el('p', { class: 'help' }, 'No move lost 2 pawns or more.'));
}

// ---------------------------------------------------------------------------------------------
// Players: who is logged in, sign-up and login, names and ratings, player pages

const accountBox = document.getElementById('account');
/** `{account, your_turn}` from the server: who is logged in, and how many games wait for them. */
let me = { account: null, your_turn: 0 };

function myName() {
  return me.account?.username || null;
}

async function refreshAccount() {
  try {
    me = await api('/api/account');
  } catch {
    me = { account: null, your_turn: 0 };
  }
  showAccount();
}

function showAccount() {
  const name = myName();
  accountBox.replaceChildren(...(name
    ? [el('a', { href: `#/@/${name}`, 'data-me': name }, name),
      me.your_turn ? el('a', { href: `#/@/${name}`, class: 'your-turn', 'data-your-turn': me.your_turn,
        title: 'Games waiting for your move' }, `${me.your_turn} your turn`) : null,
      el('button', { type: 'button', class: 'link', 'data-action': 'logout', onclick: logout }, 'Log out')]
    : [el('a', { href: '#/login', 'data-action': 'login' }, 'Log in'),
      el('a', { href: '#/signup', 'data-action': 'signup' }, 'Sign up')]).filter(Boolean));
}

async function logout() {
  try { await api('/api/account/logout', {}); } catch { /* the cookie is cleared either way */ }
  await refreshAccount();
  route();
}

/** The sign-up and login pages: one form, a name and a password. */
function accountPage(kind) {
  const signup = kind === 'signup';
  const error = el('div', { class: 'error', 'data-account-error': '' });
  const username = el('input', { name: 'username', autocomplete: 'username', required: true,
    minlength: signup ? 3 : undefined, maxlength: signup ? 20 : undefined, pattern: signup ? '[A-Za-z0-9_\\-]+' : undefined });
  const password = el('input', { name: 'password', type: 'password', required: true,
    autocomplete: signup ? 'new-password' : 'current-password', minlength: signup ? 8 : undefined });
  const back = sessionStorage.getItem('tsubame.after-login') || '#/';
  const form = el('form', { class: 'panel account-form', onsubmit: async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      await api(`/api/account/${kind}`, { username: username.value.trim(), password: password.value });
      sessionStorage.removeItem('tsubame.after-login');
      await refreshAccount();
      location.hash = back;
    } catch (e) {
      error.textContent = e.message;
    }
  } },
  el('h2', {}, signup ? 'Sign up' : 'Log in'),
  el('label', {}, 'User name', username),
  signup ? el('small', { class: 'help' }, '3 to 20 letters, digits, _ and -.') : null,
  el('label', {}, 'Password', password),
  signup ? el('small', { class: 'help' }, 'At least 8 characters.') : null,
  el('button', { type: 'submit', 'data-action': `${kind}-submit` }, signup ? 'Create account' : 'Log in'),
  error,
  el('p', { class: 'help' }, signup
    ? ['Have an account? ', el('a', { href: '#/login' }, 'Log in')]
    : ['New here? ', el('a', { href: '#/signup' }, 'Sign up'), ' — or play as a guest from the ', el('a', { href: '#/' }, 'lobby'), '.']));
  app.replaceChildren(form);
  username.focus();
}

/** A rating as shown: `1662?` while provisional. */
function ratingText(rating) {
  return rating ? `${rating.rating}${rating.provisional ? '?' : ''}` : '';
}

function changeText(change) {
  return change > 0 ? `+${change}` : String(change);
}

/** Whether a name is an account's (guests' and the computer's are not). */
function isAccountName(name, player) {
  return player === 'human' && name && !name.startsWith('Guest-');
}

/** A seat's player as shown on boards and lists: the name (a link to their page for an
 * account), the rating when the game started, and once rated, its change. */
function playerNode(game, side) {
  const name = game[`${side}_name`] || (game[`${side}_player`] === 'open' ? 'waiting…' : side);
  const rating = game[`${side}_rating`];
  return el('span', { class: 'player', 'data-player': side },
    isAccountName(name, game[`${side}_player`])
      ? el('a', { href: `#/@/${name}`, 'data-player-name': name }, name) : el('span', { 'data-player-name': name }, name),
    rating ? el('span', { class: 'rating', 'data-rating': side }, ` ${ratingText(rating)}`) : null,
    rating?.change != null ? el('span', { class: `rating-change ${rating.change >= 0 ? 'up' : 'down'}`, 'data-rating-change': side },
      ` ${changeText(rating.change)}`) : null);
}

function playersNode(game) {
  return el('span', { class: 'players' }, playerNode(game, 'sente'), ' – ', playerNode(game, 'gote'));
}

const GAME_TITLES = { tori: 'Tori', wa: 'Wa', 'wa-nodrops': 'Wa (no drops)', tenjiku: 'Tenjiku' };

/** A rating history as a small line chart: one line per speed, rating against game number. */
function ratingChart(points) {
  const width = 320;
  const height = 120;
  const pad = 6;
  const ratings = points.map((p) => p.rating);
  const low = Math.min(...ratings) - 20;
  const high = Math.max(...ratings) + 20;
  const x = (i) => pad + (points.length > 1 ? (i / (points.length - 1)) * (width - 2 * pad) : (width - 2 * pad) / 2);
  const y = (r) => height - pad - ((r - low) / (high - low)) * (height - 2 * pad);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'rating-chart');
  const speeds = [...new Set(points.map((p) => p.speed))];
  const add = (tag, attrs) => {
    const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.append(node);
    return node;
  };
  for (const level of [low + 20, high - 20]) {
    add('line', { x1: pad, x2: width - pad, y1: y(level), y2: y(level), class: 'grid' });
    add('text', { x: pad, y: y(level) - 2, class: 'axis' }).textContent = String(Math.round(level));
  }
  speeds.forEach((speed) => {
    const mine = points.map((p, i) => [p, i]).filter(([p]) => p.speed === speed);
    add('polyline', { points: mine.map(([p, i]) => `${x(i)},${y(p.rating)}`).join(' '), class: `line speed-${speed}` });
    for (const [p, i] of mine) add('circle', { cx: x(i), cy: y(p.rating), r: 2.5, class: `dot speed-${speed}` });
  });
  return svg;
}

/** What a finished game was for `name`: won, lost, drawn or aborted. */
function outcomeFor(game, name) {
  if (!game.result) return game.status;
  if (game.result.reason === 'aborted') return 'aborted';
  if (!game.result.winner) return `draw (${game.result.reason})`;
  const mine = game.sente_name === name ? 'sente' : 'gote';
  return `${game.result.winner === mine ? 'won' : 'lost'} (${game.result.reason})`;
}

async function playerPage(name) {
  let player;
  let games;
  try {
    [player, games] = await Promise.all([
      api(`/api/players/${encodeURIComponent(name)}`),
      api(`/api/players/${encodeURIComponent(name)}/games?limit=100`),
    ]);
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, e.message));
    return;
  }
  const own = myName()?.toLowerCase() === player.username.toLowerCase();
  const joined = new Date(player.joined).toLocaleDateString();
  const ratingRows = player.ratings.map((r) => el('tr', { 'data-rating-row': `${r.game} ${r.speed}` },
    el('td', {}, GAME_TITLES[r.game] || r.game), el('td', {}, r.speed),
    el('td', { class: 'num' }, `${r.rating}${r.provisional ? '?' : ''}`),
    el('td', { class: 'num', title: 'rating deviation' }, `±${r.deviation}`),
    el('td', { class: 'num' }, r.games)));
  const charts = Object.keys(GAME_TITLES).map((g) => {
    const points = player.history.filter((p) => p.game === g);
    return points.length ? el('figure', { class: 'chart', 'data-chart': g },
      el('figcaption', {}, `${GAME_TITLES[g]}: ${[...new Set(points.map((p) => p.speed))].join(', ')}`), ratingChart(points)) : null;
  });
  const sideOf = (g) => (g.sente_name?.toLowerCase() === player.username.toLowerCase() ? 'sente' : 'gote');
  const ongoing = games.filter((g) => g.status !== 'finished')
    .map((g) => ({ g, turn: g.status === 'playing' && g.side_to_move === sideOf(g) }))
    .sort((a, b) => Number(b.turn) - Number(a.turn));
  const finished = games.filter((g) => g.status === 'finished');
  const opponent = (g) => playerNode(g, sideOf(g) === 'sente' ? 'gote' : 'sente');
  app.replaceChildren(el('div', { class: 'profile', 'data-profile': player.username },
    el('section', { class: 'panel' },
      el('h2', {}, player.username),
      el('p', { class: 'help' }, `Joined ${joined} · ${player.games} game${player.games === 1 ? '' : 's'} played`),
      player.ratings.length
        ? el('table', { class: 'games ratings' }, el('tr', {}, el('th', {}, 'Game'), el('th', {}, 'Speed'),
          el('th', {}, 'Rating'), el('th', {}, 'RD'), el('th', {}, 'Rated games')), ratingRows)
        : el('p', {}, 'No rated game yet: ratings start at 1500 and show a ? until they settle.'),
      el('div', { class: 'charts' }, charts)),
    el('section', { class: 'panel' },
      el('h2', {}, 'Ongoing games'),
      ongoing.length ? el('table', { class: 'games' }, ongoing.map(({ g, turn }) => el('tr', { 'data-ongoing': g.id },
        el('td', {}, turn ? el('strong', { class: 'your-turn-mark' }, own ? 'your turn' : 'to move')
          : g.status === 'waiting' ? 'seeking' : 'opponent\'s turn'),
        el('td', {}, variantInfo(g.variant)?.title || g.variant), el('td', {}, 'vs ', opponent(g)),
        el('td', {}, clockText(g.time_control)), el('td', {}, el('a', { href: `#/game/${g.id}`, 'data-open-game': g.id }, 'open')))))
        : el('p', { class: 'help' }, 'None.'),
      el('h2', {}, 'Finished games'),
      finished.length ? el('table', { class: 'games' }, finished.map((g) => el('tr', { 'data-finished': g.id },
        el('td', {}, new Date(g.created_at).toLocaleDateString()),
        el('td', {}, variantInfo(g.variant)?.title || g.variant, g.rated ? ' · rated' : ''),
        el('td', {}, clockText(g.time_control)),
        el('td', {}, 'vs ', opponent(g)),
        el('td', { 'data-outcome': outcomeFor(g, g[`${sideOf(g)}_name`]) }, outcomeFor(g, g[`${sideOf(g)}_name`]),
          g[`${sideOf(g)}_rating`]?.change != null ? ` ${changeText(g[`${sideOf(g)}_rating`].change)}` : ''),
        el('td', {}, el('a', { href: `#/game/${g.id}` }, 'replay')))))
        : el('p', { class: 'help' }, 'None yet.'))));
}

// ---------------------------------------------------------------------------------------------
// Home: the three games, quick pairing and the computer, at the top of the lobby.

// Quick-pairing time controls per game (main minutes + byo-yomi seconds), longer for the
// bigger boards.
const QUICK_CONTROLS = {
  tori: [[3, 10], [5, 10], [10, 30]],
  wa: [[10, 30], [20, 30], [30, 60]],
  tenjiku: [[20, 30], [30, 60], [60, 60]],
};

function quickClock([minutes, seconds]) {
  return { kind: 'byoyomi', main_ms: minutes * 60000, periods: 1, period_ms: seconds * 1000 };
}

function sameClock(a, b) {
  return JSON.stringify(a) === JSON.stringify({ ...b });
}

/** The style rules naming a variant's pieces, added once. */
function ensurePieceStyles(variant) {
  const styleId = `pieces-${variant.name}`;
  if (document.getElementById(styleId)) return;
  const roles = new Map(variant.roles.map((info, index) => [info.sfen, roleClass(info, index)]));
  document.head.append(el('style', { id: styleId }, pieceStyles(variant, roles)));
}

/** A small picture of a position: squares and pieces, no hands, not interactive. */
function miniBoard(variantName, sfen, cell) {
  const variant = variantInfo(variantName);
  const position = parseSfen(sfen);
  ensurePieceStyles(variant);
  const grid = el('div', { class: `mini-board pieces-${variant.name} orientation-sente`,
    style: `--cell:${cell}px; --files:${position.files}`, 'aria-hidden': 'true' });
  position.squares.forEach((row) => row.forEach((piece) => {
    const info = piece && variant.roles.find((r) => r.sfen === piece.code);
    grid.append(el('span', { class: 'mini-sq' },
      info ? el('piece', { class: `${roleClass(info, variant.roles.indexOf(info))} ${piece.color}` }) : null));
  }));
  return grid;
}

/** Whether a seek is this browser's (its seat token) or this account's. */
function isOwnSeek(game) {
  const name = myName();
  return Boolean(localStorage.getItem(`tsubame.token.${game.id}`))
    || (name !== null && [game.sente_name, game.gote_name].includes(name));
}

/** Joins an open seek of this game and clock, or makes one, and opens the game. */
async function quickPair(variant, control) {
  const clock = quickClock(control);
  // Logged in, quick pairing is rated, as on the play sites; guests play casual games.
  const rated = Boolean(myName());
  const seeks = await api('/api/lobby');
  const match = seeks.find((g) => g.variant === variant && sameClock(g.time_control, clock)
    && !isOwnSeek(g) && g.rated === rated && !g.rating_range);
  const grant = match
    ? await api(`/api/games/${match.id}/join`, {})
    : await api('/api/games', { variant, opponent: 'human', side: 'random', clock, public: true, rated });
  localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
  location.hash = `#/game/${grant.game_id}`;
}

async function playComputer(variant) {
  const clock = quickClock(QUICK_CONTROLS[variant][1]);
  const grant = await api('/api/games', { variant, opponent: 'engine', level: 2, side: 'sente', clock });
  localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
  location.hash = `#/game/${grant.game_id}`;
}

function homeNode() {
  const error = el('div', { class: 'error', 'data-home-error': '' });
  const attempt = (action) => async () => {
    error.textContent = '';
    try { await action(); } catch (e) { error.textContent = e.message; }
  };
  const cards = variants.filter((v) => v.available).map((v) => el('section', { class: 'panel game-card', 'data-game': v.name },
    miniBoard(v.name, v.start_sfen, v.name === 'tenjiku' ? 8 : v.name === 'wa' ? 12 : 18),
    el('div', { class: 'game-card-text' },
      el('h2', {}, v.title),
      el('p', {}, RULES_INTRO[v.name] || ''),
      el('div', { class: 'quick' }, (QUICK_CONTROLS[v.name] || []).map((control) => el('button', {
        type: 'button', 'data-quick': `${v.name} ${control[0]}+${control[1]}`,
        title: `${control[0]} min, then ${control[1]} s a move: paired with the next player who asks (rated when logged in)`,
        onclick: attempt(() => quickPair(v.name, control)) }, `${control[0]}+${control[1]}s`))),
      el('div', { class: 'row' },
        el('button', { type: 'button', class: 'secondary', 'data-computer': v.name, onclick: attempt(() => playComputer(v.name)) }, 'Play the computer'),
        el('a', { href: `#/rules/${v.name}` }, 'Rules and pieces')))));
  return el('div', { class: 'home' },
    el('p', { class: 'tagline' }, 'Three historic shogi games: pick a clock to be paired with the next player who picks it, or play the computer.'),
    el('div', { class: 'game-cards' }, cards), error);
}

// ---------------------------------------------------------------------------------------------
// Lobby

// Rule options in plain words: the server names them for programs (`drop-mate: loses`); a
// player reads what each choice means. Options missing here show the server's own help.
const OPTION_WORDS = {
  'drop-mate': { title: 'Mate by a swallow drop', values: {
    loses: 'may be played, and the dropper loses at once (the rulebook, pychess-variants)',
    illegal: 'is not a legal move (the Encyclopedia of Chess Variants)' } },
  repetition: { title: 'Repetition', values: {
    3: 'whoever repeats a position a third time loses',
    4: 'only a fourth time loses (pychess-variants, Fairy-Stockfish)' } },
  owl: { title: 'Owl', values: { off: 'no owl', on: 'each side\'s right-hand crane starts as an owl' } },
  shrike: { title: 'Shrike', values: { off: 'no shrike', on: 'each side starts with a shrike in hand' } },
  handicap: { title: 'Handicap', values: {
    none: 'none: an even game', 'left-quail': 'gote plays without the left quail',
    falcon: 'gote plays without the falcon', 'falcon-left-quail': 'gote plays without the falcon and the left quail',
    'falcon-both-quails': 'gote plays without the falcon and both quails' } },
  drops: { title: 'Drops', values: {
    on: 'captured pieces may be dropped back (modern)',
    off: 'captured pieces leave the game (historical)' } },
  'max-plies': { title: 'Move limit', number: 'plies (moves of either side) before the game ends without a winner; empty for no limit' },
  'lion-hawk': { title: 'Lion hawk', values: {
    lion: 'bishop plus the full lion power', tsa: 'bishop, or any move within two squares' } },
  'free-eagle': { title: 'Free eagle', values: {
    english: 'queen, plus a jump to the second square orthogonally',
    japanese: 'bishop, plus range jumps orthogonally' } },
  'demon-conflict': { title: 'Fire demon next to the enemy\'s', values: {
    tsa: 'it burns nothing and dies', adams: 'it burns the other pieces around it, then dies' } },
  'range-jump': { title: 'Range-jumping generals', values: {
    capture: 'jump only to capture', always: 'may also stop on an empty square beyond' } },
  promotion: { title: 'Promotion', values: {
    deferred: 'on any move touching the zone; a declined promotion waits a move',
    entry: 'only on entering the zone or capturing in it' } },
  mate: { title: 'When the last king cannot escape', values: {
    ends: 'the game ends at once (checkmate)', 'play-on': 'play goes on until it is captured' } },
};

function optionFields(variantName, container) {
  container.replaceChildren();
  const info = variantInfo(variantName);
  if (!info || !info.available) {
    container.append(el('p', { class: 'error' }, `${info ? info.title : variantName} is not playable yet.`));
    return;
  }
  for (const option of info.options) {
    const words = OPTION_WORDS[option.name] || {};
    const title = words.title || option.name;
    if (option.number) {
      // A limit: a number, or empty for the option's word (`off`).
      const input = el('input', { type: 'number', name: `opt-${option.name}`, 'data-option': option.name,
        'data-none': option.values[0] || '', min: option.number.min, max: option.number.max,
        placeholder: 'no limit', style: 'width:7rem' });
      container.append(el('div', { class: 'field' }, el('label', {}, `${title}: `, input),
        el('small', { class: 'help' }, words.number || option.help)));
      continue;
    }
    const select = el('select', { name: `opt-${option.name}`, 'data-option': option.name },
      option.values.map((v) => el('option', { value: v }, words.values?.[v] || v)));
    container.append(el('div', { class: 'field' }, el('label', {}, `${title}: `, select),
      words.values ? null : el('small', { class: 'help' }, option.help)));
  }
}

// Main times a player picks from, as on the play sites: seconds for the fastest games.
const MAIN_TIMES = [0, 10, 15, 30, 45, 60, 90, 120, 180, 300, 420, 600, 900, 1200, 1500, 1800, 2700, 3600, 5400];

function secondsText(seconds) {
  if (seconds < 60) return `${seconds} s`;
  return seconds % 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds / 60} min`;
}

/** What each computer level does (the engine's search limits for it) and how strong it played
 * in Tori against the level below (`scripts/strength-levels`, 40 games each). */
const COMPUTER_LEVELS = [
  ['one move ahead', 'Looks one move ahead, at most 0.2 s a move: for a first game.'],
  ['two moves ahead', 'Two moves ahead, 0.4 s: won 30 of 40 games against level 1.'],
  ['four moves ahead', 'Four moves ahead, 0.8 s: won 39 of 40 against level 2.'],
  ['six moves ahead', 'Six moves ahead, 1.5 s: won 38 of 40 against level 3.'],
  ['ten moves ahead', 'Ten moves ahead, 3 s: won 40 of 40 against level 4, and is close to the engine at full strength in fast games.'],
];

const CLOCK_WORDS = {
  byoyomi: 'After the main time, every move must be made within one period; each period overrun is used up, and the last one lost loses the game.',
  fischer: 'Every move adds the increment to the mover\'s time.',
  correspondence: 'Every move within the days chosen; the game waits for days, and the page of each player counts the games waiting for their move.',
  unlimited: 'No clock.',
};

async function lobbyPage() {
  const optionBox = el('div');
  const variantSelect = el('select', { name: 'variant', onchange: () => optionFields(variantSelect.value, optionBox) },
    variants.map((v) => el('option', { value: v.name }, v.available ? v.title : `${v.title} (coming)`)));
  const num = (name, value, min, max) => el('input', { type: 'number', name, value, min, max, style: 'width:5rem' });
  const mainTime = el('select', { name: 'main' },
    MAIN_TIMES.map((t) => el('option', { value: t, selected: t === 600 }, secondsText(t))));
  const periods = num('periods', 1, 1, 10);
  const periodSec = num('period', 30, 1, 600);
  const incSec = num('increment', 5, 0, 180);
  const clockHelp = el('small', { class: 'help', 'data-clock-help': '' });
  const mainField = el('label', {}, 'Main time ', mainTime);
  const byoyomiFields = el('span', { class: 'row' }, el('label', {}, 'Periods ', periods),
    el('label', {}, 'of ', periodSec, ' s'));
  const fischerFields = el('label', {}, 'Increment ', incSec, ' s per move');
  const days = el('select', { name: 'days' },
    Array.from({ length: 14 }, (_, i) => i + 1).map((n) => el('option', { value: n, selected: n === 3 }, n)));
  const daysField = el('label', {}, days, ' days per move');
  const clockKind = el('select', { name: 'clock', onchange: () => showClockFields() },
    el('option', { value: 'byoyomi' }, 'Byo-yomi'), el('option', { value: 'fischer' }, 'Fischer (increment)'),
    el('option', { value: 'correspondence' }, 'Correspondence (days per move)'),
    el('option', { value: 'unlimited' }, 'Unlimited'));
  const rated = el('input', { type: 'checkbox', name: 'rated', 'data-rated': '' });
  const ratedHelp = el('small', { class: 'help' });
  const rangeMin = el('input', { type: 'number', name: 'rating-min', min: 0, max: 4000, step: 50, placeholder: 'any', style: 'width:5.5rem' });
  const rangeMax = el('input', { type: 'number', name: 'rating-max', min: 0, max: 4000, step: 50, placeholder: 'any', style: 'width:5.5rem' });
  const levelHelp = el('small', { class: 'help', 'data-level-help': '' });
  const levelSelect = el('select', { name: 'level', onchange: () => { levelHelp.textContent = COMPUTER_LEVELS[levelSelect.value - 1][1]; } },
    COMPUTER_LEVELS.map(([short], i) => el('option', { value: i + 1, selected: i === 1 }, `${i + 1}: ${short}`)));
  levelHelp.textContent = COMPUTER_LEVELS[1][1];
  function showClockFields() {
    const kind = clockKind.value;
    mainField.hidden = kind === 'unlimited' || kind === 'correspondence';
    byoyomiFields.hidden = kind !== 'byoyomi';
    fischerFields.hidden = kind !== 'fischer';
    daysField.hidden = kind !== 'correspondence';
    clockHelp.textContent = CLOCK_WORDS[kind];
    const human = form.querySelector('[name="opponent"]:checked')?.value === 'human';
    rated.disabled = !myName() || !human || kind === 'unlimited';
    if (rated.disabled) rated.checked = false;
    ratedHelp.textContent = !myName() ? 'Log in to play rated games.'
      : !human ? 'Games against the computer are not rated.'
        : kind === 'unlimited' ? 'A rated game needs a clock.' : 'Rated games change both players\' Glicko-2 ratings.';
  }
  const error = el('div', { class: 'error' });
  const form = el('form', { class: 'create panel', onsubmit: async (event) => {
    event.preventDefault();
    error.textContent = '';
    const data = new FormData(form);
    const options = {};
    for (const field of optionBox.querySelectorAll('[data-option]')) {
      options[field.dataset.option] = field.tagName === 'INPUT' && field.value.trim() === ''
        ? field.dataset.none : field.value.trim();
    }
    let clock = { kind: 'unlimited' };
    const mainMs = Number(mainTime.value) * 1000;
    if (clockKind.value === 'byoyomi') {
      clock = { kind: 'byoyomi', main_ms: mainMs, periods: Number(periods.value),
        period_ms: Number(periodSec.value) * 1000 };
    } else if (clockKind.value === 'fischer') {
      clock = { kind: 'fischer', main_ms: mainMs, increment_ms: Number(incSec.value) * 1000 };
    } else if (clockKind.value === 'correspondence') {
      clock = { kind: 'correspondence', days_per_move: Number(days.value) };
    }
    const range = rangeMin.value !== '' || rangeMax.value !== ''
      ? [rangeMin.value === '' ? 0 : Number(rangeMin.value), rangeMax.value === '' ? 4000 : Number(rangeMax.value)] : undefined;
    try {
      const grant = await api('/api/games', {
        variant: variantSelect.value, options, opponent: data.get('opponent'),
        level: Number(data.get('level')), side: data.get('side'), clock, public: data.get('public') === 'on',
        rated: rated.checked, rating_range: data.get('opponent') === 'human' ? range : undefined,
      });
      localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
      if (grant.invite) localStorage.setItem(`tsubame.invite.${grant.game_id}`, grant.invite);
      location.hash = `#/game/${grant.game_id}`;
    } catch (e) {
      error.textContent = e.message;
    }
  } },
  el('h2', {}, 'New game'),
  el('label', {}, 'Game: ', variantSelect),
  optionBox,
  el('div', { class: 'row' },
    el('label', {}, el('input', { type: 'radio', name: 'opponent', value: 'engine', checked: true, onchange: () => showClockFields() }), ' Computer'),
    el('label', {}, el('input', { type: 'radio', name: 'opponent', value: 'human', onchange: () => showClockFields() }), ' A person (invite link)'),
    el('label', {}, el('input', { type: 'checkbox', name: 'public' }), ' list in the lobby')),
  el('div', { class: 'row' }, el('label', {}, rated, ' Rated'), el('label', {}, 'Opponent rating ', rangeMin, ' to ', rangeMax)),
  ratedHelp,
  el('div', { class: 'row' },
    el('label', {}, 'Level ', levelSelect),
    el('label', {}, 'Play as ', el('select', { name: 'side' },
      el('option', { value: 'sente' }, 'Sente (☗)'), el('option', { value: 'gote' }, 'Gote (☖)'),
      el('option', { value: 'random' }, 'Random')))),
  levelHelp,
  el('div', { class: 'row' }, el('label', {}, 'Clock ', clockKind), mainField, byoyomiFields, fischerFields, daysField),
  clockHelp,
  el('button', { type: 'submit', 'data-action': 'create' }, 'Start game'),
  error);
  optionFields(variantSelect.value, optionBox);
  showClockFields();

  const seeks = el('tbody');
  const games = el('tbody');
  const lists = el('div', { class: 'panel' },
    el('h2', {}, 'Open seeks'), el('table', { class: 'games' }, seeks),
    el('h2', {}, 'Games'), el('table', { class: 'games' }, games));
  const playing = el('div', { class: 'live-games' });
  const home = homeNode();
  app.replaceChildren(home, el('section', { class: 'live' }, el('h2', {}, 'Being played now'), playing),
    el('h2', {}, 'A game of your own'), el('div', { class: 'columns' }, form, lists));

  async function refresh() {
    try {
      const [lobby, list] = await Promise.all([api('/api/lobby'), api('/api/games?limit=30')]);
      seeks.replaceChildren(...(lobby.length ? lobby.map((g) => {
        const creator = g.sente_player === 'human' ? 'sente' : 'gote';
        const own = isOwnSeek(g);
        const seekError = el('span', { class: 'error' });
        return el('tr', { 'data-seek': g.id },
          el('td', {}, playerNode(g, creator)),
          el('td', {}, variantInfo(g.variant)?.title || g.variant),
          el('td', {}, clockText(g.time_control)),
          el('td', { 'data-seek-mode': g.rated ? 'rated' : 'casual' }, g.rated ? 'rated' : 'casual',
            g.rating_range ? ` ${g.rating_range[0]}–${g.rating_range[1]}` : ''),
          // Your own seek is opened or cancelled, never joined.
          el('td', {}, own
            ? [el('a', { href: `#/game/${g.id}`, 'data-own-seek': '' }, 'your seek'), ' ',
              el('button', { class: 'secondary small', 'data-cancel-seek': g.id, onclick: async () => {
                try {
                  await api(`/api/games/${g.id}/abort`, { token: tokenFor(g.id) || undefined });
                  refresh();
                } catch (e) { seekError.textContent = e.message; }
              } }, 'Cancel')]
            : el('button', { 'data-join': g.id, onclick: async () => {
              try {
                const grant = await api(`/api/games/${g.id}/join`, {});
                localStorage.setItem(`tsubame.token.${g.id}`, grant.token);
                location.hash = `#/game/${g.id}`;
              } catch (e) { seekError.textContent = e.message; }
            } }, 'Join'), seekError));
      }) : [el('tr', {}, el('td', {}, 'No open seeks.'))]));
      const live = list.filter((g) => g.status === 'playing').slice(0, 6);
      playing.replaceChildren(...(live.length ? live.map((g) => el('a', { class: 'live-game', href: `#/game/${g.id}`, 'data-live': g.id },
        miniBoard(g.variant, g.sfen, g.variant === 'tenjiku' ? 7 : 13),
        el('span', {}, `${variantInfo(g.variant)?.title || g.variant}: `, playersNode(g), `, move ${g.ply + 1}`)))
        : [el('p', { class: 'help' }, 'No game is being played right now: start one.')]));
      games.replaceChildren(...list.map((g) => el('tr', {},
        el('td', {}, el('a', { href: `#/game/${g.id}` }, g.id)), el('td', {}, variantInfo(g.variant)?.title || g.variant),
        el('td', {}, playersNode(g)),
        el('td', {}, g.result ? `${g.result.winner || 'no winner'} (${g.result.reason})` : g.status))));
    } catch (e) {
      seeks.replaceChildren(el('tr', {}, el('td', { class: 'error' }, e.message)));
    }
  }
  refresh();
  const timer = setInterval(refresh, 5000);
  cleanup = () => clearInterval(timer);
  rerender = () => {};
}

function clockText(control) {
  if (!control || control.kind === 'unlimited') return 'unlimited';
  if (control.kind === 'fischer') return `${formatMs(control.main_ms)} + ${control.increment_ms / 1000}s`;
  if (control.kind === 'correspondence') return `${control.days_per_move} day${control.days_per_move === 1 ? '' : 's'}/move`;
  return `${formatMs(control.main_ms)} + ${control.periods}×${control.period_ms / 1000}s`;
}

// ---------------------------------------------------------------------------------------------
// Play

// The notations a move list can be read in; the Japanese (KIF) and play-site forms exist for
// Tori only, other games show Hodges there.
const NOTATIONS = [['hodges', 'Hodges'], ['short', 'Play site'], ['japanese', '日本式'], ['usi', 'USI']];

function notation() {
  const chosen = localStorage.getItem('tsubame.notation');
  return NOTATIONS.some(([key]) => key === chosen) ? chosen : 'hodges';
}

function moveText(m) {
  return m[notation()] || m.hodges;
}

/** A move list with a choice of notation (remembered); `onNotation` redraws it. */
function moveListNode(moves, current, onPick, onNotation) {
  const list = el('div', { class: 'moves', 'data-moves': moves.length, 'data-notation': notation() });
  for (let i = 0; i < moves.length; i += 2) {
    list.append(el('span', {}, `${i / 2 + 1}.`));
    for (const m of [moves[i], moves[i + 1]]) {
      if (!m) { list.append(el('span')); continue; }
      list.append(el('span', { class: `mv${m.ply === current ? ' cur' : ''}`, 'data-ply': m.ply,
        onclick: () => onPick(m.ply) }, moveText(m)));
    }
  }
  if (!onNotation) return list;
  const choice = el('select', { name: 'notation', 'aria-label': 'notation', onchange: (e) => {
    localStorage.setItem('tsubame.notation', e.target.value);
    onNotation();
  } }, NOTATIONS.map(([key, label]) => el('option', { value: key, selected: key === notation() }, label)));
  return el('div', { class: 'move-list' }, el('label', { class: 'notation' }, 'Notation ', choice), list);
}

/** Scrolls a move list so that its current move (or its end) is visible. */
function keepInView(container) {
  const list = container.querySelector('.moves');
  if (!list) return;
  const current = list.querySelector('.mv.cur');
  list.scrollTop = current ? current.offsetTop - list.offsetTop - list.clientHeight / 2 : list.scrollHeight;
}

/** Export: every form the game has, each with Copy and Download. */
function exportNode(record, name = 'game') {
  const forms = [
    ['usi', 'SFEN + USI moves', record.usi_record, 'usi.txt'],
    ['hodges', 'Hodges', record.hodges_text, 'hodges.txt'],
    ['kif', 'KIF', record.exports?.kif, 'kif'],
    ['pgn', 'Play-site PGN', record.exports?.pgn, 'pgn'],
    ['record', 'Tsubame record', record.exports?.record, 'tsr'],
    ['fen', 'Play-site FEN (final position)', record.fen, 'fen.txt'],
  ].filter(([, , text]) => text);
  const status = el('small', { class: 'help', 'aria-live': 'polite' });
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
function showTurnIcon(myTurn) {
  const icon = document.querySelector('link[rel="icon"]');
  const href = myTurn ? '/favicon-turn.svg' : '/favicon.svg';
  if (icon && icon.getAttribute('href') !== href) icon.setAttribute('href', href);
}

/** A correspondence clock: days and hours, hours and minutes, then the usual clock. */
function formatDays(ms) {
  const hours = Math.floor(ms / 3_600_000);
  if (hours >= 24) return `${Math.floor(hours / 24)}d ${hours % 24}h`;
  if (hours >= 1) return `${hours}h ${Math.floor((ms % 3_600_000) / 60_000)}m`;
  return formatClock(ms);
}

/** A game's chat: the room this page sees, lines shown as text, a box to write, and for a
 * player, a switch that mutes the opponent (remembered for the game). */
function chatPanel(id, say) {
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

async function gamePage(id) {
  const token = tokenFor(id);
  const board = new Board({ onMove: (usi) => send({ type: 'move', move: usi }) });
  const status = el('div', { class: 'status', 'data-status': '' });
  const error = el('div', { class: 'error', 'data-error': '' });
  const connection = el('div', { class: 'connection', 'data-connection': '' });
  const clocks = el('div', { class: 'clocks' });
  const firstMove = el('div', { class: 'first-move', 'data-first-move': '' });
  const result = el('div');
  const actions = el('div', { class: 'actions' });
  const moveBox = el('div', { class: 'panel' });
  const extra = el('div');
  const info = el('div', { class: 'invite' });
  const chat = chatPanel(id, (text) => send({ type: 'chat', text, id: 'chat' }));
  app.replaceChildren(el('div', { class: 'play' }, board.root,
    el('div', { class: 'side-area' }, el('div', { class: 'panel' }, status, connection, clocks, firstMove, result, actions, error, info),
      moveBox, chat.root, extra)));

  let game = null;
  let seat = null;
  let received = 0;
  let viewPly = null;
  let record = null;
  let socket = null;
  let closed = false;
  let timer = null;

  let lost = false;
  let restoredTimer = null;
  let confirmingResign = false;

  function send(message) {
    error.textContent = '';
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    else showLost();
  }

  function showLost() {
    lost = true;
    clearTimeout(restoredTimer);
    connection.className = 'connection lost';
    connection.textContent = 'Connection lost; reconnecting…';
  }

  function showRestored() {
    if (!lost) return;
    lost = false;
    connection.className = 'connection restored';
    connection.textContent = 'Connection restored.';
    restoredTimer = setTimeout(() => { connection.className = 'connection'; connection.textContent = ''; }, 3000);
  }

  /** Says that the game does not exist, in place of the board, and stops reconnecting. */
  function showMissing() {
    closed = true;
    clearInterval(timer);
    document.title = 'No such game · Tsubame';
    app.replaceChildren(el('div', { class: 'panel', 'data-missing-game': '' },
      el('h2', {}, 'No such game'),
      el('p', {}, `There is no game with the id ${id}: the link may be mistyped, or the game was never started.`),
      el('p', {}, el('a', { href: '#/' }, 'Back to the lobby'))));
  }

  function connect() {
    if (closed) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/api/games/${id}/ws`);
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'hello') { seat = message.seat; show(); }
      else if (message.type === 'chat_history') chat.history(message.room, message.lines, game, seat);
      else if (message.type === 'chat') chat.add(message.line);
      else if (message.type === 'error') {
        error.textContent = message.error;
        // The board showed the refused move already: put the position back.
        show();
      }
      else if (message.game) {
        // A move changes how many games wait for this player.
        if (myName() && (message.type === 'move' || message.type === 'end')) refreshAccount();
        if (message.type === 'end') sound('end');
        else if (message.type === 'move' && message.game.last) {
          sound(message.game.check_square ? 'check' : message.game.last.removed?.length ? 'capture' : 'move');
        }
        // Both players agreed to a rematch while this page was open: go to it, with this
        // seat's token, which holds the swapped seat there.
        if (message.game.rematch_id && game && !game.rematch_id && seat) {
          if (token) localStorage.setItem(`tsubame.token.${message.game.rematch_id}`, token);
          location.hash = `#/game/${message.game.rematch_id}`;
          return;
        }
        const moves = message.game.moves || [...(game?.moves || []), ...(message.game.last ? [message.game.last] : [])];
        game = { ...message.game, moves: moves.filter((m, i, all) => all.findIndex((x) => x.ply === m.ply) === i) };
        received = performance.now();
        if (game.status === 'finished' && !record) loadRecord();
        show();
      }
    };
    // The seat's token goes in a message, never in the URL, where proxies log it.
    socket.onopen = () => {
      if (token) socket.send(JSON.stringify({ type: 'auth', token, id: 'auth' }));
      showRestored();
    };
    socket.onclose = async () => {
      if (closed) return;
      // A socket refused because the game does not exist is not a lost connection.
      const response = await fetch(`/api/games/${id}`).catch(() => null);
      if (closed) return;
      if (response?.status === 404) { showMissing(); return; }
      showLost();
      setTimeout(connect, 1000);
    };
  }

  async function loadRecord() {
    try {
      record = await api(`/api/games/${id}/record`);
      // A finished game can be analysed; one in play is not (the engine would help a player).
      extra.replaceChildren(game?.status === 'finished'
        ? el('div', { class: 'panel' }, el('h2', {}, 'Analysis'), gameAnalysisNode(record, (p) => { viewPly = p; show(); }))
        : '', exportNode(record, id));
      show();
    } catch (e) {
      error.textContent = e.message;
    }
  }

  function clockNode(side) {
    const view = game[`${side}_clock`];
    const running = game.clock_running === side;
    const control = game.time_control;
    const { remaining, period, periodsLeft } =
      clockAt(view, control, running ? performance.now() - received : 0);
    let main = control.kind === 'unlimited' ? '∞'
      : control.kind === 'correspondence' ? formatDays(remaining) : formatClock(remaining);
    let sub = '';
    // What this player has before the flag falls on this move.
    let shown = remaining;
    if (control.kind === 'byoyomi') {
      if (remaining <= 0 && periodsLeft > 0) {
        main = period < TENTHS_BELOW_MS ? formatClock(period).slice(3) + 's' : `${Math.ceil(period / 1000)}s`;
        shown = period;
      }
      sub = `byo-yomi ${periodsLeft}×${control.period_ms / 1000}s`;
    } else if (control.kind === 'fischer') sub = `+${control.increment_ms / 1000}s`;
    else if (control.kind === 'correspondence') sub = `${clockText(control)}`;
    const low = control.kind !== 'unlimited' && shown < TENTHS_BELOW_MS;
    return el('div', { class: `clock${running ? ' running' : ''}${low ? ' low' : ''}`, 'data-clock': side },
      el('div', { class: 'p' }, `${side === 'sente' ? '☗' : '☖'} `, playerNode(game, side), seat === side ? ' — you' : ''),
      el('div', { class: 't' }, main), el('div', { class: 'p' }, sub));
  }

  // Between people, before each side's first move: no clock runs, but the game is aborted when
  // the side to move lets its first-move time pass.
  function showFirstMove() {
    if (!game || game.first_move_ms_left == null || game.status !== 'playing') {
      firstMove.textContent = '';
      return;
    }
    const left = Math.max(0, game.first_move_ms_left - (performance.now() - received));
    const who = seat === game.side_to_move ? 'You have' : `${game.side_to_move[0].toUpperCase()}${game.side_to_move.slice(1)} has`;
    firstMove.textContent = `${who} ${Math.ceil(left / 1000)} s to make a first move, or the game is aborted. The clocks start after both first moves.`;
  }

  let lowTimeWarned = false;

  function tick() {
    if (!game) return;
    // Once a game, when the player's own running clock goes under ten seconds.
    if (!lowTimeWarned && seat && game.clock_running === seat && game.time_control.kind !== 'unlimited') {
      const { remaining, period, periodsLeft } = clockAt(game[`${seat}_clock`], game.time_control, performance.now() - received);
      const left = remaining > 0 || periodsLeft === 0 ? remaining : period;
      if (left < TENTHS_BELOW_MS) {
        lowTimeWarned = true;
        sound('low-time');
      }
    }
    if (game.clock_running) clocks.replaceChildren(clockNode(board.flipped ? 'sente' : 'gote'), clockNode(board.flipped ? 'gote' : 'sente'));
    showFirstMove();
  }

  // Replay: 0 the start, 1 back a ply, 2 forward a ply, 3 the position now.
  function step(where) {
    if (!game) return;
    const ply = viewPly === null ? game.ply : viewPly;
    const target = [0, ply - 1, ply + 1, game.ply][where];
    viewPly = Math.max(0, Math.min(game.ply, target));
    if (!record && viewPly !== game.ply) loadRecord();
    show();
  }

  // Keys as on the play sites: arrows through the moves, Home/End, `f` to flip.
  function onKey(event) {
    if (event.target.closest?.('input, textarea, select') || event.ctrlKey || event.metaKey || event.altKey) return;
    const where = { Home: 0, ArrowLeft: 1, ArrowRight: 2, End: 3 }[event.key];
    if (where !== undefined) {
      event.preventDefault();
      step(where);
    } else if (event.key === 'f') {
      board.flipped = !board.flipped;
      board.render();
      show();
    }
  }
  document.addEventListener('keydown', onKey);

  function show() {
    if (!game) return;
    const live = viewPly === null || viewPly === game.ply;
    const replaying = !live && record;
    const myTurn = game.status === 'playing' && seat === game.side_to_move;
    if (seat === 'gote' && board.flippedFor !== id) { board.flipped = true; board.flippedFor = id; }
    const ply = live ? game.ply : viewPly;
    board.setState({
      variant: game.variant,
      sfen: replaying ? record.positions[ply] : game.sfen,
      legal: live && myTurn ? game.legal_moves : [],
      lastMove: ply > 0 ? game.moves[ply - 1]?.usi : null,
      check: live ? game.check_square : null,
      interactive: live && myTurn,
      premoveFor: live && seat && game.status === 'playing' && !myTurn ? seat : null,
    });
    const title = `${variantInfo(game.variant)?.title || game.variant}${game.rated ? ' · rated' : ''}`;
    chat.setGame(game, seat);
    status.textContent = game.status === 'waiting' ? `${title}: waiting for the second player`
      : game.status === 'finished' ? `${title}: game over`
        : `${title}: ${game.side_to_move} to move${myTurn ? ' — your move' : ''}${game.check_square ? ' (check)' : ''}`;
    clocks.replaceChildren(clockNode(board.flipped ? 'sente' : 'gote'), clockNode(board.flipped ? 'gote' : 'sente'));
    showFirstMove();
    result.replaceChildren();
    if (game.result) {
      const who = game.result.winner ? `${game.result.winner} wins` : 'No winner';
      result.append(el('div', { class: 'result', 'data-result': game.result.reason }, `${who} — ${game.result.reason}`));
    }
    const betweenPeople = game.sente_player === 'human' && game.gote_player === 'human';
    if (game.status === 'finished' && betweenPeople) {
      if (game.rematch_id) {
        result.append(el('div', { 'data-rematch-link': game.rematch_id }, 'Rematch: ', el('a', { href: `#/game/${game.rematch_id}` }, 'open the game')));
      } else if (game.rematch_offer && game.rematch_offer !== seat) {
        result.append(el('div', { 'data-rematch-offer': game.rematch_offer }, `${game[`${game.rematch_offer}_name`] || game.rematch_offer} wants a rematch `,
          seat ? el('button', { 'data-action': 'rematch-accept', onclick: () => send({ type: 'rematch', action: 'accept' }) }, 'Accept') : null,
          seat ? el('button', { class: 'secondary', 'data-action': 'rematch-decline', onclick: () => send({ type: 'rematch', action: 'decline' }) }, 'Decline') : null));
      } else if (seat) {
        result.append(game.rematch_offer === seat
          ? el('div', { 'data-rematch-offered': '' }, 'Rematch offered: waiting for the answer…')
          : el('button', { 'data-action': 'rematch', onclick: () => send({ type: 'rematch', action: 'offer' }) }, 'Rematch'));
      }
    }
    if (game.draw_offer && game.draw_offer !== seat) {
      result.append(el('div', {}, `${game.draw_offer} offers a draw `,
        seat ? el('button', { onclick: () => send({ type: 'draw', action: 'accept' }) }, 'Accept') : null,
        seat ? el('button', { class: 'secondary', onclick: () => send({ type: 'draw', action: 'decline' }) }, 'Decline') : null));
    }
    actions.replaceChildren();
    if (seat && game.status !== 'finished') {
      if (game.ply < 2) actions.append(el('button', { class: 'secondary', 'data-action': 'abort', onclick: () => send({ type: 'abort' }) }, 'Abort'));
      if (game.status === 'playing') {
        actions.append(el('button', { class: 'secondary', 'data-action': 'draw', onclick: () => send({ type: 'draw', action: 'offer' }) }, 'Offer draw'));
        actions.append(confirmingResign
          ? el('span', { class: 'confirm', 'data-confirm': 'resign' }, 'Resign this game? ',
            el('button', { 'data-action': 'resign-yes', onclick: () => { confirmingResign = false; send({ type: 'resign' }); } }, 'Yes, resign'),
            el('button', { class: 'secondary', 'data-action': 'resign-no', onclick: () => { confirmingResign = false; show(); } }, 'No'))
          : el('button', { 'data-action': 'resign', onclick: () => { confirmingResign = true; show(); } }, 'Resign'));
      }
    }
    const invite = localStorage.getItem(`tsubame.invite.${id}`);
    info.replaceChildren();
    if (game.status === 'waiting' && invite) {
      info.append('Invite link: ', el('code', {}, `${location.origin}/#/join/${id}/${invite}`));
    }
    const replayControls = el('div', { class: 'actions' },
      ['|◀', '◀', '▶', '▶|'].map((label, i) => el('button', { class: 'secondary', 'data-replay': i, onclick: () => step(i) }, label)));
    document.title = `${myTurn ? '● Your move · ' : ''}${title} · Tsubame`;
    showTurnIcon(myTurn);
    moveBox.replaceChildren(el('h2', {}, 'Moves'),
      moveListNode(game.moves, ply, (p) => { viewPly = p; if (!record) loadRecord(); show(); }, () => show()),
      replayControls);
    keepInView(moveBox);
  }

  connect();
  timer = setInterval(tick, 200);
  cleanup = () => {
    closed = true; clearInterval(timer); socket?.close(); board.destroy();
    document.removeEventListener('keydown', onKey);
    document.title = 'Tsubame — Tori, Wa and Tenjiku shogi';
    showTurnIcon(false);
  };
  rerender = show;
}

async function joinPage(id, invite) {
  try {
    const grant = await api(`/api/games/${id}/join`, { invite });
    localStorage.setItem(`tsubame.token.${id}`, grant.token);
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, e.message));
    return;
  }
  location.hash = `#/game/${id}`;
}

// ---------------------------------------------------------------------------------------------
// Import, replay and analysis

function positionForm({ title, withMoves, submit }) {
  const variantSelect = el('select', { name: 'variant' },
    variants.filter((v) => v.available).map((v) => el('option', { value: v.name }, v.title)));
  const options = el('input', { name: 'options', placeholder: 'rule options, e.g. drops=off', size: 24 });
  const sfen = el('input', { name: 'sfen', placeholder: 'SFEN (empty: start position)', size: 40 });
  const moves = el('textarea', { name: 'moves', rows: 4, placeholder: 'USI moves, or a whole "sfen … moves …" record' });
  const error = el('div', { class: 'error' });
  const form = el('form', { class: 'panel create', onsubmit: async (event) => {
    event.preventDefault();
    error.textContent = '';
    let text = moves.value.trim();
    let start = sfen.value.trim() || undefined;
    const match = text.match(/^(?:position\s+)?sfen\s+(.+?)(?:\s+moves\s+(.*))?$/s);
    if (match) { start = match[1].trim(); text = match[2] || ''; }
    try {
      await submit({ variant: variantSelect.value, options: options.value.trim(), sfen: start,
        moves: text.split(/\s+/).filter(Boolean) });
    } catch (e) {
      error.textContent = e.message;
    }
  } }, el('h2', {}, title), el('label', {}, 'Game ', variantSelect), el('label', {}, 'Options ', options),
  el('label', {}, 'Position ', sfen), withMoves ? moves : null,
  el('button', { type: 'submit', 'data-action': 'load' }, withMoves ? 'Load' : 'Set up'), error);
  return form;
}

function importPage() {
  const board = new Board({ onMove: () => {} });
  const moveBox = el('div', { class: 'panel' });
  const exportBox = el('div');
  const analysisBox = el('div', { class: 'panel' });
  let analysedRecord = null;
  let record = null;
  let ply = 0;
  function show() {
    board.setState({ variant: record.variant, sfen: record.positions[ply], interactive: false,
      lastMove: ply > 0 ? record.usi[ply - 1] : null });
    const moves = record.hodges.map((h, i) => ({ ply: i + 1, hodges: h, usi: record.usi[i],
      japanese: record.japanese?.[i], short: record.short?.[i] }));
    moveBox.replaceChildren(el('h2', {}, 'Record'), moveListNode(moves, ply, (p) => { ply = p; show(); }, () => show()),
      el('div', { class: 'actions' }, ['|◀', '◀', '▶', '▶|'].map((label, i) => el('button', { class: 'secondary', 'data-replay': i,
        onclick: () => { ply = Math.max(0, Math.min(record.usi.length, [0, ply - 1, ply + 1, record.usi.length][i])); show(); } }, label))),
      // replaceChildren writes a null as the text "null": leave the result out instead.
      ...(record.outcome ? [el('div', { class: 'result' }, `${record.outcome.winner || 'no winner'} — ${record.outcome.reason}`)] : []));
    moveBox.hidden = false;
    keepInView(moveBox);
    exportBox.replaceChildren(exportNode(record));
    analysisBox.hidden = false;
    if (analysedRecord !== record) {
      analysedRecord = record;
      analysisBox.replaceChildren(el('h2', {}, 'Analysis'), gameAnalysisNode(record, (p) => { ply = p; show(); }));
    }
  }
  const form = positionForm({ title: 'Or set up SFEN and USI moves', withMoves: true, submit: async (request) => {
    record = await api('/api/replay', request);
    ply = record.usi.length;
    show();
  } });
  // A record file or pasted text in any format the server reads; a file of several games
  // offers them in a list.
  const pasted = el('textarea', { name: 'record', rows: 6,
    placeholder: 'Paste a record: KIF, the play site\'s PGN (one game or many), a Tsubame record, or Hodges moves' });
  const file = el('input', { type: 'file', name: 'record-file', accept: '.kif,.kifu,.pgn,.tsr,.txt,.record,text/plain' });
  const format = el('select', { name: 'format' }, [['auto', 'recognise the format'], ['kif', 'KIF'], ['pgn', 'PGN (play site)'],
    ['record', 'Tsubame record'], ['hodges', 'Hodges moves']].map(([v, label]) => el('option', { value: v }, label)));
  const hodgesGame = el('select', { name: 'hodges-variant' },
    variants.filter((v) => v.available).map((v) => el('option', { value: v.name }, v.title)));
  const picker = el('select', { name: 'game-pick', hidden: true });
  const importError = el('div', { class: 'error' });
  let imported = [];
  const showImported = (index) => {
    record = imported[index];
    ply = record.usi.length;
    show();
  };
  picker.addEventListener('change', () => showImported(Number(picker.value)));
  const readRecord = async (body) => {
    importError.textContent = '';
    const query = new URLSearchParams({ format: format.value, variant: hodgesGame.value });
    try {
      const response = await fetch(`/api/import?${query}`, { method: 'POST', body });
      const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
      imported = data.games;
      const label = (g, i) => {
        // PGN writes `?` for what it does not know.
        const known = (v) => (v && !/^[?.]+$/.test(v) ? v : null);
        const t = Object.fromEntries(Object.entries(g.tags || {}).map(([k, v]) => [k, known(v)]));
        const players = t.sente || t.gote ? `${t.sente || '?'} – ${t.gote || '?'}` : `game ${i + 1}`;
        return `${i + 1}. ${players}${t.date ? `, ${t.date}` : ''} (${t.result || '*'}, ${g.usi.length} plies)`;
      };
      picker.replaceChildren(...imported.map((g, i) => el('option', { value: i }, label(g, i))));
      picker.hidden = imported.length < 2;
      if (imported.length) showImported(0);
    } catch (e) {
      importError.textContent = e.message;
    }
  };
  file.addEventListener('change', async () => {
    // Sent as bytes: a KIF file may be Shift-JIS, which the server reads.
    if (file.files?.[0]) await readRecord(await file.files[0].arrayBuffer());
  });
  const importForm = el('form', { class: 'panel create', onsubmit: (event) => { event.preventDefault(); readRecord(pasted.value); } },
    el('h2', {}, 'Import a record'), pasted,
    el('label', {}, 'File ', file), el('label', {}, 'Format ', format), el('label', {}, 'Game (Hodges moves) ', hodgesGame),
    el('button', { type: 'submit', 'data-action': 'import' }, 'Import'), picker, importError);
  app.replaceChildren(el('div', { class: 'play' }, board.root, el('div', { class: 'side-area' }, importForm, moveBox, analysisBox, exportBox, form)));
  // Before a record is loaded: the chosen game's start position, and no empty record panel.
  moveBox.hidden = true;
  analysisBox.hidden = true;
  const variantSelect = form.querySelector('select[name="variant"]');
  const showStart = () => {
    const info = variantInfo(variantSelect.value);
    if (!record && info) board.setState({ variant: info.name, sfen: info.start_sfen, interactive: false });
  };
  variantSelect.addEventListener('change', showStart);
  showStart();
  cleanup = () => board.destroy();
  rerender = () => { if (record) show(); else showStart(); };
}

/** The depths a continuous analysis goes through, each a search of its own. */
const ANALYSIS_DEPTHS = [4, 6, 8, 10, 12, 14, 16, 18, 20];

/** An evaluation bar: sente's share from the bottom, white for sente as on the play sites. */
function evalBarNode() {
  const fill = el('div', { class: 'eval-fill' });
  const label = el('div', { class: 'eval-label', 'data-eval': '' });
  const root = el('div', { class: 'eval-bar', 'data-eval-bar': '', title: 'Evaluation, sente below' }, fill, label);
  return {
    root,
    set(score, senteToMove) {
      if (score === null) {
        root.classList.add('idle');
        label.textContent = '';
        fill.style.height = '50%';
        return;
      }
      root.classList.remove('idle');
      const cp = senteCentipawns(score, senteToMove);
      const [kind, value] = score.split(' ');
      const mate = kind === 'mate';
      // The share grows quickly near equality and flattens out, as a winning chance does.
      const share = mate ? (cp > 0 ? 100 : 0) : 50 + 50 * (2 / (1 + Math.exp(-0.0035 * cp)) - 1);
      fill.style.height = `${share}%`;
      const moves = Math.ceil(Math.abs(Number(value)) / 2);
      label.textContent = mate ? `${cp > 0 ? '+' : '-'}M${moves}` : `${cp > 0 ? '+' : ''}${(cp / 100).toFixed(1)}`;
      root.dataset.sente = String(cp);
    },
  };
}

/** A score as sente sees it, in pawns or moves to mate. */
function scoreText(score, senteToMove) {
  const [kind, value] = score.split(' ');
  const own = Number(value);
  const sente = senteToMove ? own : -own;
  if (kind === 'mate') return `${sente > 0 ? '+' : '-'}M${Math.ceil(Math.abs(sente) / 2)}`;
  return `${sente > 0 ? '+' : ''}${(sente / 100).toFixed(2)}`;
}

/** The analysis board: moves played on it grow a tree of lines (a move that differs from the
 * one played before starts a variation), and the engine, when on, analyses each position as it
 * is reached, deeper and deeper, showing its best lines and the evaluation bar. */
function analysisPage() {
  let request = null;
  let record = null;
  const tree = { usi: null, text: '', children: [], parent: null };
  let current = tree;
  let generation = 0;
  const board = new Board({ onMove: (usi) => go(usi) });
  const bar = evalBarNode();
  const engineOn = el('input', { type: 'checkbox', 'data-engine-toggle': '' });
  const lineCount = el('select', { 'data-lines': '', 'aria-label': 'best lines' },
    [1, 2, 3, 5].map((n) => el('option', { value: n, selected: n === 3 }, `${n} line${n > 1 ? 's' : ''}`)));
  const engineStatus = el('small', { class: 'help', 'data-engine-status': '' });
  const linesBox = el('div', { class: 'engine-lines', 'data-engine-lines': '' });
  const output = el('div', { class: 'panel', 'data-analysis': '' },
    el('div', { class: 'engine-head' }, el('h2', {}, 'Engine'),
      el('label', { class: 'switch' }, engineOn, ' analyse'), lineCount),
    engineStatus, linesBox);
  const treeBox = el('div', { class: 'move-tree', 'data-move-tree': '' });
  const nav = el('div', { class: 'actions' },
    el('button', { class: 'secondary', 'data-tree': 'start', onclick: () => jump(tree) }, '|◀'),
    el('button', { class: 'secondary', 'data-tree': 'back', onclick: () => current.parent && jump(current.parent) }, '◀'),
    el('button', { class: 'secondary', 'data-tree': 'forward', onclick: () => current.children[0] && jump(current.children[0]) }, '▶'),
    el('button', { class: 'secondary', 'data-tree': 'delete', title: 'Delete this move and what follows it',
      onclick: () => deleteCurrent() }, 'Delete'));
  const treePanel = el('div', { class: 'panel' }, el('h2', {}, 'Moves'), treeBox, nav);

  function pathOf(node) {
    const moves = [];
    for (let n = node; n.parent; n = n.parent) moves.unshift(n.usi);
    return moves;
  }

  async function go(usi) {
    let child = current.children.find((c) => c.usi === usi);
    if (!child) {
      child = { usi, text: usi, children: [], parent: current };
      current.children.push(child);
    }
    await jump(child);
  }

  async function jump(node) {
    current = node;
    await load();
  }

  async function deleteCurrent() {
    if (!current.parent) return;
    const parent = current.parent;
    parent.children = parent.children.filter((c) => c !== current);
    await jump(parent);
  }

  function drawTree() {
    // The main line of each node is its first child; the others are variations, in brackets.
    // Sente's moves carry their number, and so does a variation's first move of gote.
    const moveNode = (node, ply, first) => el('span', {
      class: `tree-move${node === current ? ' current' : ''}`, 'data-tree-move': pathOf(node).join(' '),
      onclick: () => jump(node) },
    `${ply % 2 === 1 ? `${(ply + 1) / 2}. ` : first ? `${ply / 2}… ` : ''}${node.text}`);
    // A node and its main continuation; after each main move, its sibling variations.
    function line(first, ply) {
      const parts = [];
      for (let node = first, depth = ply; node; node = node.children[0], depth += 1) {
        parts.push(moveNode(node, depth, depth === ply), ' ');
        if (node.parent.children[0] === node) {
          for (const variation of node.parent.children.slice(1)) {
            parts.push(el('span', { class: 'variation', 'data-variation': '' }, '(', line(variation, depth), ')'), ' ');
          }
        }
      }
      return parts;
    }
    treeBox.replaceChildren(...(tree.children.length ? line(tree.children[0], 1)
      : [el('span', { class: 'help' }, 'Play moves on the board; a different move from an earlier position starts a variation.')]));
  }

  async function load() {
    request.moves = pathOf(current);
    record = await api('/api/replay', request);
    if (current.parent) current.text = record.hodges[record.hodges.length - 1] || current.usi;
    board.setState({ variant: record.variant, sfen: record.sfen, legal: record.legal_moves,
      lastMove: record.usi[record.usi.length - 1] || null, interactive: true });
    fitBar();
    drawTree();
    think();
  }

  // One search at a time from this page: the search of a position left behind is called off
  // (the server stops it when its request goes away) before the next one is asked for, so the
  // page never holds more than its share of the engine.
  let inFlight = Promise.resolve();
  let calledOff = null;
  function analyseOneAtATime(body) {
    calledOff?.abort();
    const controller = new AbortController();
    calledOff = controller;
    const run = inFlight.then(() => api('/api/analyse', body, controller.signal));
    inFlight = run.catch(() => {});
    return run;
  }

  /** Analyses the position now shown, deeper and deeper, until another position is shown. */
  async function think() {
    const mine = ++generation;
    calledOff?.abort();
    linesBox.replaceChildren();
    bar.set(null);
    if (!engineOn.checked || !record) {
      engineStatus.textContent = engineOn.checked ? '' : 'Turn the engine on to see its best lines.';
      return;
    }
    const senteToMove = record.sfen.split(' ')[1] === 'b';
    if (!record.legal_moves?.length) {
      engineStatus.textContent = 'No legal move: the game is over here.';
      return;
    }
    const asked = { variant: request.variant, options: request.options, sfen: request.sfen, moves: request.moves };
    for (const depth of ANALYSIS_DEPTHS) {
      engineStatus.textContent = `Thinking to depth ${depth}…`;
      let reply = null;
      for (let attempt = 0; !reply; attempt++) {
        try {
          reply = await analyseOneAtATime({ ...asked, depth, movetime_ms: 3000, lines: Number(lineCount.value) });
        } catch (e) {
          if (mine !== generation || e.name === 'AbortError') return;
          // The server's engine is busy (other players, or a search of a position left a
          // moment ago that is still finishing): try again shortly.
          if (e.status === 429 && attempt < 10) {
            await new Promise((done) => setTimeout(done, 1000));
            if (mine !== generation) return;
            continue;
          }
          engineStatus.textContent = e.message;
          return;
        }
      }
      if (mine !== generation) return;
      bar.set(reply.score, senteToMove);
      // Each line in the game's notation: the replay of the position and the line gives it.
      const texts = await Promise.all(reply.lines.map(async (l) => {
        try {
          const replay = await api('/api/replay', { ...asked, moves: [...asked.moves, ...l.pv] });
          return replay.hodges.slice(asked.moves.length);
        } catch {
          return l.pv;
        }
      }));
      if (mine !== generation) return;
      linesBox.replaceChildren(...reply.lines.map((l, i) => el('div', { class: 'engine-line', 'data-line': i + 1,
        title: 'Play this line\'s first move', onclick: () => go(l.move) },
      el('span', { class: 'line-score', 'data-line-score': '' }, scoreText(l.score, senteToMove)), ' ',
      el('span', { class: 'line-moves' }, texts[i].join(' ')))));
      engineStatus.textContent = `Depth ${reply.depth}`;
      engineStatus.dataset.depth = reply.depth;
      // The time cap ended this search before its depth: deeper would take longer still.
      if (reply.depth < depth) break;
    }
  }

  /** The bar stands beside the board itself, as tall as it. */
  function fitBar() {
    const wrap = board.root.querySelector('.board-wrap');
    if (!wrap) return;
    bar.root.style.marginTop = `${wrap.offsetTop - board.root.offsetTop}px`;
    bar.root.style.height = `${wrap.offsetHeight}px`;
  }

  engineOn.addEventListener('change', () => think());
  lineCount.addEventListener('change', () => think());
  function onKey(event) {
    if (event.target.closest?.('input, textarea, select')) return;
    if (event.key === 'ArrowLeft' && current.parent) { event.preventDefault(); jump(current.parent); }
    if (event.key === 'ArrowRight' && current.children[0]) { event.preventDefault(); jump(current.children[0]); }
  }
  document.addEventListener('keydown', onKey);

  const form = positionForm({ title: 'Analysis board', withMoves: true, submit: async (r) => {
    // A new start: the moves given become the main line.
    request = { ...r, moves: [] };
    tree.children = [];
    let node = tree;
    for (const usi of r.moves) {
      const child = { usi, text: usi, children: [], parent: node };
      node.children.push(child);
      node = child;
    }
    current = node;
    const replay = await api('/api/replay', { ...request, moves: r.moves });
    let walk = tree.children[0];
    for (const text of replay.hodges) { if (walk) { walk.text = text; walk = walk.children[0]; } }
    await load();
  } });
  app.replaceChildren(el('div', { class: 'play' }, el('div', { class: 'analysis-board' }, bar.root, board.root),
    el('div', { class: 'side-area' }, output, treePanel, form)));
  // Zoom and the size of the game change the board's height: the bar follows.
  const resize = new ResizeObserver(() => fitBar());
  resize.observe(board.root.querySelector('.board-wrap'));
  request = { variant: variants.find((v) => v.available).name, options: '', moves: [] };
  load();
  cleanup = () => {
    generation += 1;
    calledOff?.abort();
    resize.disconnect();
    board.destroy();
    document.removeEventListener('keydown', onKey);
  };
  rerender = () => { if (record) { board.render(); fitBar(); } };
}


// ---------------------------------------------------------------------------------------------
// Rules pages: everything about pieces is drawn from the server's rules data (the move
// vectors the move generator itself reads), so a diagram cannot disagree with play.

const RULES_INTRO = {
  tori: 'Tori shogi ("bird shogi"), invented by Toyota Genryū in 1799, is a small, sharp game of birds on a 7×7 board in which captured birds come back as drops, as in shogi.',
  wa: 'Wa shogi ("harmony shogi") is a large-board shogi in which every piece is named for an animal. It is played with drops, as most players do today, or without them.',
  tenjiku: 'Tenjiku shogi ("exotic shogi"), dating back to the 15th or 16th century, is played on a 16×16 board: fire demons burn their neighbours, lions move twice, and generals jump along whole lines of lesser pieces.',
};

// When a move promotes, per game (the rules library checks it; these are its words).
const PROMOTION_WORDS = {
  tori: 'and must, on any move that starts or ends in it (into, within or out of); a falcon dropped in the zone promotes on its next move',
  wa: 'if the player wishes, on any move that starts or ends in it; a piece that could never move again (a sparrow pawn or oxcart on the last rank) must',
  tenjiku: 'if the player wishes; which moves may promote is set by the promotion rule option below',
};

// What the powers of Tenjiku pieces mean, in words, next to their diagrams.
const POWER_WORDS = {
  lion: 'Lion power: two king steps in one move, capturing on either square or both; it may capture an adjacent piece without moving (igui), jump to any square two away, or pass.',
  'lion-hawk': 'Lion power as the lion\'s (under the "tsa" option: any move within two squares instead).',
  line: 'Lion power along the marked lines: one or two steps with a capture on either or both, igui on the first square, or a pass.',
  area: (n) => `Area move: up to ${n} king steps in one move through empty squares, ending on a capture or an empty square (or back where it started: a pass).`,
  burns: 'Burns: after it moves, every enemy piece on the eight squares around it is removed, except enemy fire demons; and an enemy piece whose move ends next to it is removed too (kings included). A fire demon that ends its move next to an enemy one is burned itself (see the rule options).',
  jump: (level) => `Range jump along the marked lines: it jumps over any number of pieces of lower rank (level ${level}) to capture beyond them.`,
  tetrarch: 'Heavenly tetrarch: igui on all eight neighbours; slides diagonally and vertically from the second square on (jumping the first); moves two or three squares sideways, jumping the first.',
  free_eagle: 'Its moves depend on the free-eagle rule option (see below).',
};

/** The squares a diagram marks, keyed `left,forward`, with what reaches them. */
function diagramMarks(role, radius) {
  const marks = new Map();
  const mark = (left, forward, kind) => {
    if (Math.max(Math.abs(left), Math.abs(forward)) > radius || (left === 0 && forward === 0)) return;
    const key = `${left},${forward}`;
    marks.set(key, [...(marks.get(key) || []), kind]);
  };
  for (const move of role.moves) {
    if (!move.slide) { mark(move.left, move.forward, 'step'); continue; }
    const limit = move.limit || radius * 2;
    for (let n = 1; n <= limit; n++) mark(move.left * n, move.forward * n, n === limit && move.limit ? 'step' : 'slide');
  }
  const powers = role.powers;
  if (powers) {
    const around = (reach, kind) => {
      for (let l = -reach; l <= reach; l++) for (let f = -reach; f <= reach; f++) mark(l, f, kind);
    };
    if (powers.lion === 'full' || powers.lion === 'lion-hawk') around(2, 'lion');
    for (const [l, f] of powers.lion?.line || []) { mark(l, f, 'lion'); mark(2 * l, 2 * f, 'lion'); }
    if (powers.area) around(powers.area, 'area');
    for (const [l, f] of powers.range_jump?.directions || []) for (let n = 1; n <= radius; n++) mark(l * n, f * n, 'jump');
    if (powers.burns) around(1, 'burn');
  }
  return marks;
}

/** A movement diagram: the piece in the middle, every square it reaches marked. */
function moveDiagram(variant, role, radius) {
  const marks = diagramMarks(role, radius);
  const grid = el('div', { class: 'diagram', style: `--cells:${2 * radius + 1}`, role: 'img',
    'aria-label': `how the ${role.name} moves` });
  for (let forward = radius; forward >= -radius; forward--) {
    for (let left = radius; left >= -radius; left--) {
      const kinds = marks.get(`${left},${forward}`) || [];
      grid.append(el('span', { class: ['cell', ...new Set(kinds)].join(' '),
        'data-left': left, 'data-forward': forward, 'data-marks': kinds.join(' ') || null }));
    }
  }
  const centre = grid.children[radius * (2 * radius + 1) + radius];
  centre.classList.add('centre');
  centre.append(pieceFace(variant, role));
  return grid;
}

/** A piece drawn as on the board, outside any board. */
function pieceFace(variant, role) {
  const index = variant.roles.indexOf(role);
  return el('span', { class: `pieces-${variant.name} rule-piece` },
    el('piece', { class: `${roleClass(role, index)} sente` }));
}

/** The notes under a Tenjiku piece's diagram. */
function powerNotes(role) {
  const p = role.powers;
  if (!p) return [];
  const notes = [];
  if (p.lion === 'full') notes.push(POWER_WORDS.lion);
  if (p.lion === 'lion-hawk') notes.push(POWER_WORDS['lion-hawk']);
  if (p.lion?.line) notes.push(POWER_WORDS.line);
  if (p.area) notes.push(POWER_WORDS.area(p.area));
  if (p.range_jump) notes.push(POWER_WORDS.jump(p.range_jump.level));
  if (p.burns) notes.push(POWER_WORDS.burns);
  if (p.tetrarch) notes.push(POWER_WORDS.tetrarch);
  if (p.free_eagle) notes.push(POWER_WORDS.free_eagle);
  return notes;
}

function title(name) {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function rulesPage(name) {
  const variant = variantInfo(name) || variants[0];
  const radius = variant.name === 'tenjiku' ? 4 : 3;
  const setup = new Board({ onMove: () => {} });
  setup.zoom = { tori: 34, wa: 26, tenjiku: 20 }[variant.name] || 24;
  const counts = parseSfen(variant.start_sfen).squares.flat().filter((c) => c && c.color === 'sente').length;
  const promoting = variant.roles.filter((r) => r.promotes_to);
  const facts = [
    `A ${variant.files}×${variant.ranks} board; each side starts with ${counts} pieces. Sente (☗, below) moves first.`,
    `The aim is to checkmate or capture the enemy ${variant.roles.filter((r) => r.royal).map((r) => r.name).join(' (and ')}${variant.roles.filter((r) => r.royal).length > 1 ? ', if there is one)' : ''}.`,
    variant.drops
      ? 'A captured piece changes sides and goes to the captor\'s hand; instead of moving, a player may drop a piece from hand onto any empty square (with the limits below).'
      : 'Captured pieces leave the game.',
    `Promotion zone: the ${variant.promotion_zone} ranks on the far side. ${promoting.length} kinds promote, ${PROMOTION_WORDS[variant.name] || 'on a move that starts or ends in it'}.${variant.drops ? ' A captured promoted piece goes to hand unpromoted; drops never promote.' : ''}`,
    ...variant.roles.filter((r) => r.drop && (r.drop.max_per_file || r.drop.barred_far_ranks || r.drop.mate_restricted)).map((r) => {
      const limits = [];
      if (r.drop.max_per_file) limits.push(`not onto a file already holding ${r.drop.max_per_file} of the dropper's ${r.name}s`);
      if (r.drop.barred_far_ranks) limits.push(`not onto the last ${r.drop.barred_far_ranks === 1 ? 'rank' : `${r.drop.barred_far_ranks} ranks`}`);
      if (r.drop.mate_restricted) limits.push('a drop that mates at once falls under the drop-mate rule option');
      return `${title(r.name)} drops: ${limits.join('; ')}.`;
    }),
  ].filter(Boolean);
  const cards = variant.roles.filter((r) => !r.promoted_from).map((role) => {
    const promoted = role.promotes_to ? variant.roles.find((r) => r.sfen === role.promotes_to) : null;
    const side = (r) => el('div', { class: 'piece-rule', 'data-piece': r.sfen },
      el('h3', {}, title(r.name), ' ', el('small', {}, `${r.kanji} · ${r.hodges}`)),
      moveDiagram(variant, r, radius),
      powerNotes(r).map((note) => el('p', { class: 'note' }, note)));
    return el('section', { class: 'panel piece-card' }, side(role),
      promoted ? el('div', { class: 'promotes' }, el('p', { class: 'note' }, `Promotes to the ${promoted.name}:`), side(promoted)) : null);
  });
  const options = variant.options.map((option) => {
    const words = OPTION_WORDS[option.name] || {};
    return el('li', {}, el('strong', {}, `${words.title || option.name}: `),
      words.values ? option.values.map((v) => `${v === option.values[0] ? '' : '; '}${words.values[v] || v}`).join('')
        : (words.number || option.help));
  });
  app.replaceChildren(el('div', { class: 'rules' },
    el('nav', { class: 'rule-tabs' }, variants.map((v) => el('a', { href: `#/rules/${v.name}`,
      class: v.name === variant.name ? 'current' : '' }, v.title))),
    el('h1', {}, `${variant.title}: the rules`),
    el('p', {}, RULES_INTRO[variant.name] || ''),
    el('div', { class: 'rules-top' }, setup.root, el('section', { class: 'panel' }, el('h2', {}, 'How it is played'),
      el('ul', {}, facts.map((f) => el('li', {}, f))))),
    el('h2', {}, 'The pieces'),
    el('p', { class: 'legend' }, 'Seen from sente (moving up). ',
      el('span', { class: 'cell step' }), ' one move to that square  ',
      el('span', { class: 'cell slide' }), ' any distance along the line, over empty squares  ',
      variant.name === 'tenjiku' ? [el('span', { class: 'cell lion' }), ' lion move  ', el('span', { class: 'cell area' }), ' area move  ',
        el('span', { class: 'cell jump' }), ' range jump  ', el('span', { class: 'cell burn' }), ' burned'] : null),
    el('div', { class: 'piece-cards' }, cards),
    options.length ? [el('h2', {}, 'Rule options'), el('ul', {}, options)] : null));
  setup.setState({ variant: variant.name, sfen: variant.start_sfen, interactive: false });
  cleanup = () => setup.destroy();
  rerender = () => setup.render();
}

// ---------------------------------------------------------------------------------------------

async function route() {
  cleanup();
  cleanup = () => {};
  // Each page shows who is logged in and how many games wait for them as of now.
  refreshAccount();
  // A player's page has an address of its own, `/@/name`, to share.
  const playerPath = location.pathname.match(/^\/@\/([A-Za-z0-9_-]+)\/?$/);
  if (playerPath && !location.hash) return playerPage(playerPath[1]);
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'game' && parts[1]) return gamePage(parts[1]);
  if (parts[0] === 'join' && parts[1]) return joinPage(parts[1], parts[2]);
  if (parts[0] === 'import') return importPage();
  if (parts[0] === 'analysis') return analysisPage();
  if (parts[0] === 'rules') return rulesPage(parts[1] || 'tori');
  if (parts[0] === 'login' || parts[0] === 'signup') return accountPage(parts[0]);
  if (parts[0] === '@' && parts[1]) return playerPage(decodeURIComponent(parts[1]));
  return lobbyPage();
}

async function start() {
  try {
    variants = await api('/api/variants');
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, `cannot reach the server: ${e.message}`));
    return;
  }
  await refreshAccount();
  setInterval(refreshAccount, 15000);
  window.addEventListener('hashchange', route);
  route();
}

start();
