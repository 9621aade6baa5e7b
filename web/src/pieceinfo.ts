// A piece's moves as a diagram and in words.

import { el } from './dom';
import type { VariantInfo } from './types';
import { roleClass } from './pieces';

export const PROMOTION_WORDS = {
  tori: 'and must, on any move that starts or ends in it (into, within or out of); a falcon dropped in the zone promotes on its next move',
  wa: 'if the player wishes, on any move that starts or ends in it; a piece that could never move again (a sparrow pawn or oxcart on the last rank) must',
  tenjiku: 'if the player wishes; which moves may promote is set by the promotion rule option below',
};

// What the powers of Tenjiku pieces mean, in words, next to their diagrams.
export const POWER_WORDS = {
  lion: 'Lion power: two king steps in one move, capturing on either square or both; it may capture an adjacent piece without moving (igui), jump to any square two away, or pass.',
  'lion-hawk': 'Lion power as the lion\'s (under the "tsa" option: any move within two squares instead).',
  line: 'Lion power along the marked lines: one or two steps with a capture on either or both, igui on the first square, or a pass.',
  area: (n) => `Area move: up to ${n} king steps in one move through empty squares, ending on a capture or an empty square (or back where it started: a pass).`,
  burns: 'Burns: after it moves, every enemy piece on the eight squares around it is removed, except enemy fire demons; and an enemy piece whose move ends next to it is removed too (kings included). A fire demon that ends its move next to an enemy one is burned itself (see the rule options).',
  jump: (level) => `Range jump along the marked lines: it jumps over any number of pieces of lower rank (level ${level}) to capture beyond them.`,
  tetrarch: 'Heavenly tetrarch: igui on all eight neighbours; slides diagonally and vertically from the second square on (jumping the first); moves two or three squares sideways, jumping the first.',
  free_eagle: 'Its moves depend on the free-eagle rule option (see below).',
};

/** How far from a piece its game's diagrams reach: the farthest power of any of its pieces (a
 * lion's second step, an area move, the tetrarch's three squares), at least two, and one square
 * to spare to show a slide going on. */
export function diagramRadius(variant: VariantInfo): number {
  let reach = 2;
  for (const role of variant.roles) {
    const p = role.powers;
    if (p) reach = Math.max(reach, p.lion ? 2 : 0, p.area, p.tetrarch ? 3 : 0);
  }
  return reach + 1;
}

/** Whether any piece of the game has powers beyond its moves (lion, area, jumps, burning). */
export function hasPowers(variant: VariantInfo): boolean {
  return variant.roles.some((role) => role.powers);
}

/** The squares a diagram marks, keyed `left,forward`, with what reaches them. */
export function diagramMarks(role, radius) {
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
export function moveDiagram(variant, role, radius) {
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
export function pieceFace(variant, role) {
  const index = variant.roles.indexOf(role);
  return el('span', { class: `pieces-${variant.name} rule-piece` },
    el('piece', { class: `${roleClass(role, index)} sente` }));
}

/** The notes under a Tenjiku piece's diagram. */
export function powerNotes(role) {
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
