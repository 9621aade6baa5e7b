// Tori's picture pieces: each bird drawn so that its head, wings, tail and feet point where it
// moves, as a newcomer reads a piece before learning its kanji.
//
// The drawing's language (the rules page explains it): every move direction has one part of the
// bird reaching out from the body along it — a short part one step, a long one as far as the
// way is clear, a short part with a diamond beyond it one or two steps, an arc landing on a ring
// a jump to the second square. Nothing else reaches out of the body. Sente's birds are dark,
// gote's light, promoted birds red-edged with a red seal; gote's are also turned round, as every
// piece is.
//
// Each part that stands for a move is a `.reach` group (its kind in `data-reach`) drawn
// around the centre named on the picture (`data-centre`): the browser tests measure where each
// one points and compare it with the move generator's moves. The art is Tsubame's own
// (GPL-3.0-or-later, as the rest of the project).

type Dir = readonly [number, number];

// Screen directions from sente's seat: x to the right, y down.
const N: Dir = [0, -1];
const NE: Dir = [1, -1];
const E: Dir = [1, 0];
const SE: Dir = [1, 1];
const S: Dir = [0, 1];
const SW: Dir = [-1, 1];
const W: Dir = [-1, 0];
const NW: Dir = [-1, -1];

/** The picture's frame fits the five-sided piece (84 x 92 of a square); the body sits a little
 * below the middle, where the piece is widest. Drawn on a 100 x 110 sheet, shown cropped to
 * what the parts use. */
const VIEW = '4 6 92 102';
const WIDTH = 100;
const HEIGHT = 110;
const CX = 50;
const CY = 60;
/** How far parts reach from the centre: one step, a second step or jump, a slide. */
const STEP = 35;
const SECOND = 42.5;
const SLIDE = 46;

const round = (n: number) => Number(n.toFixed(2));

function unit(d: Dir): Dir {
  const length = Math.hypot(d[0], d[1]);
  return [d[0] / length, d[1] / length];
}

/** The point `r` from the centre along `d`, moved `side` across it (positive: clockwise side). */
function at(d: Dir, r: number, side = 0): string {
  const [ux, uy] = unit(d);
  return `${round(CX + ux * r - uy * side)} ${round(CY + uy * r + ux * side)}`;
}

/** A feather: a leaf from `from` to its point at `to`, widest (`width`) a little past half way. */
function feather(d: Dir, from: number, to: number, width: number, cls = 'feather'): string {
  const mid = from + (to - from) * 0.45;
  const half = width * 0.6;
  return `<path class="${cls}" d="M${at(d, from, -half * 0.55)} Q${at(d, mid, -half * 1.25)} ${at(d, to)} `
    + `Q${at(d, mid, half * 1.25)} ${at(d, from, half * 0.55)}Z"/>`
    // The shaft, light on a dark feather and dark on a light one.
    + `<path class="shaft" d="M${at(d, from + 2)} L${at(d, to - (to - from) * 0.22)}"/>`;
}

/** A head on a neck reaching to `to`: the beak's point is the farthest point. */
function head(d: Dir, to: number, { beak = 6, size: drawn = 7.5, neck = 0, hooked = false } = {}): string {
  const size = drawn * 1.15;
  const centre = to - beak - size * 0.8;
  const parts = [];
  if (neck > 0) parts.push(`<path class="neck" d="M${at(d, 14, -neck / 2)} L${at(d, centre, -neck / 2)} L${at(d, centre, neck / 2)} L${at(d, 14, neck / 2)}Z"/>`);
  const [x, y] = at(d, centre).split(' ').map(Number);
  parts.push(`<path class="head" d="M${round(x - size)} ${y} a${size} ${size} 0 1 0 ${2 * size} 0 a${size} ${size} 0 1 0 ${-2 * size} 0Z"/>`);
  const beakBase = centre + size * 0.7;
  parts.push(hooked
    ? `<path class="beak" d="M${at(d, beakBase, -3.2)} Q${at(d, to - 1, -2.5)} ${at(d, to)} Q${at(d, to - 2.5, 1)} ${at(d, beakBase, 3.2)}Z"/>`
    : `<path class="beak" d="M${at(d, beakBase, -2.8)} L${at(d, to)} L${at(d, beakBase, 2.8)}Z"/>`);
  const [ex, ey] = at(d, centre, size * 0.35).split(' ').map(Number);
  parts.push(`<circle class="eye" cx="${round(ex)}" cy="${round(ey - 1)}" r="1.8"/>`);
  return parts.join('');
}

