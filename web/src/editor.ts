// The board editor: set up any position of any game (pieces on the board and in both hands,
// the side to move, rule options), checked by the rules with every problem named, then play
// the computer or a friend from it, analyse it, or copy it as SFEN, FEN and a link that opens
// it here again.

import { api, errorText } from './api';
import type { CheckedPosition, PositionProblem, SeatGrant } from './api-types';
import { el } from './dom';
import { clockFields } from './clockform';
import { computerLevel, levelOptions, rememberComputerLevel } from './levels';
import { optionFields } from './options';
import { roleClass, ensurePieceStyles } from './pieces';
import { app } from './prefs';
import { parseSfen, squareName } from './sfen.js';
import { navigate, page, store } from './state';
import type { RoleInfo, Side, VariantInfo } from './types';
import { gameTitle, pieceName, sideName, t, tn } from './i18n';

interface Cell { code: string; color: Side }

/** The width of the rank letters beside the editor's board (style.css). */
const RANKS_WIDTH = 18;

interface Setup {
  /** Rows from rank a, each from the highest file (sente's left) to file 1. */
  squares: (Cell | null)[][];
  hands: Record<Side, Record<string, number>>;
  turn: Side;
}

/** What `POST /api/positions/check` answers, or a refusal shown as one: that has no
 * `details` (the same problems by code and particulars, named here in the visitor's language). */
type Checked = Omit<CheckedPosition, 'details'> & { details?: Problem[] };

/** One problem of a position as the server names it: a code and the particulars it speaks of. */
type Problem = PositionProblem;

/** A problem in the visitor's language: its code's text from the catalogue, the side and the
 * piece named as the language names them; the server's own words for a code the catalogue lacks. */
function problemText(problem: Problem, variant: VariantInfo): string {
  const key = `editor.problem-${problem.code}`;
  const text = t(key, {
    text: problem.text,
    side: sideName(problem.side ?? ''),
    piece: problem.piece ? pieceName(variant.roles.find((r) => r.name === problem.piece) ?? { name: problem.piece, kanji: problem.piece }) : '',
    square: problem.square ?? '',
    file: problem.file ?? '',
    count: problem.count ?? '',
    limit: problem.limit ?? '',
  });
  return text === key ? problem.text : text;
}

/** The buttons that say which they are, for finding the one that had the focus again. */
const FOCUS_KEYS = ['data-square', 'data-hand-more', 'data-hand-less', 'data-palette-piece', 'data-palette-side', 'data-palette-erase'];

/** Redraws `container` with `draw`, and gives the focus back to the button that had it (a
 * square, a hand's piece, the palette's): keyboard editing goes on where it was. A − that
 * is gone (the hand has none left) hands the focus to its piece. */
function keepFocus(container: HTMLElement, draw: () => void) {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && container.contains(active)
    ? FOCUS_KEYS.find((name) => active.hasAttribute(name)) : undefined;
  // `key` is one `active` has, so both are there.
  const value = key ? active!.getAttribute(key)! : null;
  draw();
  if (!key) return;
  const find = (name: string) => container.querySelector<HTMLElement>(`[${name}="${CSS.escape(value!)}"]`);
  (find(key) ?? (key === 'data-hand-less' ? find('data-hand-more') : null))?.focus();
}

/** The kinds that can be held in hand: unpromoted and not royal. */
const handRoles = (variant: VariantInfo) => variant.roles.filter((r) => !r.royal && !r.promoted_from);

/** The setup a SFEN describes, on a board of the variant's size whatever the text says. */
function setupOf(variant: VariantInfo, sfen: string): Setup {
  const parsed = parseSfen(sfen);
  const squares = Array.from({ length: variant.ranks }, (_, r) => Array.from({ length: variant.files },
    (_, c) => {
      const cell = parsed.squares[r]?.[c];
      return cell && variant.roles.some((role) => role.sfen === cell.code) ? { code: cell.code, color: cell.color } : null;
    }));
  // Only what the hands can hold and the editor can change: none in a game without drops.
  const holdable = new Set(variant.drops ? handRoles(variant).map((r) => r.sfen) : []);
  const hand = (pieces: Record<string, number>) =>
    Object.fromEntries(Object.entries(pieces).filter(([code]) => holdable.has(code)));
  return { squares, hands: { sente: hand(parsed.hands.sente), gote: hand(parsed.hands.gote) }, turn: parsed.turn === 'gote' ? 'gote' : 'sente' };
}

