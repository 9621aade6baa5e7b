// The seek graph, as lishogi draws it: every open seek a dot, its clock across (how long a
// game on it lasts, on a log scale; correspondence and no clock at the right) and its
// player's rating up; a dot's colour is its game. A click on a dot is a click on its row's
// button in the seek list, which stays the keyboard's and screen readers' way in.

import type { TimeControl } from './types';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 360;
const HEIGHT = 170;
const LEFT = 34;
const BOTTOM = 18;
const TOP = 6;
/** Where the clocks end and the band of correspondence and no clock begins. */
const CLOCKS_END = WIDTH - 40;
const RATING_LOW = 800;
const RATING_HIGH = 2400;
/** The clock axis: 1 minute to 3 hours a game. */
const SECONDS_LOW = 60;
const SECONDS_HIGH = 10_800;

/** About how long one side's time lasts in a game of 40 moves (the server's speed estimate),
 * or `null` for correspondence and no clock. */
export function estimatedSeconds(control: TimeControl | undefined): number | null {
  if (!control || control.kind === 'unlimited' || control.kind === 'correspondence') return null;
  if (control.kind === 'fischer') return (control.main_ms + 40 * control.increment_ms) / 1000;
  return (control.main_ms + 40 * control.period_ms) / 1000;
}

/** A seek as the graph places it. */
export interface SeekDot {
  id: string;
  variant: string;
  control: TimeControl | undefined;
  /** The seeker's rating; none for a guest or a casual seek without one. */
  rating: number | null;
  /** What the dot's tooltip says. */
  label: string;
}

export function seekX(control: TimeControl | undefined): number {
  const seconds = estimatedSeconds(control);
  if (seconds === null) return (CLOCKS_END + WIDTH) / 2;
  const clamped = Math.min(SECONDS_HIGH, Math.max(SECONDS_LOW, seconds));
  const share = Math.log(clamped / SECONDS_LOW) / Math.log(SECONDS_HIGH / SECONDS_LOW);
  return LEFT + 6 + share * (CLOCKS_END - LEFT - 12);
}

export function seekY(rating: number | null): number {
  const value = Math.min(RATING_HIGH, Math.max(RATING_LOW, rating ?? 1500));
  return HEIGHT - BOTTOM - ((value - RATING_LOW) / (RATING_HIGH - RATING_LOW)) * (HEIGHT - BOTTOM - TOP);
}

function node(tag: string, attrs: Record<string, string | number>, text?: string) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** The graph of `seeks`; `pick(id)` when a dot is clicked. `words` are the axis labels in the
 * visitor's language. */
export function seekGraph(seeks: SeekDot[], pick: (id: string) => void,
  words: { label: string; corr: string; rating: string }) {
  const svg = node('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'seek-graph', role: 'img', 'aria-label': words.label,
    'data-seek-graph': seeks.length });
  // Rating lines and labels.
  for (const rating of [1000, 1500, 2000]) {
    svg.append(node('line', { x1: LEFT, x2: WIDTH, y1: seekY(rating), y2: seekY(rating), class: 'grid' }));
    svg.append(node('text', { x: LEFT - 4, y: seekY(rating) + 3, class: 'axis', 'text-anchor': 'end' }, String(rating)));
  }
  // Clock ticks: 3, 10, 30 minutes and 1 hour a game.
  for (const [seconds, text] of [[180, '3′'], [600, '10′'], [1800, '30′'], [3600, '1h']] as [number, string][]) {
    const x = seekX({ kind: 'fischer', main_ms: seconds * 1000, increment_ms: 0 });
    svg.append(node('line', { x1: x, x2: x, y1: TOP, y2: HEIGHT - BOTTOM, class: 'grid' }));
    svg.append(node('text', { x, y: HEIGHT - 5, class: 'axis', 'text-anchor': 'middle' }, text));
  }
  svg.append(node('line', { x1: CLOCKS_END, x2: CLOCKS_END, y1: TOP, y2: HEIGHT - BOTTOM, class: 'band' }));
  svg.append(node('text', { x: (CLOCKS_END + WIDTH) / 2, y: HEIGHT - 5, class: 'axis', 'text-anchor': 'middle' }, words.corr));
  svg.append(node('text', { x: 2, y: TOP + 8, class: 'axis' }, words.rating));
  // Seeks at the same place are spread a little so that each can be clicked.
  const taken = new Map<string, number>();
  for (const seek of seeks) {
    const x = seekX(seek.control);
    const y = seekY(seek.rating);
    const key = `${Math.round(x / 8)},${Math.round(y / 8)}`;
    const shift = taken.get(key) ?? 0;
    taken.set(key, shift + 1);
    const dot = node('circle', { cx: x + shift * 9, cy: y, r: 6, class: `dot game-${seek.variant}${seek.rating === null ? ' unrated' : ''}`,
      'data-seek-dot': seek.id });
    dot.append(node('title', {}, seek.label));
    dot.addEventListener('click', () => pick(seek.id));
    svg.append(dot);
  }
  return svg;
}