/** A leg with three toes, the middle one along `d`. */
function leg(d: Dir, to: number): string {
  const knee = to - 8;
  return `<path class="leg" d="M${at(d, 15)} L${at(d, knee)} M${at(d, knee)} L${at(d, to)} `
    + `M${at(d, knee)} L${at(d, to - 2.5, -4.5)} M${at(d, knee)} L${at(d, to - 2.5, 4.5)}"/>`;
}

/** One step and a second one: the step's part, then a diamond on the second square's line. */
function second(d: Dir): string {
  const h = 3.4;
  return `<path class="mark" d="M${at(d, SECOND - h)} L${at(d, SECOND, h * 0.8)} L${at(d, SECOND + h)} L${at(d, SECOND, -h * 0.8)}Z"/>`;
}

/** A jump to the second square: a dashed arc from the body landing on a ring. */
function jump(d: Dir, ring = 'ring'): string {
  const r = 3.6;
  const landing = SECOND;
  const [x, y] = at(d, landing).split(' ').map(Number);
  return `<path class="arc" d="M${at(d, 21)} Q${at(d, 30, 7)} ${at(d, landing - r - 0.6)}"/>`
    + `<path class="${ring}" d="M${round(x - r)} ${y} a${r} ${r} 0 1 0 ${2 * r} 0 a${r} ${r} 0 1 0 ${-2 * r} 0Z"/>`;
}

const reach = (kind: 'step' | 'slide' | 'second' | 'jump', parts: string) =>
  `<g class="reach" data-reach="${kind}">${parts}</g>`;

const body = (rx: number, ry: number, extra = '') =>
  `<ellipse class="body" cx="${CX}" cy="${CY}" rx="${round(rx * 1.15)}" ry="${round(ry * 1.12)}"/>${extra}`;

/** An eye on the body, for a bird whose head does not reach out. */
const bodyEye = (dy: number, dx = 4) =>
  `<circle class="eye" cx="${CX - dx}" cy="${CY + dy}" r="1.8"/><circle class="eye" cx="${CX + dx}" cy="${CY + dy}" r="1.8"/>`;

/** A head drawn on the body's top, reaching out nowhere. */
const tuckedHead = (dy = -13) =>
  `<circle class="head" cx="${CX}" cy="${CY + dy}" r="6.5"/>`
  + `<path class="beak" d="M${CX - 2.4} ${CY + dy - 4} L${CX} ${CY + dy - 8.5} L${CX + 2.4} ${CY + dy - 4}Z"/>`
  + `<circle class="eye" cx="${CX - 2.6}" cy="${CY + dy - 1}" r="1.5"/><circle class="eye" cx="${CX + 2.6}" cy="${CY + dy - 1}" r="1.5"/>`;

/** A quail: its foot one step back on one diagonal, its long tail on the other; `facing` 1 for
 * the left quail, -1 for its mirror image. */
function quail(foot: Dir, tail: Dir, facing: 1 | -1): string {
  const speckles = [[-5, 2], [3, 6], [5, -3]].map(([dx, dy]) =>
    `<circle class="speckle" cx="${CX + dx * facing}" cy="${CY + dy}" r="1.6"/>`).join('');
  return [
    reach('step', leg(foot, STEP)),
    reach('slide', feather(tail, 12, SLIDE, 11)),
    body(14, 15, speckles),
    reach('slide', head(N, SLIDE, { size: 6.5, neck: 5 })),
  ].join('');
}

