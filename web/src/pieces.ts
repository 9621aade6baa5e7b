// Piece faces: the CSS classes and images of a game's pieces, and a small board picture.

import { parseSfen } from './sfen.js';
import { el } from './dom';
import type { RoleInfo, VariantInfo } from './types';
import { variantInfo } from './util';
import { birdUrl } from './birds';
import { marksUrl } from './marks';

export function roleClass(info: Pick<RoleInfo, 'name'>, index: number): string {
  return `${info.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${index}`;
}

/** Shogiground's piece faces come from CSS: one rule per piece kind and variant, kanji by
 * default, Hodges letters when the page's pieces are Latin, and when they are pictures, Tori's
 * birds and Wa's and Tenjiku's kanji with move marks. Built once per variant. */
export function pieceStyles(variant: VariantInfo, roles: Map<string, string>): string {
  // Each character is escaped; `\A ` between two kanji starts a new line (they stand one above
  // the other, as written on a real piece).
  const quote = (parts: string[]) => `"${parts.map((part) => part.replace(/["\\]/g, '\\$&')).join('\\A ')}"`;
  const rules = [];
  for (const [code, role] of roles) {
    const info = variant.roles.find((r) => r.sfen === code);
    const kanji = [...(info?.kanji || code)];
    const latin = info ? info.hodges.replace('+', '') : code;
    const size = kanji.length > 1 ? 'two' : 'one';
    rules.push(`.pieces-${variant.name} piece.${role}::after { content: ${quote(kanji)}; }`,
      `.pieces-${variant.name} piece.${role} { --glyphs: var(--glyphs-${size}); }`,
      `[data-pieces="latin"] .pieces-${variant.name} piece.${role}::after { content: ${quote([latin])}; }`);
    for (const color of ['sente', 'gote'] as const) {
      const picture = variant.name === 'tori' && birdUrl(code, color);
      if (picture) rules.push(`[data-pieces="pictures"] .pieces-tori piece.${role}.${color}::after { content: ""; background-image: ${picture}; }`);
    }
    // Wa's and Tenjiku's pictures are their kanji with move marks on the wood around them.
    const marks = variant.name !== 'tori' && info && marksUrl(info);
    if (marks) rules.push(`[data-pieces="pictures"] .pieces-${variant.name} piece.${role}::before { background-image: ${marks}, var(--piece-wood); }`);
    if (code.startsWith('+')) rules.push(`.pieces-${variant.name} piece.${role} { --piece-ink: var(--promoted); }`);
  }
  return rules.join('\n');
}

/** A board widget on shogiground: position, selection, legal destinations (with the choice
 * between moves that reach the same square), hands and drops, flip, zoom, last move, check. */
export function ensurePieceStyles(variant: VariantInfo): void {
  const styleId = `pieces-${variant.name}`;
  if (document.getElementById(styleId)) return;
  const roles = new Map(variant.roles.map((info, index) => [info.sfen, roleClass(info, index)]));
  document.head.append(el('style', { id: styleId }, pieceStyles(variant, roles)));
}

/** A small picture of a position: squares and pieces, no hands, not interactive. */
export function miniBoard(variantName: string, sfen: string, cell: number): HTMLElement {
  // A game the server does not list has no board to draw: this throws, as it always did.
  const variant = variantInfo(variantName)!;
  // sfen.js is plain JavaScript: what it reads is typed in board.ts.
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
