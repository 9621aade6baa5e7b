// Move marks for Wa and Tenjiku pieces: around the kanji, a dot for each square a piece steps
// to, a line for each way it slides, a ring for each square it jumps to, so that a player can
// read a piece's moves from the board (as WinBoard's mnemonic pieces do for Chu shogi).
//
// Marks are drawn from the piece's moves in the variant list (the rules library's own table)
// on the piece's wooden face, and turn round with it for gote. Tenjiku's powers (lion moves,
// range jumps, area moves, burning) are marked in red; the piece card spells them out.

import type { RoleInfo } from './types';

/** The face is drawn on a 100 x 110 sheet stretched over the five-sided piece. */
const CX = 50;
const CY = 62;
/** The marks keep to the rim, clear of the kanji: the outermost mark of a way sits at `RIM`, a
 * way's earlier squares `GAP` further in each. */
const RIM = 40;
const GAP = 7;

const round = (n: number) => Number(n.toFixed(2));

/** A point `r` from the centre towards (left, forward) as seen from sente. */
function toward(left: number, forward: number, r: number): [number, number] {
  const length = Math.hypot(left, forward);
  return [round(CX - (left / length) * r), round(CY - (forward / length) * r)];
}

const dot = (left: number, forward: number, r: number, cls = 'dot') => {
  const [x, y] = toward(left, forward, r);
  return `<circle class="mark ${cls}" cx="${x}" cy="${y}" r="2.5"/>`;
};

const line = (left: number, forward: number, cls = 'line') => {
  const [x1, y1] = toward(left, forward, RIM - 10);
  const [x2, y2] = toward(left, forward, RIM + 2);
  return `<path class="mark ${cls}" d="M${x1} ${y1} L${x2} ${y2}"/>`;
};

const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b));

interface Way { left: number; forward: number; steps: Set<number>; jumps: Set<number>; slides: boolean }

/** Each way a piece goes, by direction: the squares it steps or slides to one by one, the squares
 * it jumps to over the ones before, and whether it slides on without limit. */
function waysOf(role: RoleInfo): Map<string, Way> {
  const ways = new Map<string, Way>();
  for (const move of role.moves) {
    const divisor = gcd(move.left, move.forward) || 1;
    const [left, forward] = [move.left / divisor, move.forward / divisor];
    const key = `${left},${forward}`;
    if (!ways.has(key)) ways.set(key, { left, forward, steps: new Set(), jumps: new Set(), slides: false });
    const way = ways.get(key)!;
    if (!move.slide) (divisor === 1 ? way.steps : way.jumps).add(divisor);
    else if (!move.limit) way.slides = true;
    else for (let n = 1; n <= move.limit; n++) way.steps.add(n * divisor);
  }
  return ways;
}

/** The marks of one piece, as SVG text; none for a piece with no moves to mark. */
export function marksPicture(role: RoleInfo): string | null {
  const parts = [];
  for (const { left, forward, steps, jumps, slides } of waysOf(role).values()) {
    if (slides) {
      parts.push(line(left, forward));
      continue;
    }
    // Square by square outwards, the last one on the rim: a dot for one stepped or slid to, a
    // ring for one jumped to over the square before it. A knight's leap is a dot on its own line.
    const last = Math.max(...steps, ...jumps);
    for (let n = 1; n <= last; n++) {
      const r = RIM - (last - n) * GAP;
      if (steps.has(n)) parts.push(dot(left, forward, r));
      else if (jumps.has(n)) parts.push(dot(left, forward, r, 'ring'));
    }
  }
  const powers = role.powers;
  if (powers) {
    // The lion's and area moves reach any square within two (or the area's size): a red ring.
    if (powers.lion === 'full' || powers.lion === 'lion-hawk' || powers.area) {
      parts.push(`<circle class="power" cx="${CX}" cy="${CY}" r="${RIM - GAP}"/>`);
    }
    if (powers.lion && typeof powers.lion === 'object') {
      for (const [left, forward] of powers.lion.line) parts.push(dot(left, forward, RIM - GAP, 'power-dot'), dot(left, forward, RIM, 'power-dot'));
    }
    if (powers.range_jump) for (const [left, forward] of powers.range_jump.directions) parts.push(line(left, forward, 'power-line'));
    if (powers.burns || powers.tetrarch || powers.free_eagle) {
      parts.push(`<path class="power-star" d="M${CX} ${CY + 41} l1.6 -4 l1.6 4 l-4.2 -2.5 h5.2z"/>`);
    }
  }
  if (!parts.length) return null;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 110" preserveAspectRatio="none" data-centre="${CX} ${CY}">`
    + '<style>.dot{fill:#2a211a}.ring{fill:none;stroke:#2a211a;stroke-width:1.4}'
    + '.line{stroke:#2a211a;stroke-width:2.4;stroke-linecap:round}'
    + '.power{fill:none;stroke:#c0392b;stroke-width:1.4;stroke-dasharray:3 2.4}.power-dot{fill:#c0392b}'
    + '.power-line{stroke:#c0392b;stroke-width:1.3;stroke-linecap:round}.power-star{fill:#c0392b}</style>'
    + `${parts.join('')}</svg>`;
}

/** The marks as a CSS `url(...)`, or nothing. */
export function marksUrl(role: RoleInfo): string | null {
  const svg = marksPicture(role);
  return svg ? `url("data:image/svg+xml,${encodeURIComponent(svg)}")` : null;
}