/** A piece's letters as SFEN writes them: sente's upper case, gote's lower. */
const written = (cell: Cell) => (cell.color === 'sente' ? cell.code : cell.code.toLowerCase());

/** The setup as SFEN (move number 1). */
export function sfenOf(variant: VariantInfo, setup: Setup): string {
  const rows = setup.squares.map((row) => {
    let text = '';
    let empty = 0;
    for (const cell of row) {
      if (!cell) { empty++; continue; }
      if (empty) text += empty;
      empty = 0;
      text += written(cell);
    }
    return text + (empty ? empty : '');
  });
  let hand = '';
  for (const color of ['sente', 'gote'] as const) {
    for (const role of variant.roles) {
      const count = setup.hands[color][role.sfen] || 0;
      if (count > 0) hand += `${count > 1 ? count : ''}${written({ code: role.sfen, color })}`;
    }
  }
  return `${rows.join('/')} ${setup.turn === 'sente' ? 'b' : 'w'} ${hand || '-'} 1`;
}


export function editorPage(variantName?: string) {
  const params = new URLSearchParams(location.search);
  // The server lists at least one game to play.
  let variant: VariantInfo = store.variants.find((v) => v.name === variantName) || store.variants.find((v) => v.available)!;
  let options = params.get('options') || '';
  let setup = setupOf(variant, params.get('sfen') || variant.start_sfen);
  /** What a click on the board puts there: a piece, or nothing (the eraser). */
  let tool: Cell | null = { code: variant.roles.find((r) => !r.royal)?.sfen || variant.roles[0].sfen, color: 'sente' };
  let paletteSide: Side = 'sente';
  let checked: Checked | null = null;
  let asked = 0;
  let timer: number | undefined;

  const variantSelect = el('select', { name: 'variant', 'aria-label': t('editor.game') },
    store.variants.filter((v) => v.available).map((v) => el('option', { value: v.name, selected: v.name === variant.name }, gameTitle(v))));
  // The rule options as the lobby offers them, each a choice in words; the position's options
  // text names those that differ from the game's defaults.
  const optionBox = el('div', { class: 'editor-options', 'data-editor-options': '' });
  const turnSelect = el('select', { name: 'turn', 'aria-label': t('editor.side-to-move') },
    el('option', { value: 'sente' }, t('editor.sente-to-move')), el('option', { value: 'gote' }, t('editor.gote-to-move')));
  const boardHost = el('div', { class: 'editor-board-host' });
  const editorMain = el('div', { class: 'editor-main' });
  const topHand = el('div', { class: 'editor-hand', 'data-editor-hand': 'gote' });
  const bottomHand = el('div', { class: 'editor-hand', 'data-editor-hand': 'sente' });
  const palette = el('div', { class: 'editor-palette', role: 'toolbar', 'aria-label': t('editor.pieces-to-place') });
  const status = el('div', { class: 'editor-status', role: 'status', 'aria-live': 'polite', 'data-editor-status': '' });
  const sfenBox = el('input', { readonly: true, 'data-editor-sfen': '', 'aria-label': 'SFEN', class: 'editor-text' });
  const fenBox = el('input', { readonly: true, 'data-editor-fen': '', 'aria-label': 'FEN', class: 'editor-text' });
  const linkBox = el('input', { readonly: true, 'data-editor-link': '', 'aria-label': t('editor.link-label'), class: 'editor-text' });
  const copied = el('small', { class: 'help', 'aria-live': 'polite', 'data-copy-status': '' });
  const error = el('div', { class: 'error', 'data-editor-error': '' });
  const fenRow = el('div', { class: 'editor-out' }, el('label', {}, 'FEN'), fenBox,
    el('button', { type: 'button', class: 'secondary small', 'data-editor-copy': 'fen', onclick: () => copy(fenBox, 'FEN') }, t('editor.copy')));
  // The game from this position: the computer's level, the player's side and the clock.
  const levelSelect = el('select', { name: 'level', 'aria-label': t('editor.level') }) as HTMLSelectElement;
  const sideSelect = el('select', { name: 'side', 'aria-label': t('editor.you-play') },
    el('option', { value: 'to-move' }, t('editor.you-play-to-move')),
    el('option', { value: 'other' }, t('editor.you-play-other'))) as HTMLSelectElement;
  const clock = clockFields();
  clock.kind.value = 'unlimited';
  const actionButtons = [
    el('button', { type: 'button', 'data-editor-action': 'computer', onclick: () => start('engine') }, t('editor.play-computer')),
    el('button', { type: 'button', 'data-editor-action': 'friend', onclick: () => start('human') }, t('editor.play-friend')),
    el('button', { type: 'button', class: 'secondary', 'data-editor-action': 'analyse', onclick: () => analyse() }, t('editor.analyse')),
  ];

  function cellSize() {
    return Math.max(20, Math.min(56, Math.floor(Math.min(520, window.innerWidth - 32 - RANKS_WIDTH) / variant.files)));
  }

  function pieceNode(cell: Cell) {
    // Every piece placed is one of the variant's (`setupOf`, the palette).
    const info = variant.roles.find((r) => r.sfen === cell.code)!;
    return el('piece', { class: `${roleClass(info, variant.roles.indexOf(info))} ${cell.color}` });
  }

  function nameOf(cell: Cell) {
    const role = variant.roles.find((r) => r.sfen === cell.code);
    return t('editor.side-piece', { side: sideName(cell.color), piece: role ? pieceName(role) : cell.code });
  }

  /** Shows the game's rule options, as the options text chose them. */
  function showOptions() {
    optionFields(variant.name, optionBox);
    const chosen = new Map<string, string>(options.split(',').map((pair) => {
      const [name, value = ''] = pair.split('=').map((part) => part.trim());
      return [name, value];
    }));
    for (const field of optionBox.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-option]')) {
      const value = chosen.get(field.dataset.option!);
      if (value !== undefined) field.value = field.tagName === 'INPUT' && value === field.dataset.none ? '' : value;
    }
    levelSelect.replaceChildren(...levelOptions(Number(levelSelect.value) || computerLevel(), '', variant.name));
  }

  /** The options chosen that differ from the game's defaults, as text: `drops=off`. */
  function optionsText(): string {
    return [...optionBox.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-option]')].map((field) => {
      const option = variant.options.find((o) => o.name === field.dataset.option);
      const value = field.tagName === 'INPUT' && field.value.trim() === '' ? field.dataset.none : field.value.trim();
      return value && value !== option?.values[0] ? `${field.dataset.option}=${value}` : null;
    }).filter(Boolean).join(',');
  }

  function renderBoard() {
    const cell = cellSize();
    const grid = el('div', { class: `mini-board editor-board pieces-${variant.name} orientation-sente`,
      style: `--cell:${cell}px; --files:${variant.files}`, 'aria-label': t('editor.board-label', { game: gameTitle(variant) }),
      'data-editor-board': '' });
    setup.squares.forEach((row, r) => row.forEach((piece, c) => {
      const name = squareName(variant.files - c, r);
      grid.append(el('button', { type: 'button', class: 'mini-sq editor-sq', 'data-square': name, title: name,
        'aria-label': `${name}, ${piece ? nameOf(piece) : t('editor.empty')}`,
        onclick: () => place(r, c), oncontextmenu: (event: Event) => { event.preventDefault(); put(r, c, null); } },
      piece ? pieceNode(piece) : null));
    }));
    // Files over the board and ranks beside it, as on the game's board.
    const files = el('div', { class: 'editor-files', 'aria-hidden': 'true' },
      Array.from({ length: variant.files }, (_, i) => el('span', {}, String(variant.files - i))));
    const ranks = el('div', { class: 'editor-ranks', 'aria-hidden': 'true' },
      Array.from({ length: variant.ranks }, (_, r) => el('span', {}, squareName(1, r).replace(/^\d+/, ''))));
    const frame = el('div', { class: 'editor-frame', style: `--cell:${cell}px; --files:${variant.files}; --ranks:${variant.ranks}` },
      files, grid, ranks);
    keepFocus(boardHost, () => boardHost.replaceChildren(frame));
    // The hands and the palette wrap to the board's width, so the side panel fits beside it.
    editorMain.style.width = `${Math.max(variant.files * cell + 4 + RANKS_WIDTH, Math.min(340, window.innerWidth - 24))}px`;
  }

  function renderHand(node: HTMLElement, color: Side) {
    if (!variant.drops) { node.replaceChildren(); node.hidden = true; return; }
    node.hidden = false;
    const cell = Math.max(26, Math.min(34, cellSize()));
    keepFocus(node, () => node.replaceChildren(el('span', { class: 'editor-hand-title' }, color === 'sente' ? t('editor.hand-sente') : t('editor.hand-gote')),
      ...handRoles(variant).map((role) => {
        const count = setup.hands[color][role.sfen] || 0;
        // The piece is the button that adds one; a badge counts them; − takes one back.
        return el('span', { class: 'editor-hand-piece', 'data-hand-piece': role.sfen },
          el('button', { type: 'button', class: 'editor-tool', 'aria-label': t('editor.hand-more', { piece: pieceName(role), side: sideName(color), count }),
            title: t('editor.add-one', { piece: pieceName(role) }), 'data-hand-more': role.sfen, onclick: () => setHand(color, role, count + 1) },
          el('span', { class: `mini-board pieces-${variant.name} orientation-sente`, style: `--cell:${cell}px; --files:1` },
            el('span', { class: 'mini-sq' }, pieceNode({ code: role.sfen, color })))),
          el('span', { class: 'editor-count', 'data-hand-count': `${color} ${role.sfen}` }, count ? `×${count}` : ''),
          count ? el('button', { type: 'button', class: 'secondary small editor-less', 'aria-label': t('editor.hand-less', { piece: pieceName(role), side: sideName(color) }),
            'data-hand-less': role.sfen, onclick: () => setHand(color, role, count - 1) }, '−') : null);
      })));
  }

  function renderPalette() {
    const cell = window.innerWidth < 600 ? 28 : 34;
    const sameTool = (code: string) => tool && tool.code === code && tool.color === paletteSide;
    keepFocus(palette, () => palette.replaceChildren(
      el('div', { class: 'editor-sides', role: 'group', 'aria-label': t('editor.whose-pieces') },
        (['sente', 'gote'] as const).map((side) => el('button', { type: 'button', class: 'secondary small',
          'aria-pressed': String(paletteSide === side), 'data-palette-side': side,
          onclick: () => { paletteSide = side; if (tool) tool = { ...tool, color: side }; renderPalette(); } },
        side === 'sente' ? t('editor.palette-sente') : t('editor.palette-gote'))),
        el('button', { type: 'button', class: 'secondary small', 'aria-pressed': String(tool === null), 'data-palette-erase': '',
          onclick: () => { tool = null; renderPalette(); } }, t('editor.eraser'))),
      el('div', { class: `editor-pieces pieces-${variant.name}` }, variant.roles.map((role) =>
        el('button', { type: 'button', class: 'editor-tool', title: pieceName(role), 'aria-label': t('editor.side-piece', { side: sideName(paletteSide), piece: pieceName(role) }),
          'aria-pressed': String(Boolean(sameTool(role.sfen))), 'data-palette-piece': role.sfen,
          onclick: () => { tool = { code: role.sfen, color: paletteSide }; renderPalette(); } },
        el('span', { class: `mini-board pieces-${variant.name} orientation-sente`, style: `--cell:${cell}px; --files:1` },
          el('span', { class: 'mini-sq' }, pieceNode({ code: role.sfen, color: paletteSide }))))))));
  }

  function render() {
    ensurePieceStyles(variant);
    renderBoard();
    renderHand(topHand, 'gote');
    renderHand(bottomHand, 'sente');
    turnSelect.value = setup.turn;
    changed();
  }

  /** A click puts the chosen piece on the square, or takes off the same piece standing there. */
  function place(r: number, c: number) {
    const here = setup.squares[r][c];
    const same = here && tool && here.code === tool.code && here.color === tool.color;
    put(r, c, same ? null : tool);
  }

  function put(r: number, c: number, piece: Cell | null) {
    setup.squares[r][c] = piece ? { ...piece } : null;
    renderBoard();
    changed();
  }

  function setHand(color: Side, role: RoleInfo, count: number) {
    setup.hands[color][role.sfen] = Math.max(0, Math.min(99, count));
    renderHand(color === 'sente' ? bottomHand : topHand, color);
    changed();
  }

  function linkFor(sfen: string) {
    const query = new URLSearchParams({ sfen });
    if (options) query.set('options', options);
    return `/editor/${variant.name}?${query}`;
  }

  /** Every change: the texts and address follow at once, the rules' verdict a moment later. */
  function changed() {
    const sfen = sfenOf(variant, setup);
    sfenBox.value = sfen;
    const link = linkFor(sfen);
    linkBox.value = `${location.origin}${link}`;
    history.replaceState(null, '', link);
    // An answer already on its way is for an earlier position: it must not be shown for this one.
    asked += 1;
    checked = null;
    showVerdict();
    window.clearTimeout(timer);
    timer = window.setTimeout(() => check(sfen), 150);
  }

  async function check(sfen: string) {
    const mine = asked;
    try {
      const answer = await api<CheckedPosition>('/api/positions/check', { variant: variant.name, options, sfen });
      if (mine !== asked) return;
      checked = answer;
      error.textContent = '';
    } catch (e) {
      if (mine !== asked) return;
      checked = { playable: false, problems: [errorText(e)], sfen: null, fen: null, legal_moves: 0, check: false };
    }
    showVerdict();
  }

  function showVerdict() {
    const ready = Boolean(checked?.playable && checked.legal_moves > 0);
    for (const button of actionButtons) button.toggleAttribute('disabled', !ready);
    fenBox.value = checked?.fen || '';
    fenRow.hidden = !checked?.fen;
    if (!checked) { status.dataset.verdict = 'checking'; status.replaceChildren(t('editor.checking')); return; }
    if (!checked.playable) {
      status.dataset.verdict = 'problems';
      status.replaceChildren(el('strong', {}, tn('editor.not-playable', checked.problems.length)),
        el('ul', { 'data-editor-problems': '' }, (checked.details ?? checked.problems.map((text) => ({ code: 'other', text })))
          .map((p) => el('li', {}, problemText(p, variant)))));
      return;
    }
    const side = setup.turn === 'sente' ? t('frame.Sente') : t('frame.Gote');
    status.dataset.verdict = checked.legal_moves > 0 ? 'playable' : 'over';
    status.replaceChildren(el('strong', {}, checked.legal_moves > 0 ? t('editor.playable') : t('editor.over-at-once')), ' ',
      checked.legal_moves > 0
        ? (checked.check ? tn('editor.to-move-check', checked.legal_moves, { side }) : tn('editor.to-move', checked.legal_moves, { side }))
        : (checked.check ? t('editor.no-move-mated', { side }) : t('editor.no-move', { side })));
  }

  async function copy(box: HTMLInputElement, what: string) {
    try {
      await navigator.clipboard.writeText(box.value);
      copied.textContent = t('editor.copied', { what });
    } catch {
      box.select();
      copied.textContent = t('editor.copy-refused');
    }
  }

  /** A game from this position: against the computer, or with an invite link for a friend;
   * the player takes the side chosen (the side to move, or the other), on the clock chosen. */
  async function start(opponent: 'engine' | 'human') {
    if (!checked?.playable || !checked.sfen) return;
    error.textContent = '';
    const other: Side = setup.turn === 'sente' ? 'gote' : 'sente';
    const level = Number(levelSelect.value);
    if (opponent === 'engine') rememberComputerLevel(level);
    try {
      const grant = await api<SeatGrant>('/api/games', { variant: variant.name, options, sfen: checked.sfen, opponent,
        level, side: sideSelect.value === 'other' ? other : setup.turn, clock: clock.value() });
      localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
      if (grant.invite) localStorage.setItem(`tsubame.invite.${grant.game_id}`, grant.invite);
      navigate(`/game/${grant.game_id}`);
    } catch (e) {
      error.textContent = errorText(e);
    }
  }

  function analyse() {
    if (!checked?.playable || !checked.sfen) return;
    const query = new URLSearchParams({ variant: variant.name, sfen: checked.sfen });
    if (options) query.set('options', options);
    navigate(`/analysis?${query}`);
  }

  function switchGame(name: string) {
    variant = store.variants.find((v) => v.name === name) || variant;
    options = '';
    showOptions();
    setup = setupOf(variant, variant.start_sfen);
    tool = { code: variant.roles.find((r) => !r.royal)?.sfen || variant.roles[0].sfen, color: paletteSide };
    renderPalette();
    render();
  }

  variantSelect.addEventListener('change', () => switchGame(variantSelect.value));
  optionBox.addEventListener('change', () => { options = optionsText(); changed(); });
  turnSelect.addEventListener('change', () => { setup.turn = turnSelect.value === 'gote' ? 'gote' : 'sente'; changed(); });
  const startPosition = () => { setup = setupOf(variant, variant.start_sfen); render(); };
  // Cleared, the board keeps its royal pieces where they start: every game needs them.
  const clearBoard = () => {
    const start = setupOf(variant, variant.start_sfen);
    const royal = new Set(variant.roles.filter((r) => r.royal).map((r) => r.sfen));
    setup = { squares: start.squares.map((row) => row.map((cell) => (cell && royal.has(cell.code) ? cell : null))),
      hands: { sente: {}, gote: {} }, turn: setup.turn };
    render();
  };

  app.replaceChildren(el('div', { class: 'editor' },
    editorMain,
    el('div', { class: 'side-area' },
      el('section', { class: 'panel' }, el('h2', {}, t('editor.heading')),
        el('p', { class: 'help' }, t('editor.help')),
        el('div', { class: 'row' }, el('label', {}, `${t('editor.game')} `, variantSelect)),
        el('details', { class: 'editor-rules', open: options ? true : undefined }, el('summary', {}, t('editor.rule-options')), optionBox),
        el('div', { class: 'row' }, turnSelect,
          el('button', { type: 'button', class: 'secondary small', 'data-editor-reset': 'start', onclick: startPosition }, t('editor.start-position')),
          el('button', { type: 'button', class: 'secondary small', 'data-editor-reset': 'clear', onclick: clearBoard }, t('editor.clear-board'))),
        status),
      el('section', { class: 'panel' }, el('h2', {}, t('editor.from-position')),
        el('div', { class: 'row editor-game' }, el('label', {}, `${t('editor.level')} `, levelSelect),
          el('label', {}, `${t('editor.you-play')} `, sideSelect)),
        clock.row, clock.help,
        el('div', { class: 'row' }, actionButtons), error,
        el('div', { class: 'editor-out' }, el('label', {}, 'SFEN'), sfenBox,
          el('button', { type: 'button', class: 'secondary small', 'data-editor-copy': 'sfen', onclick: () => copy(sfenBox, 'SFEN') }, t('editor.copy'))),
        fenRow,
        el('div', { class: 'editor-out' }, el('label', {}, t('editor.link')), linkBox,
          el('button', { type: 'button', class: 'secondary small', 'data-editor-copy': 'link', onclick: () => copy(linkBox, t('editor.link')) }, t('editor.copy'))),
        copied))));
  editorMain.append(topHand, boardHost, bottomHand, palette);
  showOptions();
  clock.show();
  renderPalette();
  render();
  const onResize = () => renderBoard();
  window.addEventListener('resize', onResize);
  page.cleanup = () => {
    window.clearTimeout(timer);
    asked++;
    window.removeEventListener('resize', onResize);
  };
}