/** Each bird's parts, by its SFEN letter, back to front. */
const BIRDS: Record<string, string> = {
  // The phoenix steps every way: head, raised and spread wings, three tail plumes.
  K: [
    reach('step', feather(SW, 12, STEP, 11) + '<circle class="gold" cx="' + at(SW, STEP - 8).replace(' ', '" cy="') + '" r="2.4"/>'),
    reach('step', feather(S, 12, STEP, 11) + '<circle class="gold" cx="' + at(S, STEP - 8).replace(' ', '" cy="') + '" r="2.4"/>'),
    reach('step', feather(SE, 12, STEP, 11) + '<circle class="gold" cx="' + at(SE, STEP - 8).replace(' ', '" cy="') + '" r="2.4"/>'),
    reach('step', feather(W, 10, STEP, 13)),
    reach('step', feather(E, 10, STEP, 13)),
    reach('step', feather(NW, 10, STEP, 14)),
    reach('step', feather(NE, 10, STEP, 14)),
    body(14, 17, `<path class="gold-line" d="M${CX - 8} ${CY + 4} Q${CX} ${CY + 12} ${CX + 8} ${CY + 4}"/>`),
    reach('step', head(N, STEP, { size: 7 })
      + `<path class="gold" d="M${CX - 5} ${CY - 25} l2 -5 l3 3 l3 -3 l2 5z"/>`),
  ].join(''),
  // The falcon: every way but straight back — wings forward and aside, talons behind, no tail.
  F: [
    reach('step', leg(SW, STEP)),
    reach('step', leg(SE, STEP)),
    reach('step', feather(W, 10, STEP, 11)),
    reach('step', feather(E, 10, STEP, 11)),
    reach('step', feather(NW, 10, STEP, 12)),
    reach('step', feather(NE, 10, STEP, 12)),
    body(13, 16, `<path class="detail" d="M${CX - 6} ${CY + 2} l3 3 l3 -3 l3 3 l3 -3"/>`),
    reach('step', head(N, STEP, { hooked: true })),
  ].join(''),
  // The eagle (a promoted falcon): long wings forward and a long tail, steps ahead and aside,
  // one or two steps back on each diagonal.
  '+F': [
    reach('second', leg(SW, STEP) + second(SW)),
    reach('second', leg(SE, STEP) + second(SE)),
    reach('slide', feather(S, 12, SLIDE, 10)),
    reach('step', feather(W, 10, STEP, 10)),
    reach('step', feather(E, 10, STEP, 10)),
    reach('slide', feather(NW, 10, SLIDE, 13)),
    reach('slide', feather(NE, 10, SLIDE, 13)),
    body(13, 16, `<path class="detail" d="M${CX - 6} ${CY + 2} l3 3 l3 -3 l3 3 l3 -3"/>`),
    reach('step', head(N, STEP, { hooked: true })),
  ].join(''),
  // The crane: every way but sideways — wings up, long legs down, a tail, a red crown.
  C: [
    reach('step', leg(SW, STEP)),
    reach('step', leg(SE, STEP)),
    reach('step', feather(S, 12, STEP, 10)),
    reach('step', feather(NW, 10, STEP, 13)),
    reach('step', feather(NE, 10, STEP, 13)),
    body(12, 16),
    reach('step', head(N, STEP, { size: 6, beak: 8, neck: 4 })
      + `<circle class="crown" cx="${CX}" cy="${round(CY - (STEP - 8 - 6 * 1.15 * 0.8) + 2.5)}" r="2.8"/>`),
  ].join(''),
  // The pheasant: a jump straight ahead (to the sun), a step back on each diagonal (its tail).
  P: [
    reach('step', feather(SW, 12, STEP, 9)),
    reach('step', feather(SE, 12, STEP, 9)),
    reach('jump', jump(N, 'sun')),
    body(13, 17, tuckedHead()),
  ].join(''),
  // The quails: as far as the way is clear ahead (a long neck) and back on the diagonal of the
  // long tail, one step back on the other diagonal (a foot). Each is the other's mirror image.
  L: quail(SW, SE, 1),
  R: quail(SE, SW, -1),
  // The swallow: one step ahead; its wings and forked tail lie folded along the body.
  S: [
    `<path class="body" d="M${CX} ${CY - 17} C${CX + 16} ${CY - 10} ${CX + 13} ${CY + 12} ${CX + 8} ${CY + 22} L${CX} ${CY + 14} L${CX - 8} ${CY + 22} C${CX - 13} ${CY + 12} ${CX - 16} ${CY - 10} ${CX} ${CY - 17}Z"/>`,
    `<path class="detail" d="M${CX - 9} ${CY - 4} Q${CX - 5} ${CY + 9} ${CX - 3.5} ${CY + 15} M${CX + 9} ${CY - 4} Q${CX + 5} ${CY + 9} ${CX + 3.5} ${CY + 15}"/>`,
    `<path class="breast" d="M${CX - 5} ${CY - 9} Q${CX} ${CY - 4} ${CX + 5} ${CY - 9} Q${CX} ${CY - 13} ${CX - 5} ${CY - 9}Z"/>`,
    reach('step', head(N, STEP, { size: 6.5 })),
  ].join(''),
  // The goose (a promoted swallow): jumps two squares ahead on each diagonal and two straight back.
  '+S': [
    reach('jump', jump(NW)),
    reach('jump', jump(NE)),
    reach('jump', jump(S)),
    body(14, 17, tuckedHead() + `<path class="detail" d="M${CX - 8} ${CY + 3} Q${CX} ${CY + 9} ${CX + 8} ${CY + 3}"/>`),
  ].join(''),
  // The owl: one step on each diagonal (ear tufts ahead, feet behind) and aside (wings).
  O: [
    reach('step', leg(SW, STEP)),
    reach('step', leg(SE, STEP)),
    reach('step', feather(W, 11, STEP, 11)),
    reach('step', feather(E, 11, STEP, 11)),
    reach('step', feather(NW, 10, STEP, 10)),
    reach('step', feather(NE, 10, STEP, 10)),
    body(15, 17, `<circle class="face" cx="${CX - 6}" cy="${CY - 5}" r="5.5"/><circle class="face" cx="${CX + 6}" cy="${CY - 5}" r="5.5"/>`
      + bodyEye(-5, 6) + `<path class="beak" d="M${CX - 2} ${CY} L${CX} ${CY + 5} L${CX + 2} ${CY}Z"/>`),
  ].join(''),
  // The shrike: one or two steps straight ahead; the dark mask across its eye.
  M: [
    `<path class="body" d="M${CX} ${CY - 17} C${CX + 17} ${CY - 11} ${CX + 14} ${CY + 14} ${CX} ${CY + 20} C${CX - 14} ${CY + 14} ${CX - 17} ${CY - 11} ${CX} ${CY - 17}Z"/>`,
    `<path class="detail" d="M${CX - 8} ${CY + 2} Q${CX} ${CY + 9} ${CX + 8} ${CY + 2}"/>`,
    reach('second', head(N, STEP, { size: 6.5, hooked: true }) + second(N)
      + `<path class="mask" d="M${CX - 7} ${CY - STEP + 6 + 6.5 * 0.8 - 1.5} h14 v3 h-14z"/>`),
  ].join(''),
};

