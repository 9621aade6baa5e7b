// The rules pages, with each piece's moves drawn.

import { parseSfen } from './sfen.js';
import { page, store } from './state';
import { Board } from './board';
import { el } from './dom';
import { OPTION_WORDS, type OptionWords } from './options';
import { PROMOTION_WORDS, diagramLegend, diagramRadius, moveDiagram, pieceFace, powerNotes } from './pieceinfo';
import { app } from './prefs';
import { title, variantInfo } from './util';
import { gameTitle, lang, pieceName, t, tn } from './i18n';
import type { RoleInfo } from './types';

// Read through the catalogue each time a page draws them, so that they follow the language.
// Looked up by the variant's name: a game without an intro has none.
export const RULES_INTRO: Partial<Record<string, string>> = {
  get tori() { return t('rules.intro-tori'); },
  get wa() { return t('rules.intro-wa'); },
  get tenjiku() { return t('rules.intro-tenjiku'); },
};

// When a move promotes, per game (the rules library checks it; these are its words).
/** How to read the pieces drawn when the Pieces switch is on pictures. */
function pictureLegend(which: 'tori' | 'marks'): string {
  return which === 'tori' ? t('rules.legend-pictures-tori') : t('rules.legend-pictures-marks');
}

/** A piece's name as a card or a rule starts it: "Swallow", 燕. */
const named = (r: Pick<RoleInfo, 'name' | 'kanji'>) => pieceName({ name: title(r.name), kanji: r.kanji });

export function rulesPage(name: string): void {
  const variant = variantInfo(name) || store.variants[0];
  const radius = diagramRadius(variant);
  const setup = new Board({ onMove: () => {} });
  // Bigger boards get smaller squares, so that each start position fits a page.
  setup.zoom = variant.files <= 7 ? 34 : variant.files <= 11 ? 26 : 20;
  const counts = parseSfen(variant.start_sfen).squares.flat().filter((c) => c && c.color === 'sente').length;
  const promoting = variant.roles.filter((r) => r.promotes_to);
  const royals = variant.roles.filter((r) => r.royal).map((r) => pieceName(r));
  const promotion = { zone: variant.promotion_zone, count: promoting.length, how: PROMOTION_WORDS[variant.name] || t('rules.promotion-default') };
  const facts = [
    t('rules.fact-board', { files: variant.files, ranks: variant.ranks, count: counts }),
    royals.length > 1
      ? t('rules.fact-aim-others', { royal: royals[0], others: royals.slice(1).join(t('rules.royal-separator')) })
      : t('rules.fact-aim', { royal: royals[0] ?? '' }),
    variant.drops ? t('rules.fact-drops') : t('rules.fact-no-drops'),
    variant.drops ? t('rules.fact-promotion-drops', promotion) : t('rules.fact-promotion', promotion),
    ...variant.roles.filter((r) => r.drop && (r.drop.max_per_file || r.drop.barred_far_ranks || r.drop.mate_restricted)).map((r) => {
      const limits = [];
      if (r.drop.max_per_file) limits.push(t('rules.drop-per-file', { count: r.drop.max_per_file, piece: pieceName(r) }));
      if (r.drop.barred_far_ranks) limits.push(tn('rules.drop-last-ranks', r.drop.barred_far_ranks));
      if (r.drop.mate_restricted) limits.push(t('rules.drop-mate'));
      return t('rules.drop-limits', { piece: named(r), limits: limits.join(t('rules.limit-separator')) });
    }),
  ].filter(Boolean);
  const cards = variant.roles.filter((r) => !r.promoted_from).map((role) => {
    const promoted = role.promotes_to ? variant.roles.find((r) => r.sfen === role.promotes_to) : null;
    const side = (r: RoleInfo) => el('div', { class: 'piece-rule', 'data-piece': r.sfen },
      el('h3', {}, el('span', { class: 'card-face' }, pieceFace(variant, r)), named(r), ' ',
        el('small', {}, lang() === 'ja' ? r.hodges : `${r.kanji} · ${r.hodges}`)),
      moveDiagram(variant, r, radius),
      powerNotes(r).map((note) => el('p', { class: 'note' }, note)));
    return el('section', { class: 'panel piece-card' }, side(role),
      promoted ? el('div', { class: 'promotes' }, el('p', { class: 'note' }, t('rules.promotes-to', { piece: pieceName(promoted) })), side(promoted)) : null);
  });
  const options = variant.options.map((option) => {
    const words: Partial<OptionWords> = OPTION_WORDS[option.name] || {};
    return el('li', {}, el('strong', {}, `${words.title || option.name}: `),
      words.values ? option.values.map((v) => `${v === option.values[0] ? '' : '; '}${words.values![v] || v}`).join('')
        : (words.number || option.help));
  });
  app.replaceChildren(el('div', { class: 'rules' },
    el('nav', { class: 'rule-tabs' }, store.variants.map((v) => el('a', { href: `/rules/${v.name}`,
      class: v.name === variant.name ? 'current' : '' }, gameTitle(v)))),
    el('h1', {}, t('rules.heading', { game: gameTitle(variant) })),
    el('p', {}, RULES_INTRO[variant.name] || ''),
    el('div', { class: 'rules-top' }, setup.root, el('section', { class: 'panel' }, el('h2', {}, t('rules.how-played')),
      el('ul', {}, facts.map((f) => el('li', {}, f))))),
    el('h2', {}, t('rules.the-pieces')),
    diagramLegend(variant),
    el('p', { class: 'legend', 'data-pictures-legend': '' }, pictureLegend(variant.name === 'tori' ? 'tori' : 'marks')),
    el('div', { class: 'piece-cards' }, cards),
    options.length ? [el('h2', {}, t('rules.rule-options')), el('ul', {}, options)] : null));
  setup.setState({ variant: variant.name, sfen: variant.start_sfen, interactive: false });
  page.cleanup = () => setup.destroy();
  page.rerender = () => setup.render();
}

// ---------------------------------------------------------------------------------------------
