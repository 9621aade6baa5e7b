// Browser tests of the puzzles: solutions and moves as good, wrong moves, hints, the next and the day's
// puzzle, Tenjiku puzzles, and the puzzle rating on a player's page.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  base, root, useServer, newPage, otherPersonPage, playByClicks, shot, click, signUp,
} from './support.js';

useServer();

test('Puzzles: a move that mates as fast as the solution\'s is right, and the puzzle goes on from it to the mate', async () => {
  // A mate in three whose first move can also be a falcon dropped on 5e: the engine finds
  // the defender mated as fast after it.
  const id = '6996ea16cd';
  const puzzle = await (await fetch(`${base}/api/puzzles/${id}`)).json();
  assert.equal(puzzle.moves[0], 'C*5e');
  assert.ok(puzzle.themes.includes('mate-in-3'), puzzle.themes.join(' '));
  const side = puzzle.sfen.split(' ')[1] === 'b' ? 'sente' : 'gote';
  const page = await newPage(1366, 850);
  await page.goto(`${base}/puzzles/tori/${id}`);
  await page.waitForSelector(`[data-puzzle="${id}"] [data-puzzle-status="play"]`);
  // The rest follows the engine's line after it: the defender's best replies, and the moves
  // that mate as fast (the page asks the same search: depth 8 for the four plies left).
  const after = await (await fetch(`${base}/api/analyse`, { method: 'POST', body: JSON.stringify({ variant: 'tori', sfen: puzzle.sfen, moves: ['F*5e'], depth: 8, movetime_ms: 1500 }) })).json();
  assert.equal(after.score, 'mate -4', JSON.stringify(after));
  const line = ['F*5e', ...after.pv.slice(0, 4)];
  assert.notDeepEqual(line, puzzle.moves);
  const turn = puzzle.sfen.split(' ')[1];
  for (let ply = 0; ply < line.length; ply += 2) {
    const before = await page.getAttribute('.board', 'data-sfen');
    await playByClicks(page, line[ply], side);
    // Answered: the opponent's reply shown and the player's turn again, or the end.
    await page.waitForFunction(([shown, mover]) => {
      const status = document.querySelector('[data-puzzle-status]');
      const sfen = document.querySelector('.board').dataset.sfen;
      return ['done', 'wrong', 'failed'].includes(status.dataset.puzzleStatus)
        || (sfen !== shown && sfen.split(' ')[1] === mover && status.textContent.includes('Now the next move'));
    }, [before, turn], { timeout: 20000 });
    assert.equal(await page.locator('[data-puzzle-status="wrong"], [data-puzzle-status="failed"]').count(), 0, `ply ${ply}: ${await page.textContent('[data-puzzle]')}`);
  }
  await page.waitForSelector('[data-puzzle-status="done"]');
  assert.match(await page.textContent('[data-puzzle-status]'), /Solved/);
  await shot(page, 'puzzle-another-mate.png');
  // The server takes the line as a solution (the page showed no refusal), and refuses one that
  // does not mate.
  assert.equal(await page.locator('[data-puzzle-result]').count(), 0, await page.textContent('[data-puzzle]'));
  const attempt = (moves) => fetch(`${base}/api/puzzles/${id}/attempt`, { method: 'POST', body: JSON.stringify({ solved: true, moves }) });
  assert.equal((await attempt(line)).status, 200);
  assert.equal((await attempt([...line.slice(0, 4), line[1]])).status, 400);
  await page.close();
});

