// The learn path's tap drills: one piece on the board, tap every square it can reach; then with
// pieces in its way (its own block it, the opponent's it captures); for a piece that promotes,
// the squares where its move promotes it; and for pieces dropped with a rule, the squares
// where it may not be dropped. Every answer is the server's list of legal moves for the
// position: the rules library decides, the page keeps no table of moves. Stars and lessons
// done are kept in the browser.

import { api, errorStatus } from './api';
import { store } from './state';
import { el } from './dom';
import { parseMove, parseSfen, squareName, squareOf } from './sfen.js';
import { ensurePieceStyles, roleClass } from './pieces';
import type { RoleInfo, VariantInfo, WhoAmI } from './types';
import type { LearnProgress, ReplayedGame } from './api-types';
import type { UsiMove } from './board';
import { gameTitle, pieceName, sideName, t } from './i18n';

export type Stage = 'alone' | 'blocked' | 'promotion' | 'drops';
/** What a stage asks, in the visitor's language (read when drawn). */
export function stageWords(stage: Stage): string {
  switch (stage) {
    case 'alone': return t('learn.stage-alone');
    case 'blocked': return t('learn.stage-blocked');
    case 'promotion': return t('learn.stage-promotion');
    default: return t('learn.stage-drops');
  }
}

/** A stage's short name, on its button. */
export function stageName(stage: Stage): string {
  switch (stage) {
    case 'alone': return t('learn.name-alone');
    case 'blocked': return t('learn.name-blocked');
    case 'promotion': return t('learn.name-promotion');
    default: return t('learn.name-drops');
  }
}

export type Drill = { role: RoleInfo; stage: Stage; sfen: string; answer: Set<string>; square: string | null };

/** Where this browser keeps a game's progress: a logged-in player's own copy of their
 * account's, else the guest's (progress made before logging in), so that one person's
 * progress never shows as, or goes to, another's on a shared browser. */
function progressKey(variant: string, name: string | undefined = store.me.account?.username): string {
  return name ? `tsubame.learn.${variant}.@${name}` : guestKey(variant);
}

/** Where a guest's progress waits, until it goes to the account of whoever logs in next. */
function guestKey(variant: string): string {
  return `tsubame.learn.${variant}`;
}

function readProgress(key: string): Record<string, number> {
  try {
    const saved = JSON.parse(localStorage.getItem(key) || '{}');
    return saved && typeof saved === 'object' ? saved : {};
  } catch {
    return {};
  }
}

/** Lessons done and drill stars, by game, of whoever is using the page. */
export function progress(variant: string): Record<string, number> {
  return readProgress(progressKey(variant));
}

/** Keeps a lesson done or a drill's stars (the best of them) in the browser, and with the
 * account when logged in (the account keeps the best too, so a lost request costs nothing
 * the next lesson does not bring). */
export function saveStars(variant: string, key: string, stars: number) {
  const saved = progress(variant);
  saved[key] = Math.max(saved[key] || 0, stars);
  localStorage.setItem(progressKey(variant), JSON.stringify(saved));
  if (store.me.account) api(`/api/account/learn/${variant}`, { items: { [key]: saved[key] } }).catch(() => {});
}

/** For a logged-in player: the account's progress on the game's path into this browser, and
 * progress made here as a guest sent to the account once, then the guest's copy cleared.
 * Answers whether the progress shown is the account's. */
