// The rules pages, with each piece's moves drawn.

import { parseSfen } from './sfen.js';
import { page, store } from './state';
import { Board } from './board';
import { el } from './dom';
import { OPTION_WORDS } from './options';
import { PROMOTION_WORDS, diagramRadius, hasPowers, moveDiagram, pieceFace, powerNotes } from './pieceinfo';
import { app } from './prefs';
import { title, variantInfo } from './util';

export const RULES_INTRO = {
  tori: 'Tori shogi ("bird shogi"), invented by Toyota Genryū in 1799, is a small, sharp game of birds on a 7×7 board in which captured birds come back as drops, as in shogi.',
  wa: 'Wa shogi ("harmony shogi") is a large-board shogi in which every piece is named for an animal. It is played with drops, as most players do today, or without them.',
  tenjiku: 'Tenjiku shogi ("exotic shogi"), dating back to the 15th or 16th century, is played on a 16×16 board: fire demons burn their neighbours, lions move twice, and generals jump along whole lines of lesser pieces.',
};

// When a move promotes, per game (the rules library checks it; these are its words).
/** How to read the pieces drawn when the Pieces switch is on pictures. */
const PICTURE_LEGEND = {
  tori: 'The pictures (the Pieces switch in the top bar): every bird reaches out along the lines it moves on. '
    + 'A short head, wing, tail or foot is one step; a long one goes as far as the way is clear; a diamond '
    + 'beyond a short one, one or two steps; a dashed arc to a ring, a jump to the second square. '
    + 'Sente\'s birds are dark and gote\'s light; a promoted bird is edged in red with a red seal.',
  marks: 'The pictures (the Pieces switch in the top bar) mark each piece\'s moves around its kanji: a dot for '
    + 'each square it steps to, a line for each way it goes as far as the way is clear, a ring for a square it '
    + 'jumps to; marks in red are powers described on its card.',
};

export function rulesPage(name) {
  const variant = variantInfo(name) || store.variants[0];
  const radius = diagramRadius(variant);
  const setup = new Board({ onMove: () => {} });
  // Bigger boards get smaller squares, so that each start position fits a page.
  setup.zoom = variant.files <= 7 ? 34 : variant.files <= 11 ? 26 : 20;
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
      el('h3', {}, el('span', { class: 'card-face' }, pieceFace(variant, r)), title(r.name), ' ', el('small', {}, `${r.kanji} · ${r.hodges}`)),
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
    el('nav', { class: 'rule-tabs' }, store.variants.map((v) => el('a', { href: `/rules/${v.name}`,
      class: v.name === variant.name ? 'current' : '' }, v.title))),
    el('h1', {}, `${variant.title}: the rules`),
    el('p', {}, RULES_INTRO[variant.name] || ''),
    el('div', { class: 'rules-top' }, setup.root, el('section', { class: 'panel' }, el('h2', {}, 'How it is played'),
      el('ul', {}, facts.map((f) => el('li', {}, f))))),
    el('h2', {}, 'The pieces'),
    el('p', { class: 'legend' }, 'Seen from sente (moving up). ',
      el('span', { class: 'cell step' }), ' one move to that square  ',
      el('span', { class: 'cell slide' }), ' any distance along the line, over empty squares  ',
      hasPowers(variant) ? [el('span', { class: 'cell lion' }), ' lion move  ', el('span', { class: 'cell area' }), ' area move  ',
        el('span', { class: 'cell jump' }), ' range jump  ', el('span', { class: 'cell burn' }), ' burned'] : null),
    el('p', { class: 'legend', 'data-pictures-legend': '' }, PICTURE_LEGEND[variant.name === 'tori' ? 'tori' : 'marks']),
    el('div', { class: 'piece-cards' }, cards),
    options.length ? [el('h2', {}, 'Rule options'), el('ul', {}, options)] : null));
  setup.setState({ variant: variant.name, sfen: variant.start_sfen, interactive: false });
  page.cleanup = () => setup.destroy();
  page.rerender = () => setup.render();
}

// ---------------------------------------------------------------------------------------------