test('Puzzles: a later move the deep check found as good as the solution\'s solves the puzzle, and a puzzle it left out is not handed out', async () => {
  const verdicts = readFileSync(join(root, 'data', 'puzzles', 'tori.deep.jsonl'), 'utf8').split('\n')
    .filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  const verdict = verdicts.find((v) => v.keep && v.also?.length);
  const [index, other] = verdict.also[0];
  const puzzle = await (await fetch(`${base}/api/puzzles/${verdict.id}`)).json();
  assert.deepEqual(puzzle.also, [{ index, move: other }]);
  assert.notEqual(puzzle.moves[index], other);
  const side = puzzle.sfen.split(' ')[1] === 'b' ? 'sente' : 'gote';
  const page = await newPage(1366, 850);
  await page.goto(`${base}/puzzles/tori/${puzzle.id}`);
  await page.waitForSelector(`[data-puzzle="${puzzle.id}"] [data-puzzle-status="play"]`);
  const turn = puzzle.sfen.split(' ')[1];
  for (let ply = 0; ply <= index; ply += 2) {
    const before = await page.getAttribute('.board', 'data-sfen');
    await playByClicks(page, ply === index ? other : puzzle.moves[ply], side);
    // Answered: the end after the last move; before it, the opponent's reply shown and the
    // player's turn again (the status of the move before still reads the same meanwhile).
    await page.waitForFunction(([shown, mover, last]) => {
      const status = document.querySelector('[data-puzzle-status]');
      const sfen = document.querySelector('.board').dataset.sfen;
      return ['done', 'wrong', 'failed'].includes(status.dataset.puzzleStatus)
        || (!last && sfen !== shown && sfen.split(' ')[1] === mover && status.textContent.includes('Now the next move'));
    }, [before, turn, ply === index], { timeout: 20000 });
  }
  assert.equal(await page.getAttribute('[data-puzzle-status]', 'data-puzzle-status'), 'done', await page.textContent('[data-puzzle]'));
  assert.equal(await page.locator('[data-puzzle-result]').count(), 0, await page.textContent('[data-puzzle]'));
  await page.close();
  // Left out: not in the lists, never next, but its own page stays.
  const retired = new Set(verdicts.filter((v) => !v.keep).map((v) => v.id));
  const first = await (await fetch(`${base}/api/puzzles?variant=tori&limit=100`)).json();
  assert.ok(first.puzzles.every((p) => !retired.has(p.id)));
  for (let i = 0; i < 10; i++) {
    const next = await (await fetch(`${base}/api/puzzles/next?variant=tori&attempts=40&rating=${900 + 100 * i}`)).json();
    assert.ok(!retired.has(next.id), next.id);
  }
  assert.equal((await fetch(`${base}/api/puzzles/${[...retired][0]}`)).status, 200);
});

