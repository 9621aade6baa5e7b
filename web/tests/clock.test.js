// Unit tests of the clock the board shows between the server's reports (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clockAt, formatClock } from '../src/clock.js';

const byoyomi = { kind: 'byoyomi', main_ms: 0, periods: 3, period_ms: 3000 };

test('main time runs out first, then the periods', () => {
  const view = { remaining_ms: 1000, periods: 3, period_ms: 3000 };
  assert.deepEqual(clockAt(view, byoyomi, 400), { remaining: 600, period: 3000, periodsLeft: 3 });
  assert.deepEqual(clockAt(view, byoyomi, 2500), { remaining: 0, period: 1500, periodsLeft: 3 });
  assert.deepEqual(clockAt(view, byoyomi, 4500), { remaining: 0, period: 2500, periodsLeft: 2 });
});

test('a report in the middle of a period counts the rest of it, then whole periods', () => {
  // The server reported 2.4 s left of the current period and 2 periods (this one included).
  const view = { remaining_ms: 0, periods: 2, period_ms: 2400 };
  assert.deepEqual(clockAt(view, byoyomi, 1000), { remaining: 0, period: 1400, periodsLeft: 2 });
  assert.deepEqual(clockAt(view, byoyomi, 3000), { remaining: 0, period: 2400, periodsLeft: 1 });
  assert.deepEqual(clockAt(view, byoyomi, 5500), { remaining: 0, period: 0, periodsLeft: 0 });
});

test('no time passes for the side not to move, and Fischer has no periods', () => {
  const view = { remaining_ms: 0, periods: 2, period_ms: 2400 };
  assert.deepEqual(clockAt(view, byoyomi, 0), { remaining: 0, period: 2400, periodsLeft: 2 });
  const fischer = { kind: 'fischer', main_ms: 60000, increment_ms: 1000 };
  const running = { remaining_ms: 5000, periods: 0, period_ms: 0 };
  assert.deepEqual(clockAt(running, fischer, 7000), { remaining: 0, period: 0, periodsLeft: 0 });
});

test('clocks show tenths under ten seconds, whole seconds rounded up above', () => {
  assert.equal(formatClock(600000), '10:00');
  assert.equal(formatClock(59001), '1:00');
  assert.equal(formatClock(10000), '0:10');
  assert.equal(formatClock(9999), '0:09.9');
  assert.equal(formatClock(9450), '0:09.4');
  assert.equal(formatClock(99), '0:00.0');
  assert.equal(formatClock(-5), '0:00.0');
  assert.equal(formatClock(3723000), '1:02:03');
});