export async function syncProgress(variant: string): Promise<boolean> {
  let name: string | undefined;
  let remote: { items: Record<string, number> };
  try {
    name = (await api<WhoAmI>('/api/account')).account?.username;
    if (!name) return false;
    remote = await api<LearnProgress>(`/api/account/learn/${variant}`);
  } catch {
    // A server that cannot say: the browser's copy stands.
    return false;
  }
  const guest = guestKey(variant);
  const accountKey = progressKey(variant, name);
  // What the account lacks: the guest's progress, and this account's own that a lost request
  // did not bring.
  const send: Record<string, number> = {};
  for (const source of [readProgress(guest), readProgress(accountKey)]) {
    for (const [key, stars] of Object.entries(source)) {
      if (typeof stars === 'number' && stars > (remote.items[key] || 0) && stars > (send[key] || 0)) send[key] = stars;
    }
  }
  let sent = true;
  if (Object.keys(send).length) {
    try {
      // The server records what the path has and names what it ignored.
      remote = await api<LearnProgress>(`/api/account/learn/${variant}`, { items: send });
    } catch {
      sent = false;
    }
  }
  if (sent) localStorage.removeItem(guest);
  const shown = { ...remote.items };
  if (!sent) for (const [key, stars] of Object.entries(send)) shown[key] = Math.max(shown[key] || 0, stars);
  localStorage.setItem(accountKey, JSON.stringify(shown));
  return true;
}

/** The pieces of the game's usual set, and the promoted forms of those that promote. */
export function lessonRoles(variant: VariantInfo): RoleInfo[] {
  const start = parseSfen(variant.start_sfen);
  const present = new Set(start.squares.flat().filter((p) => p !== null).map((p) => p.code));
  return variant.roles.filter((r) => present.has(r.sfen) || (r.promoted_from && present.has(r.promoted_from)));
}