test('Puzzles: a tsume solved move by move, a wrong move and the solution, the next puzzle, the day\'s puzzle from the home page, at laptop and phone size', async () => {
  const get = async (path) => (await fetch(`${base}${path}`)).json();
  const replay = async (puzzle, moves) => (await fetch(`${base}/api/replay`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ variant: puzzle.variant, options: puzzle.options, sfen: puzzle.sfen, moves }) })).json();
  // A list carries no solutions: each puzzle's own page has its moves.
  const withMoves = async (list) => Promise.all(list.puzzles.map((p) => {
    assert.equal(p.moves, undefined, 'no solution in a list');
    return get(`/api/puzzles/${p.id}`);
  }));
  const twoMoves = await withMoves(await get('/api/puzzles?variant=tori&theme=mate-in-2&limit=100'));
  const tsume = twoMoves.find((p) => p.themes.includes('tsume') && !p.moves.some((m) => m.endsWith('+')));
  assert.ok(tsume, 'a mate in two without promotions');
  const shortList = await withMoves(await get('/api/puzzles?variant=tori&theme=short&limit=100'));
  const short = shortList.find((p) => !p.themes.includes('mate'));
  assert.ok(short, 'a one-move tactic');
  const start = await replay(short, []);
  let wrong = null;
  for (const mv of start.legal_moves.filter((m) => /^\d[a-g]\d[a-g]$/.test(m) && m !== short.moves[0])) {
    if ((await replay(short, [mv])).legal_moves.length) { wrong = mv; break; }
  }
  assert.ok(wrong, 'a wrong board move');
  for (const [width, height, suffix] of [[1366, 850, ''], [390, 844, '-phone']]) {
    const page = await newPage(width, height);
    // The tsume: each move checked at once, the defender's reply played by the page.
    await page.goto(`${base}/puzzles/tori/${tsume.id}`);
    await page.waitForSelector(`[data-puzzle="${tsume.id}"] [data-puzzle-status="play"]`);
    assert.match(await page.textContent('[data-puzzle-status]'), new RegExp(`best move for ${tsume.sfen.split(' ')[1] === 'b' ? 'sente' : 'gote'}`));
    await shot(page, `puzzle-start${suffix}.png`);
    // A hint would fail the attempt: the page says so first, and "keep trying" costs nothing.
    await page.click('[data-puzzle-action="hint"]');
    await page.waitForSelector('[data-confirm="hint"]');
    assert.match(await page.textContent('[data-confirm="hint"]'), /not solved/);
    await shot(page, `puzzle-hint-asks${suffix}.png`);
    await page.click('[data-puzzle-action="hint-no"]');
    await page.waitForSelector('[data-puzzle-action="hint"]');
    assert.equal(await page.locator('[data-puzzle-hint]').count(), 0);
    const mover = tsume.sfen.split(' ')[1] === 'b' ? 'sente' : 'gote';
    for (let i = 0; i < tsume.moves.length; i += 2) {
      await playByClicks(page, tsume.moves[i], mover);
      if (i + 1 < tsume.moves.length) {
        const after = await replay(tsume, tsume.moves.slice(0, i + 2));
        await page.waitForFunction((sfen) => document.querySelector('.board')?.dataset.sfen === sfen, after.sfen);
        await page.waitForFunction(() => /Now the next move/.test(document.querySelector('[data-puzzle-status]')?.textContent || ''));
      }
    }
    await page.waitForSelector('[data-puzzle-status="done"]');
    assert.match(await page.textContent('[data-puzzle-mine]'), /1 solved, 0 failed/);
    await shot(page, `puzzle-solved${suffix}.png`);
    // A one-move tactic: a wrong move is refused and taken back, the solution shown, then on.
    await page.goto(`${base}/puzzles/tori/${short.id}`);
    await page.waitForSelector(`[data-puzzle="${short.id}"] [data-puzzle-status="play"]`);
    await playByClicks(page, wrong);
    await page.waitForSelector('[data-puzzle-status="wrong"]:has-text("Not the move")');
    // What the wrong move allows, as the engine finds it; then try again, or see the solution.
    await page.waitForSelector('[data-puzzle-allows]:has-text("It allows")', { timeout: 15000 });
    await shot(page, `puzzle-wrong${suffix}.png`);
    await page.click('[data-puzzle-action="retry"]');
    await page.waitForSelector('[data-puzzle-status="play"]');
    assert.equal(await page.locator('[data-puzzle-allows]').count(), 0);
    await page.click('[data-puzzle-action="solution"]');
    await page.waitForFunction(() => /That was the solution/.test(document.querySelector('[data-puzzle-status]')?.textContent || ''));
    const solved = await replay(short, short.moves);
    assert.equal(await page.getAttribute('.board', 'data-sfen'), solved.sfen);
    assert.match(await page.textContent('[data-puzzle-mine]'), /1 solved, 1 failed/);
    await page.click('[data-puzzle-action="next"]');
    await page.waitForFunction((id) => {
      const shown = document.querySelector('[data-puzzle]')?.getAttribute('data-puzzle');
      return shown && shown !== id && document.querySelector('[data-puzzle-status="play"]');
    }, short.id);
    // The theme picker asks for another puzzle of that theme.
    await page.selectOption('[data-puzzle-theme]', 'tsume');
    await page.waitForFunction(() => /tsume/.test(document.querySelector('[data-puzzle-info]')?.textContent || ''));
    await page.close();
  }
  // The day's puzzle on the home page opens on the puzzle page.
  const home = await newPage(390, 844);
  await home.goto(`${base}/`);
  const daily = await get('/api/puzzles/daily?variant=tori');
  await home.waitForSelector(`[data-daily-puzzle="${daily.id}"]`);
  await home.locator('[data-daily-puzzle]').scrollIntoViewIfNeeded();
  await shot(home, 'puzzle-daily-phone.png');
  await home.click('[data-daily-puzzle]');
  await home.waitForSelector(`[data-puzzle="${daily.id}"] [data-puzzle-status="play"]`);
  await home.close();
});

