// SFEN positions and USI moves as the server writes them, for drawing only: the server checks
// every move. Boards up to 16x16 (two-digit files and empty runs, ranks a to p).

/** The square named by a file number (1 on sente's right) and a rank index (0 = rank a). */
export function squareName(file, rank) {
  return `${file}${String.fromCharCode(97 + rank)}`;
}

/** The file number and rank index of a square name: `squareOf('12c')` is `{ file: 12, rank: 2 }`. */
export function squareOf(name) {
  return { file: Number(name.slice(0, -1)), rank: name.charCodeAt(name.length - 1) - 97 };
}

/** Reads `board side hand ply` into rows of pieces (left to right from sente's view). */
export function parseSfen(sfen) {
  const [board = '', side = 'b', hand = '-'] = sfen.trim().split(/\s+/);
  const squares = board.split('/').map((row) => {
    const cells = [];
    // A piece is a letter with an optional leading '+', and in Tenjiku an optional ' or !
    // after it and '=' for a piece under the deferral rule.
    for (const token of row.match(/\d+|\+?[A-Za-z]['!]?=?/g) || []) {
      if (/^\d+$/.test(token)) {
        for (let i = 0; i < Number(token); i++) cells.push(null);
      } else {
        const code = token.replace('=', '');
        const letter = code.replace('+', '')[0];
        const upper = letter === letter.toUpperCase();
        const cell = { code: code.toUpperCase(), color: upper ? 'sente' : 'gote' };
        if (token.endsWith('=')) cell.deferred = true;
        cells.push(cell);
      }
    }
    return cells;
  });
  const hands = { sente: {}, gote: {} };
  if (hand !== '-') {
    for (const [, count, letter] of hand.matchAll(/(\d*)([A-Za-z])/g)) {
      const color = letter === letter.toUpperCase() ? 'sente' : 'gote';
      const code = letter.toUpperCase();
      hands[color][code] = (hands[color][code] || 0) + (count ? Number(count) : 1);
    }
  }
  return {
    files: squares[0] ? squares[0].length : 0,
    ranks: squares.length,
    squares,
    hands,
    turn: side === 'w' ? 'gote' : 'sente',
  };
}

/** Splits USI move text: `3e3d`, `3b3a+`, `S*4d`, and multi-step moves such as `6f5e6d`. */
export function parseMove(text) {
  const drop = text.match(/^(\+?[A-Z])\*(\d{1,2}[a-z])$/);
  if (drop) return { text, drop: drop[1], squares: [drop[2]], promote: false };
  const body = text.endsWith('+') ? text.slice(0, -1) : text;
  const squares = body.match(/\d{1,2}[a-z]/g);
  if (!squares || squares.join('') !== body || squares.length < 2) return null;
  return { text, squares, promote: text.endsWith('+') };
}
