// The clock's fields of a game's form (the lobby's new game, a challenge): its kind, and the
// times each kind needs, shown only for that kind, with a line saying what it means.

import type { TimeControl } from './types';
import { el } from './dom';
import { t } from './i18n';

export const MAIN_TIMES = [0, 10, 15, 30, 45, 60, 90, 120, 180, 300, 420, 600, 900, 1200, 1500, 1800, 2700, 3600, 5400];

export function secondsText(seconds: number): string {
  if (seconds < 60) return t('lobby.seconds', { seconds });
  return seconds % 60 ? t('lobby.minutes-seconds', { minutes: Math.floor(seconds / 60), seconds: seconds % 60 })
    : t('lobby.minutes', { minutes: seconds / 60 });
}

/** What each kind of clock means, in the visitor's language when read. */
export const CLOCK_WORDS = {
  get byoyomi() { return t('lobby.clock-byoyomi-help'); },
  get fischer() { return t('lobby.clock-fischer-help'); },
  get correspondence() { return t('lobby.clock-correspondence-help'); },
  get unlimited() { return t('lobby.clock-unlimited-help'); },
};

/** The clock's fields: `row` (kind and times) and `help` go in the form; `value()` is the
 * clock chosen; `show()` shows the kind's fields (call it once the form is built), and `onChange` runs
 * each time it does. */
export function clockFields(onChange: (kind: string) => void = () => {}) {
  const num = (name: string, value: number, min: number, max: number) =>
    el('input', { type: 'number', name, value, min, max, style: 'width:5rem' }) as HTMLInputElement;
  const mainTime = el('select', { name: 'main' },
    MAIN_TIMES.map((s) => el('option', { value: s, selected: s === 600 }, secondsText(s)))) as HTMLSelectElement;
  const periods = num('periods', 1, 1, 10);
  const periodSec = num('period', 30, 1, 600);
  const incSec = num('increment', 5, 0, 180);
  const help = el('small', { class: 'help', 'data-clock-help': '' });
  const mainField = el('label', {}, `${t('lobby.main-time')} `, mainTime);
  const byoyomiFields = el('span', { class: 'row' }, el('label', {}, `${t('lobby.periods')} `, periods),
    el('label', {}, `${t('lobby.period-of')} `, periodSec, ` ${t('lobby.period-seconds')}`));
  const fischerFields = el('label', {}, `${t('lobby.increment')} `, incSec, ` ${t('lobby.increment-per-move')}`);
  const days = el('select', { name: 'days' },
    Array.from({ length: 14 }, (_, i) => i + 1).map((n) => el('option', { value: n, selected: n === 3 }, n))) as HTMLSelectElement;
  const daysField = el('label', {}, days, ` ${t('lobby.days-per-move')}`);
  const kind = el('select', { name: 'clock', onchange: () => show() },
    el('option', { value: 'byoyomi' }, t('lobby.clock-byoyomi')), el('option', { value: 'fischer' }, t('lobby.clock-fischer')),
    el('option', { value: 'correspondence' }, t('lobby.clock-correspondence')),
    el('option', { value: 'unlimited' }, t('lobby.clock-unlimited'))) as HTMLSelectElement;
  function show() {
    mainField.hidden = kind.value === 'unlimited' || kind.value === 'correspondence';
    byoyomiFields.hidden = kind.value !== 'byoyomi';
    fischerFields.hidden = kind.value !== 'fischer';
    daysField.hidden = kind.value !== 'correspondence';
    // The select's values are the four kinds.
    help.textContent = CLOCK_WORDS[kind.value as keyof typeof CLOCK_WORDS];
    onChange(kind.value);
  }
  function value(): TimeControl {
    const mainMs = Number(mainTime.value) * 1000;
    if (kind.value === 'byoyomi') {
      return { kind: 'byoyomi', main_ms: mainMs, periods: Number(periods.value), period_ms: Number(periodSec.value) * 1000 };
    }
    if (kind.value === 'fischer') return { kind: 'fischer', main_ms: mainMs, increment_ms: Number(incSec.value) * 1000 };
    if (kind.value === 'correspondence') return { kind: 'correspondence', days_per_move: Number(days.value) };
    return { kind: 'unlimited' };
  }
  const row = el('div', { class: 'row' }, el('label', {}, `${t('lobby.clock')} `, kind), mainField, byoyomiFields, fischerFields, daysField);
  return { row, help, kind, show, value };
}
