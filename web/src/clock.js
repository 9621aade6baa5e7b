// What a player's clock shows between the server's reports.

/**
 * A clock `spent` ms after the server reported `view`: main time first, then byo-yomi. The
 * view's `period_ms` is what is left of the current period (the whole period while main time
 * lasts); the period's length is the time control's.
 */
export function clockAt(view, control, spent) {
  let remaining = view.remaining_ms;
  let period = view.period_ms;
  let periodsLeft = view.periods;
  const fromMain = Math.min(spent, remaining);
  remaining -= fromMain;
  spent -= fromMain;
  const length = control.period_ms || 0;
  if (spent > 0 && periodsLeft > 0 && length > 0) {
    if (spent < period) {
      period -= spent;
    } else {
      // The current period ran out; each later one lasts the whole length.
      const over = spent - period;
      const used = 1 + Math.floor(over / length);
      periodsLeft = Math.max(0, periodsLeft - used);
      period = periodsLeft > 0 ? length - (over % length) : 0;
    }
  }
  return { remaining, period, periodsLeft };
}

/** Under ten seconds a clock shows tenths, as on the play sites. */
export const TENTHS_BELOW_MS = 10_000;

/**
 * A clock's text: `h:mm:ss` or `m:ss`, whole seconds rounded up (a clock showing 0:00 has
 * fallen); under ten seconds `0:09.4`, tenths rounded down.
 */
export function formatClock(ms) {
  const left = Math.max(0, ms);
  if (left < TENTHS_BELOW_MS) {
    const tenths = Math.floor(left / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const total = Math.ceil(left / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}
