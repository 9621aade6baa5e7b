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
