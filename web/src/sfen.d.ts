// The types of sfen.js, which stays JavaScript so that its unit tests run in Node as it is.

import type { Color, Key } from 'shogiground/types';

/** A piece on a square as `parseSfen` reads it; `deferred`: under Tenjiku's deferral rule. */
export type SfenCell = { code: string, color: Color, deferred?: boolean };

/** A position as `parseSfen` reads it: rows of squares (left to right from sente's view), the
 * pieces in hand by colour and code, and the side to move. */
export type SfenPosition = {
  files: number,
  ranks: number,
  squares: (SfenCell | null)[][],
  hands: Record<Color, Record<string, number>>,
  turn: Color,
};

/** A USI move as `parseMove` splits it: a drop names the piece, and its one square. */
export type UsiMove = { text: string, drop?: string, squares: Key[], promote: boolean };

/** The square named by a file number (1 on sente's right) and a rank index (0 = rank a). */
export function squareName(file: number, rank: number): Key;

/** The file number and rank index of a square name: `squareOf('12c')` is `{ file: 12, rank: 2 }`. */
export function squareOf(name: string): { file: number, rank: number };

/** Reads `board side hand ply` into rows of pieces (left to right from sente's view). */
export function parseSfen(sfen: string): SfenPosition;

/** Splits USI move text: `3e3d`, `3b3a+`, `S*4d`, and multi-step moves such as `6f5e6d`; none
 * when it is not a move's text. */
export function parseMove(text: string): UsiMove | null;