/** An SFEN board from a map of square names to pieces (`F` sente's, `f` gote's). */
export function boardSfen(variant: VariantInfo, pieces: Map<string, string>, hand = '-') {
  const rows = [];
  for (let rank = 0; rank < variant.ranks; rank++) {
    let row = '';
    let empty = 0;
    for (let file = variant.files; file >= 1; file--) {
      const piece = pieces.get(squareName(file, rank));
      if (!piece) { empty += 1; continue; }
      if (empty) { row += empty; empty = 0; }
      row += piece;
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return `${rows.join('/')} b ${hand} 1`;
}

function gote(code: string) {
  // `+F` → `+f`, `Q!` → `q!`: the letter carries the colour.
  return code.replace(/[A-Z]/, (letter) => letter.toLowerCase());
}

/** The legal moves of a position, or null when the rules refuse it (422); any other failure
 * (the server busy, the network gone) is thrown, for the page to say and offer again. */
async function legalMoves(variant: VariantInfo, sfen: string): Promise<string[] | null> {
  try {
    const record = await api<ReplayedGame>('/api/replay', { variant: variant.name, options: '', sfen, moves: [] });
    return record.legal_moves;
  } catch (e) {
    if (errorStatus(e) === 422) return null;
    throw e;
  }
}

/** Builds a drill: the piece on a square with room around it, the royals in corners where
 * nothing attacks them, tried until the rules accept the position. */
export async function buildDrill(variant: VariantInfo, role: RoleInfo, stage: Stage): Promise<Drill | null> {
  // Every game has its royal piece.
  const royal = variant.roles.find((r) => r.royal)!;
  // The game's humblest piece stands in the way: the swallow, the sparrow pawn, the pawn.
  const pawn = variant.roles.find((r) => !r.promoted_from && /\b(pawn|swallow)$/.test(r.name));
  const file = Math.ceil(variant.files / 2);
  // Below the promotion zone, so that nothing there forces a promotion.
  const rank = Math.min(variant.ranks - 2, Math.max(variant.promotion_zone + 1, Math.floor(variant.ranks / 2)));
  const square = squareName(file, rank);
  const corners: [string, string][] = [
    [squareName(1, 0), squareName(variant.files, variant.ranks - 1)],
    [squareName(variant.files, 0), squareName(1, variant.ranks - 1)],
    [squareName(2, 0), squareName(variant.files - 1, variant.ranks - 1)],
    [squareName(variant.files - 1, 0), squareName(2, variant.ranks - 1)],
  ];
  for (const [goteRoyal, senteRoyal] of corners) {
    const pieces = new Map<string, string>();
    pieces.set(goteRoyal, gote(royal.sfen));
    if (role.royal) {
      pieces.set(square, role.sfen);
    } else {
      pieces.set(senteRoyal, royal.sfen);
      if (stage !== 'drops') pieces.set(square, role.sfen);
    }
    if (stage === 'promotion') {
      if (!role.promotes_to) return null;
      // On the first rank outside the zone, so that its moves into the zone are the answer.
      const edge = squareName(file, variant.promotion_zone);
      const placed = new Map([...pieces].filter(([at]) => at !== square));
      placed.set(edge, role.sfen);
      const sfen = boardSfen(variant, placed);
      const legal = await legalMoves(variant, sfen);
      if (!legal) continue;
      const answer = new Set(legal.map(parseMove)
        .filter((m): m is UsiMove => m !== null && !m.drop && m.promote && m.squares[0] === edge)
        .map((m) => m.squares[m.squares.length - 1]));
      if (answer.size) return { role, stage, sfen, answer, square: edge };
    } else if (stage === 'alone') {
      const sfen = boardSfen(variant, pieces);
      const legal = await legalMoves(variant, sfen);
      if (!legal) continue;
      const answer = new Set(legal.map(parseMove)
        .filter((m): m is UsiMove => m !== null && !m.drop && m.squares[0] === square)
        .map((m) => m.squares[m.squares.length - 1]).filter((to) => to !== square));
      if (answer.size) return { role, stage, sfen, answer, square };
    } else if (stage === 'blocked') {
      const alone = await buildDrill(variant, role, 'alone');
      if (!alone || alone.answer.size < 4 || !pawn) return null;
      // Two of its own pieces and two of the opponent's on squares it reaches, nearest first.
      const reach = [...alone.answer].sort((a, b) => distance(a, square) - distance(b, square) || a.localeCompare(b));
      const placed = new Map(pieces);
      reach.slice(0, 4).forEach((at, i) => placed.set(at, i % 2 === 0 ? pawn.sfen : gote(pawn.sfen)));
      const sfen = boardSfen(variant, placed);
      const legal = await legalMoves(variant, sfen);
      if (!legal) continue;
      const answer = new Set(legal.map(parseMove)
        .filter((m): m is UsiMove => m !== null && !m.drop && m.squares[0] === square)
        .map((m) => m.squares[m.squares.length - 1]).filter((to) => to !== square));
      return { role, stage, sfen, answer, square };
    } else {
      if (!variant.drops || role.royal || role.promoted_from) return null;
      // A file with two of its kind on it, for the rules that count them on a file.
      const placed = new Map(pieces);
      placed.set(squareName(file + 1, rank), role.sfen);
      placed.set(squareName(file + 1, rank - 1), role.sfen);
      const sfen = boardSfen(variant, placed, role.sfen);
      const legal = await legalMoves(variant, sfen);
      if (!legal) continue;
      const allowed = new Set<string>(legal.map(parseMove)
        .filter((m): m is UsiMove => m !== null && m.drop === role.sfen).map((m) => m.squares[0]));
      const position = parseSfen(sfen);
      const empty: string[] = [];
      position.squares.forEach((row, r) => row.forEach((cell, c) => {
        if (!cell) empty.push(squareName(variant.files - c, r));
      }));
      const forbidden = new Set(empty.filter((s) => !allowed.has(s)));
      // Only where the rule leaves a few squares out is there something to learn.
      if (!allowed.size || !forbidden.size || forbidden.size > 3 * variant.files) return null;
      return { role, stage, sfen, answer: forbidden, square: null };
    }
  }
  return null;
}

function distance(a: string, b: string) {
  const x = squareOf(a);
  const y = squareOf(b);
  return Math.max(Math.abs(x.file - y.file), Math.abs(x.rank - y.rank));
}

/** The drills of a piece: alone, blocked, its promotion if it promotes, and its drop rule
 * where the rules restrict its drops (the answers still come from the legal moves). */
export function stagesOf(variant: VariantInfo, role: RoleInfo): Stage[] {
  return [
    'alone', 'blocked',
    ...(role.promotes_to ? ['promotion' as const] : []),
    ...(variant.drops && !role.royal && !role.promoted_from
      && (role.drop.barred_far_ranks > 0 || role.drop.max_per_file !== null) ? ['drops' as const] : []),
  ];
}

/** A board of tappable squares for `sfen`: `marks` picks the squares drawn as the piece's own
 * square or the promotion zone; `onTap` hears each tap with its square's button. */
export function tapBoard(variant: VariantInfo, sfen: string, onTap: (square: string, button: HTMLElement) => void,
  marks: { from?: string | null, zone?: boolean } = {}): HTMLElement {
  const position = parseSfen(sfen);
  const cell = Math.max(20, Math.min(52, Math.floor(Math.min(460, window.innerWidth - 40) / variant.files)));
  const grid = el('div', { class: `mini-board learn-board pieces-${variant.name} orientation-sente`, style: `--cell:${cell}px; --files:${variant.files}`,
    'aria-label': t('learn.board-label', { game: gameTitle(variant) }), 'data-sfen': sfen });
  position.squares.forEach((row, r) => row.forEach((piece, c) => {
    const name = squareName(variant.files - c, r);
    const info = piece && variant.roles.find((x) => x.sfen === piece.code);
    const zone = marks.zone && r < variant.promotion_zone;
    const button = el('button', { type: 'button', class: `mini-sq learn-sq${name === marks.from ? ' learn-from' : ''}${zone ? ' learn-zone' : ''}`,
      'data-square': name, 'aria-label': `${name}${info ? `, ${t('learn.side-piece', { side: sideName(piece.color), piece: pieceName(info) })}` : ''}` },
    info ? el('piece', { class: `${roleClass(info, variant.roles.indexOf(info))} ${piece.color}` }) : null);
    button.addEventListener('click', () => onTap(name, button));
    grid.append(button);
  }));
  return grid;
}

/** A drill to play: its board and the count of squares found; `onDone` hears the stars
 * (three without a mistake, two with one or two, else one), kept in the browser. */
export function drillNode(variant: VariantInfo, drill: Drill, onDone: (stars: number) => void): HTMLElement {
  ensurePieceStyles(variant);
  const found = new Set<string>();
  let mistakes = 0;
  const status = el('p', { class: 'learn-status', role: 'status', 'data-learn-status': '' },
    t('learn.squares-to-find', { count: drill.answer.size }));
  const grid = tapBoard(variant, drill.sfen, tap, { from: drill.square, zone: drill.stage === 'promotion' });
  function tap(name: string, button: HTMLElement) {
    if (found.size === drill.answer.size || found.has(name)) return;
    if (drill.answer.has(name)) {
      found.add(name);
      button.classList.add('right');
    } else {
      mistakes += 1;
      button.classList.add('wrong');
      setTimeout(() => button.classList.remove('wrong'), 500);
    }
    if (found.size === drill.answer.size) {
      const stars = mistakes === 0 ? 3 : mistakes <= 2 ? 2 : 1;
      saveStars(variant.name, `${drill.role.sfen} ${drill.stage}`, stars);
      const starText = `${'★'.repeat(stars)}${'☆'.repeat(3 - stars)}`;
      status.textContent = mistakes ? t('learn.all-found-wrong', { count: found.size, wrong: mistakes, stars: starText })
        : t('learn.all-found', { count: found.size, stars: starText });
      status.dataset.stars = String(stars);
      onDone(stars);
    } else {
      const left = drill.answer.size - found.size;
      status.textContent = mistakes ? t('learn.squares-left-wrong', { count: left, wrong: mistakes })
        : t('learn.squares-left', { count: left });
    }
  }
  const hand = drill.stage === 'drops'
    ? [el('p', { class: 'help' }, t('learn.in-hand', { piece: pieceName(drill.role) }))] : [];
  return el('div', { class: 'drill', 'data-drill': `${drill.role.sfen} ${drill.stage}` },
    el('p', {}, stageWords(drill.stage)), ...hand, grid, status);
}
