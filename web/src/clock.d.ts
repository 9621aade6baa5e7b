// The types of clock.js, which stays JavaScript so that its unit tests run in Node as it is.

import type { ClockView, TimeControl } from './types';

/** What a clock shows: main time left, what is left of the current byo-yomi period, and the
 * periods left. */
export type ClockReading = { remaining: number, period: number, periodsLeft: number };

/** A clock `spent` ms after the server reported `view`: main time first, then byo-yomi. */
export function clockAt(view: ClockView, control: TimeControl, spent: number): ClockReading;

/** Under ten seconds a clock shows tenths, as on the play sites. */
export const TENTHS_BELOW_MS: number;

/** A clock's text: `h:mm:ss` or `m:ss`; under ten seconds `0:09.4`. */
export function formatClock(ms: number): string;
