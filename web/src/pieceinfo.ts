// A piece's moves as a diagram and in words.

import { el } from './dom';
import type { RoleInfo, VariantInfo } from './types';
import { roleClass } from './pieces';
import { pieceName, t } from './i18n';

// Read through the catalogue each time a page draws them, so that they follow the language.
// Looked up by the variant's name: other games have none.
export const PROMOTION_WORDS: Partial<Record<string, string>> = {
  get tori() { return t('rules.promotion-tori'); },
  get wa() { return t('rules.promotion-wa'); },
  get tenjiku() { return t('rules.promotion-tenjiku'); },
};

// What the powers of Tenjiku pieces mean, in words, next to their diagrams.
export const POWER_WORDS = {
  get lion() { return t('rules.power-lion'); },
  get 'lion-hawk'() { return t('rules.power-lion-hawk'); },
  get line() { return t('rules.power-line'); },
  area: (n: number) => t('rules.power-area', { n }),
  get burns() { return t('rules.power-burns'); },
  jump: (level: number) => t('rules.power-jump', { level }),
  get tetrarch() { return t('rules.power-tetrarch'); },
  get free_eagle() { return t('rules.power-free-eagle'); },
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

/** What the marks of a game's diagrams mean (the powers' only where the game has them). */
export function diagramLegend(variant: VariantInfo): HTMLElement {
  // Each mark and its meaning are one item, so that where the line wraps a mark never ends up
  // beside the meaning of the next.
  const item = (kind: MarkKind, label: string) =>
    el('span', { class: 'legend-item' }, el('span', { class: `cell ${kind}` }), el('span', {}, label));
  return el('p', { class: 'legend' }, el('span', {}, t('rules.legend-seen')),
    item('step', t('rules.legend-step')), item('slide', t('rules.legend-slide')),
    hasPowers(variant) ? [item('lion', t('rules.legend-lion')), item('area', t('rules.legend-area')),
      item('jump', t('rules.legend-jump')), item('burn', t('rules.legend-burn'))] : null);
}

/** What reaches a square of a diagram: a step, a slide, or one of the Tenjiku powers. */
export type MarkKind = 'step' | 'slide' | 'lion' | 'area' | 'jump' | 'burn';

/** The squares a diagram marks, keyed `left,forward`, with what reaches them. */
export function diagramMarks(role: RoleInfo, radius: number): Map<string, MarkKind[]> {
  const marks = new Map<string, MarkKind[]>();
  const mark = (left: number, forward: number, kind: MarkKind) => {
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
    const around = (reach: number, kind: MarkKind) => {
      for (let l = -reach; l <= reach; l++) for (let f = -reach; f <= reach; f++) mark(l, f, kind);
    };
    if (powers.lion === 'full' || powers.lion === 'lion-hawk') around(2, 'lion');
    // A lion power is a word ('full', 'lion-hawk') or the lines of its steps.
    const lines = (typeof powers.lion === 'object' && powers.lion?.line) || [];
    for (const [l, f] of lines) { mark(l, f, 'lion'); mark(2 * l, 2 * f, 'lion'); }
    if (powers.area) around(powers.area, 'area');
    for (const [l, f] of powers.range_jump?.directions || []) for (let n = 1; n <= radius; n++) mark(l * n, f * n, 'jump');
    if (powers.burns) around(1, 'burn');
  }
  return marks;
}

/** A movement diagram: the piece in the middle, every square it reaches marked. */
export function moveDiagram(variant: VariantInfo, role: RoleInfo, radius: number): HTMLElement {
  const marks = diagramMarks(role, radius);
  const grid = el('div', { class: 'diagram', style: `--cells:${2 * radius + 1}`, role: 'img',
    'aria-label': t('rules.diagram-label', { piece: pieceName(role) }) });
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
export function pieceFace(variant: VariantInfo, role: RoleInfo): HTMLElement {
  const index = variant.roles.indexOf(role);
  return el('span', { class: `pieces-${variant.name} rule-piece` },
    el('piece', { class: `${roleClass(role, index)} sente` }));
}

/** The notes under a Tenjiku piece's diagram. */
export function powerNotes(role: RoleInfo): string[] {
  const p = role.powers;
  if (!p) return [];
  const notes = [];
  if (p.lion === 'full') notes.push(POWER_WORDS.lion);
  if (p.lion === 'lion-hawk') notes.push(POWER_WORDS['lion-hawk']);
  if (typeof p.lion === 'object' && p.lion?.line) notes.push(POWER_WORDS.line);
  if (p.area) notes.push(POWER_WORDS.area(p.area));
  if (p.range_jump) notes.push(POWER_WORDS.jump(p.range_jump.level));
  if (p.burns) notes.push(POWER_WORDS.burns);
  if (p.tetrarch) notes.push(POWER_WORDS.tetrarch);
  if (p.free_eagle) notes.push(POWER_WORDS.free_eagle);
  return notes;
}
