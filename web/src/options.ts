// Rule options in words, and their form fields.

import { el } from './dom';
import { variantInfo } from './util';

export const OPTION_WORDS = {
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

export function optionFields(variantName, container) {
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