/** The colours of one side; promoted birds are edged in red whichever side owns them. */
function palette(color: 'sente' | 'gote', promoted: boolean): string {
  const dark = color === 'sente';
  const edge = promoted ? '#b3261e' : dark ? '#141118' : '#2b2631';
  const fills = dark
    ? { body: '#2f2a36', feather: promoted ? '#5e2124' : '#3f3848', shaft: '#a59fb4', eye: '#fffdf5', mark: promoted ? '#b3261e' : '#2f2a36' }
    : { body: '#fffcf4', feather: promoted ? '#fbe3dc' : '#ffffff', shaft: '#8a8296', eye: '#2b2631', mark: promoted ? '#b3261e' : '#2b2631' };
  return `.body,.head,.neck{fill:${fills.body};stroke:${edge};stroke-width:1.6;stroke-linejoin:round}`
    + `.feather{fill:${fills.feather};stroke:${edge};stroke-width:1.6;stroke-linejoin:round}`
    + `.shaft{stroke:${fills.shaft};stroke-width:1;fill:none;stroke-linecap:round}`
    + `.detail{stroke:${fills.shaft};stroke-width:1.2;fill:none;stroke-linecap:round;stroke-linejoin:round}`
    + `.leg{stroke:${edge};stroke-width:3.2;fill:none;stroke-linecap:round;stroke-linejoin:round}`
    + `.eye{fill:${fills.eye}}.face{fill:${dark ? '#4c4456' : '#f1eadb'};stroke:${edge};stroke-width:.8}`
    + `.beak{fill:#e39b2d;stroke:${edge};stroke-width:1;stroke-linejoin:round}`
    + `.mark{fill:${fills.mark};stroke:${edge};stroke-width:1}`
    + `.arc{fill:none;stroke:${edge};stroke-width:1.5;stroke-dasharray:2.4 2;stroke-linecap:round}`
    + `.ring{fill:${fills.feather};stroke:${edge};stroke-width:1.8}`
    + `.sun{fill:#d62828;stroke:${edge};stroke-width:1.2}.crown{fill:#d62828}`
    + `.gold{fill:#e0b030;stroke:${edge};stroke-width:.7}.gold-line{fill:none;stroke:#e0b030;stroke-width:1.6}`
    + `.breast{fill:#c8553d}.speckle{fill:${fills.shaft}}.mask{fill:#141118}.seal{fill:#b3261e}`;
}

/** The SVG text of one bird for one side, or nothing for a letter with no picture. */
export function birdPicture(code: string, color: 'sente' | 'gote'): string | null {
  const parts = BIRDS[code];
  if (!parts) return null;
  const promoted = code.startsWith('+');
  // A promoted bird carries a red seal in the piece's corner as well as its red edges.
  const seal = promoted ? `<circle class="seal" cx="${WIDTH - 16}" cy="${HEIGHT - 12}" r="4.5"/>` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${VIEW}" data-centre="${CX} ${CY}" data-color="${color}">`
    + `<style>${palette(color, promoted)}</style>${parts}${seal}</svg>`;
}

/** The letters that have a picture. */
export const BIRD_CODES = Object.keys(BIRDS);

/** A picture as a CSS `url(...)`. */
export function birdUrl(code: string, color: 'sente' | 'gote'): string | null {
  const svg = birdPicture(code, color);
  return svg ? `url("data:image/svg+xml,${encodeURIComponent(svg)}")` : null;
}