test('Tenjiku puzzles: one solved by clicks on the 16x16 board, at laptop and phone size', async () => {
  const list = await (await fetch(`${base}/api/puzzles?variant=tenjiku&limit=100`)).json();
  assert.ok(list.total >= 100, `${list.total} Tenjiku puzzles`);
  // A one-move puzzle whose move is a plain step or slide (no second square, no promotion).
  const oneMove = list.puzzles.filter((p) => p.player_moves === 1);
  const full = await Promise.all(oneMove.map(async (p) => (await fetch(`${base}/api/puzzles/${p.id}`)).json()));
  const puzzle = full.find((p) => p.moves.length === 1 && /^\d+[a-p]\d+[a-p]$/.test(p.moves[0]));
  assert.ok(puzzle, 'a one-move Tenjiku puzzle');
  const [, from, to] = puzzle.moves[0].match(/^(\d+[a-p])(\d+[a-p])$/);
  for (const [width, height, suffix] of [[1366, 850, ''], [390, 844, '-phone']]) {
    const page = await newPage(width, height);
    await page.goto(`${base}/puzzles/tenjiku/${puzzle.id}`);
    await page.waitForSelector(`[data-puzzle="${puzzle.id}"] [data-puzzle-status="play"]`);
    assert.equal(await page.locator('.board sq').count(), 256);
    await shot(page, `puzzle-tenjiku${suffix}.png`);
    await click(page, from);
    await click(page, to);
    if (await page.locator('[data-dialog]').count()) await page.click(`[data-dialog] button[title="${puzzle.moves[0]}"]`);
    await page.waitForSelector('[data-puzzle-status="done"]');
    assert.match(await page.textContent('[data-puzzle-mine]'), /1 solved, 0 failed/);
    await page.close();
  }
});

test('A player\'s page shows a puzzle rating per game once a puzzle is tried', async () => {
  const page = await otherPersonPage(1366, 850);
  const name = `solver_${Date.now() % 100000}`;
  await signUp(page, name);
  await page.goto(`${base}/@/${name}`);
  await page.waitForSelector(`[data-profile="${name}"]`);
  assert.match(await page.textContent('[data-profile]'), /No puzzle tried yet/);
  // A puzzle opened by its address is for practice: solved, it is not rated, and the page says
  // why.
  const list = await (await fetch(`${base}/api/puzzles?variant=tori&theme=mate-in-1&limit=50`)).json();
  const listed = list.puzzles.find((p) => p.player_moves === 1);
  const practice = await (await fetch(`${base}/api/puzzles/${listed.id}`)).json();
  await page.goto(`${base}/puzzles/tori/${practice.id}`);
  await page.waitForSelector(`[data-puzzle="${practice.id}"] [data-puzzle-status="play"]`);
  await playByClicks(page, practice.moves[0], practice.sfen.split(' ')[1] === 'b' ? 'sente' : 'gote');
  if (practice.moves.length > 1) await page.click('[data-puzzle-action="solution"]');
  await page.waitForSelector('[data-puzzle-result]:has-text("Not rated")');
  // The next puzzle the site gives is rated, solved at a person's pace.
  await page.click('[data-puzzle-action="next"]');
  await page.waitForFunction((id) => {
    const shown = document.querySelector('[data-puzzle]')?.getAttribute('data-puzzle');
    return shown && shown !== id && document.querySelector('[data-puzzle-status="play"]');
  }, practice.id);
  const given = await (await fetch(`${base}/api/puzzles/${await page.getAttribute('[data-puzzle]', 'data-puzzle')}`)).json();
  const side = given.sfen.split(' ')[1] === 'b' ? 'sente' : 'gote';
  for (let i = 0; i < given.moves.length; i += 2) {
    await page.waitForTimeout(1100);
    await page.waitForSelector('[data-puzzle-status="play"], [data-puzzle-status="good"]');
    await playByClicks(page, given.moves[i], side);
    if (i + 1 < given.moves.length) await page.waitForFunction(() => /Now the next move/.test(document.querySelector('[data-puzzle-status]')?.textContent || ''));
  }
  await page.waitForSelector('[data-puzzle-status="done"]');
  await page.waitForSelector('[data-puzzle-result]:has-text("Your puzzle rating")');
  await page.goto(`${base}/@/${name}`);
  await page.waitForSelector('[data-puzzle-rating="tori"]');
  const cells = await page.locator('[data-puzzle-rating="tori"] td').allTextContents();
  assert.equal(cells[0], 'Tori shogi');
  assert.ok(Number(cells[1].replace('?', '')) > 1500, `a solved puzzle raises the rating: ${cells[1]}`);
  assert.equal(cells[3], '1');
  await shot(page, 'player-puzzle-rating.png');
  await page.close();
});
