// Unit tests of the SFEN and move parsing the board draws from (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSfen, parseMove, squareName, squareOf } from '../src/sfen.js';

test('tori start position', () => {
  const p = parseSfen('rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1');
  assert.equal(p.files, 7);
  assert.equal(p.ranks, 7);
  assert.deepEqual(p.squares[0][3], { code: 'K', color: 'gote' });
  assert.deepEqual(p.squares[6][0], { code: 'L', color: 'sente' });
  assert.equal(p.turn, 'sente');
});

test('hands, promoted pieces and two-digit runs', () => {
  const p = parseSfen('11/+s10/11/11/11/11/11/11/11/11/5K5 w 2Sp 9');
  assert.equal(p.files, 11);
  assert.deepEqual(p.squares[1][0], { code: '+S', color: 'gote' });
  assert.deepEqual(p.hands, { sente: { S: 2 }, gote: { P: 1 } });
  assert.equal(p.turn, 'gote');
});

test('tenjiku codes: suffixes, promoted forms and the deferral mark', () => {
  const p = parseSfen("lnficsgekgscifnl/a1c!c!1txql!ot1c!c!1a/s'v'bhdw!d!q'h!d!w!dhbv's'/16/16/4d'6d'4/16/16/16/16/4D'6D'4/16/16/16/16/K3+E!G=10 b - 1");
  assert.equal(p.files, 16);
  assert.equal(p.ranks, 16);
  assert.deepEqual(p.squares[1][2], { code: 'C!', color: 'gote' });
  assert.deepEqual(p.squares[2][0], { code: "S'", color: 'gote' });
  assert.deepEqual(p.squares[5][4], { code: "D'", color: 'gote' });
  assert.deepEqual(p.squares[15][4], { code: '+E!', color: 'sente' });
  assert.deepEqual(p.squares[15][5], { code: 'G', color: 'sente', deferred: true });
  assert.equal(p.squares[15].length, 16);
});

test('moves of every shape', () => {
  assert.deepEqual(parseMove('3b3a+'), { text: '3b3a+', squares: ['3b', '3a'], promote: true });
  assert.deepEqual(parseMove('S*4d'), { text: 'S*4d', drop: 'S', squares: ['4d'], promote: false });
  assert.deepEqual(parseMove('6f5e6d').squares, ['6f', '5e', '6d']);
  assert.deepEqual(parseMove('16p15o').squares, ['16p', '15o']);
  assert.equal(parseMove('junk'), null);
});

test('square names and their coordinates go both ways, two-digit files included', () => {
  for (const [name, file, rank] of [['1a', 1, 0], ['7g', 7, 6], ['12c', 12, 2], ['16p', 16, 15]]) {
    assert.deepEqual(squareOf(name), { file, rank });
    assert.equal(squareName(file, rank), name);
  }
});
