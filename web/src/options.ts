// Rule options in words, and their form fields.

import { el } from './dom';
import { gameTitle, t } from './i18n';
import { variantInfo } from './util';

/** An option's words: its title, and its values' words or a number field's help. */
export type OptionWords = {
  readonly title: string; readonly values?: Readonly<Record<string, string>>; readonly number?: string;
};

// Each word is read in the visitor's language when asked, so a redrawn page follows the choice.
// An option the catalogue does not know has none.
export const OPTION_WORDS: Readonly<Record<string, OptionWords | undefined>> = {
  'drop-mate': { get title() { return t('options.drop-mate'); }, values: {
    get loses() { return t('options.drop-mate-loses'); },
    get illegal() { return t('options.drop-mate-illegal'); } } },
  repetition: { get title() { return t('options.repetition'); }, values: {
    get 3() { return t('options.repetition-3'); },
    get 4() { return t('options.repetition-4'); } } },
  owl: { get title() { return t('options.owl'); }, values: {
    get off() { return t('options.owl-off'); }, get on() { return t('options.owl-on'); } } },
  shrike: { get title() { return t('options.shrike'); }, values: {
    get off() { return t('options.shrike-off'); }, get on() { return t('options.shrike-on'); } } },
  handicap: { get title() { return t('options.handicap'); }, values: {
    get none() { return t('options.handicap-none'); },
    get 'left-quail'() { return t('options.handicap-left-quail'); },
    get falcon() { return t('options.handicap-falcon'); },
    get 'falcon-left-quail'() { return t('options.handicap-falcon-left-quail'); },
    get 'falcon-both-quails'() { return t('options.handicap-falcon-both-quails'); } } },
  drops: { get title() { return t('options.drops'); }, values: {
    get on() { return t('options.drops-on'); },
    get off() { return t('options.drops-off'); } } },
  'max-plies': { get title() { return t('options.max-plies'); }, get number() { return t('options.max-plies-number'); } },
  'lion-hawk': { get title() { return t('options.lion-hawk'); }, values: {
    get lion() { return t('options.lion-hawk-lion'); }, get tsa() { return t('options.lion-hawk-tsa'); } } },
  'free-eagle': { get title() { return t('options.free-eagle'); }, values: {
    get english() { return t('options.free-eagle-english'); },
    get japanese() { return t('options.free-eagle-japanese'); } } },
  'demon-conflict': { get title() { return t('options.demon-conflict'); }, values: {
    get tsa() { return t('options.demon-conflict-tsa'); }, get adams() { return t('options.demon-conflict-adams'); } } },
  'range-jump': { get title() { return t('options.range-jump'); }, values: {
    get capture() { return t('options.range-jump-capture'); }, get always() { return t('options.range-jump-always'); } } },
  promotion: { get title() { return t('options.promotion'); }, values: {
    get deferred() { return t('options.promotion-deferred'); },
    get entry() { return t('options.promotion-entry'); } } },
  mate: { get title() { return t('options.mate'); }, values: {
    get ends() { return t('options.mate-ends'); }, get 'play-on'() { return t('options.mate-play-on'); } } },
};

export function optionFields(variantName: string, container: HTMLElement) {
  container.replaceChildren();
  const info = variantInfo(variantName);
  if (!info || !info.available) {
    container.append(el('p', { class: 'error' }, t('options.not-playable', { game: gameTitle(info, variantName) })));
    return;
  }
  for (const option of info.options) {
    const words: Partial<OptionWords> = OPTION_WORDS[option.name] || {};
    const title = words.title || option.name;
    if (option.number) {
      // A limit: a number, or empty for the option's word (`off`).
      const input = el('input', { type: 'number', name: `opt-${option.name}`, 'data-option': option.name,
        'data-none': option.values[0] || '', min: option.number.min, max: option.number.max,
        placeholder: t('options.no-limit'), style: 'width:7rem' });
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
