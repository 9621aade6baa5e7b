// Browser tests of the analysis board, the import page and the board editor: the engine's lines and
// mates, the piece inspector, records imported and exported, a game's analysis and its mistakes to learn from.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  base, work, useServer, newPage, otherPersonPage, playByClicks, apiGame, apiMove, shot, click,
  TORI_START,
} from './support.js';

useServer();

test('Tenjiku lion on the analysis board: the choice between routes, cancel, and igui', async () => {
  const page = await newPage(1280, 1000);
  await page.goto(`${base}/analysis`);
  await page.waitForSelector('.board sq[data-square]');
  // A sente lion on 9o with a gote pawn in front of it on 9n.
  const sfen = '7k8/16/16/16/16/16/16/16/16/16/16/16/16/7p8/7L!8/7K8 b - 1';
  await page.selectOption('select[name="variant"]', 'tenjiku');
  await page.fill('input[name="sfen"]', sfen);
  await page.click('[data-action="load"]');
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, sfen);
  assert.equal(await page.locator('.board sq').count(), 256);
  // Two ways to 9m: straight there, or capturing on 9n on the way.
  await click(page, '9o');
  await page.waitForSelector('.board [data-square="9o"].dest.pass');
  await click(page, '9m');
  await page.waitForSelector('[data-dialog="choice"]');
  assert.deepEqual(await page.locator('[data-dialog] button').allInnerTexts(),
    ['Directly', 'Via 9n', 'Cancel']);
  // Each choice names its move in USI for those who read it.
  assert.deepEqual(await page.locator('[data-dialog] button[title]').evaluateAll((bs) => bs.map((b) => b.title)),
    ['9o9m', '9o9n9m']);
  await shot(page, 'tenjiku-lion-routes.png');
  await page.click('[data-dialog] button:has-text("Cancel")');
  // Cancelled: the lion is back on 9o and nothing was played.
  await page.waitForFunction(() => document.querySelector('.board sg-pieces piece.sente[class*="lion"]')?.sgKey === '9o');
  assert.equal(await page.locator('.board').getAttribute('data-sfen'), sfen);
  // Clicking the lion again offers its pass and igui (capture on 9n without moving).
  await click(page, '9o');
  await click(page, '9o');
  await page.waitForSelector('[data-dialog="choice"]');
  assert.deepEqual(await page.locator('[data-dialog] button').allInnerTexts(),
    ['Via 9n', 'Pass', 'Cancel']);
  await page.click('[data-dialog] button[title="9o9n9o"]');
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.sfen.startsWith('7k8/16/16/16/16/16/16/16/16/16/16/16/16/16/7L!8/'));
  await page.close();
});

test('import a record and ask the engine on the analysis board', async () => {
  const page = await newPage();
  await page.goto(`${base}/import`);
  await page.waitForSelector('[data-action="load"]');
  // Before anything is loaded: the game's start position, and no empty record panel.
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.sfen?.startsWith('rpckcpl/'));
  await page.selectOption('select[name="variant"]', 'wa');
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.sfen?.split('/').length === 11);
  await shot(page, 'import-empty.png');
  await page.selectOption('select[name="variant"]', 'tori');
  await page.fill('textarea[name="moves"]', '3d3c 4b3c 5e5d');
  await page.click('[data-action="load"]');
  await page.waitForSelector('[data-export="hodges"]');
  assert.match(await page.locator('[data-export="hodges"]').inputValue(), /^1\. Swx3c Fax3c/);
  // A record without a result printed "null" where the result goes.
  assert.doesNotMatch(await page.locator('main').innerText(), /\bnull\b/);
  await shot(page, 'import.png');
  await page.goto(`${base}/analysis`);
  await page.waitForSelector('.board sq');
  await click(page, '3d');
  await click(page, '3c');
  // Sente's swallow now stands on 3c.
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.sfen.startsWith('rpckcpl/3f3/ssssSss/'));
  // Pieces can be dragged too: gote's falcon takes back on 3c.
  const centre = async (square) => {
    const box = await page.locator(`.board [data-square="${square}"]`).boundingBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  };
  const [fromX, fromY] = await centre('4b');
  const [toX, toY] = await centre('3c');
  await page.mouse.move(fromX, fromY);
  await page.mouse.down();
  await page.mouse.move(toX, toY, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.sfen.startsWith('rpckcpl/7/ssssfss/'));
  await page.check('[data-engine-toggle]');
  await page.waitForSelector('[data-line="1"]', { timeout: 20000 });
  await page.close();
});

test('Analysis board: a forced mate by checks is read out as its own line, and playing it follows it', async () => {
  for (const [width, height, name] of [[1366, 850, 'mate-line.png'], [390, 844, 'mate-line-phone.png']]) {
    const page = await newPage(width, height);
    await page.goto(`${base}/analysis`);
    await page.waitForSelector('[data-action="load"]');
    // Sente mates in three: every move a check, the defender's longest resistance read out.
    const sfen = 'F6/1c+S1f1l/ks1s1ps/P1S4/3S2S/2C1S2/4K1R b CPR4Scpl4s 73';
    await page.fill('input[name="sfen"]', sfen);
    await page.click('[data-action="load"]');
    await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, sfen);
    await page.check('[data-engine-toggle]');
    await page.waitForSelector('[data-mate-line]', { timeout: 20000 });
    assert.equal(await page.getAttribute('[data-mate-line]', 'data-mate-line'), '3');
    const moves = (await page.textContent('[data-mate-line] .line-moves')).trim().split(/\s+/);
    assert.equal(moves.length, 5, moves.join(' '));
    assert.match(await page.textContent('[data-mate-line] .line-score'), /Mate 3/);
    await page.locator('[data-mate-line]').scrollIntoViewIfNeeded();
    await shot(page, name);
    // Its first move played, the defender to move: the solver looks for the defender's mate.
    await page.click('[data-mate-line]');
    await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen !== s, sfen);
    await page.waitForFunction(() => !document.querySelector('[data-mate-line]'));
    await page.close();
  }
});

test('Analysis board: the engine\'s best lines deepen by themselves, the bar follows, and moves grow a tree of variations', async () => {
  const page = await newPage();
  await page.goto(`${base}/analysis`);
  await page.waitForSelector('.board sq');
  await page.selectOption('[data-lines]', '3');
  await page.check('[data-engine-toggle]');
  // Three lines, each a different first move, going deeper without being asked again.
  await page.waitForFunction(() => Number(document.querySelector('[data-engine-status]')?.dataset.depth) >= 8, null, { timeout: 30000 });
  assert.equal(await page.locator('[data-line]').count(), 3);
  const firsts = (await page.locator('[data-line] .line-moves').allInnerTexts()).map((t) => t.split(' ')[0]);
  assert.equal(new Set(firsts).size, 3, firsts.join(', '));
  assert.match(await page.locator('[data-line="1"] [data-line-score]').innerText(), /^[+-]\d+\.\d\d$|^[+-]M\d+$/);
  assert.notEqual(await page.locator('[data-eval-bar]').getAttribute('data-sente'), null);
  await shot(page, 'analysis.png');
  // Clicking the best line plays its first move on the board.
  await page.click('[data-line="1"]');
  await page.waitForSelector('[data-tree-move]');
  const played = await page.locator('[data-tree-move]').first().getAttribute('data-tree-move');
  assert.equal(played.split(' ').length, 1);
  // Back to the start, a different first move: a variation beside the first.
  await page.click('[data-tree="start"]');
  // The whole position: a first move that leaves the front ranks alone (a crane's) matches any
  // part of it, and a click made before the start is back lands on the old position.
  await page.waitForFunction((start) => document.querySelector('.board')?.dataset.sfen === start, TORI_START);
  const other = played === '3d3c' ? ['5e5d', '5d'] : ['3d3c', '3c'];
  await click(page, other[0].slice(0, 2));
  await click(page, other[1]);
  await page.waitForSelector('[data-variation] [data-tree-move]');
  assert.equal(await page.locator('[data-variation] [data-tree-move]').getAttribute('data-tree-move'), other[0]);
  // The engine follows the position shown; the tree takes you back to the main line.
  await page.waitForFunction(() => Number(document.querySelector('[data-engine-status]')?.dataset.depth) >= 4, null, { timeout: 30000 });
  await page.click(`[data-tree-move="${played}"]`);
  await page.waitForSelector(`[data-tree-move="${played}"].current`);
  await shot(page, 'analysis-tree.png');
  // Turned off, the engine stops and says how to turn it on.
  await page.uncheck('[data-engine-toggle]');
  await page.waitForSelector('[data-engine-status]:has-text("Turn the engine on")');
  await page.close();
});

test('Board editor: a position set up by clicking, every problem named, then analysed, played against the computer and opened from its link', async () => {
  const page = await newPage(1366, 850);
  const bad = 'S2k3/6S/6S/6S/7/7/2K1K2 b 3F 1';
  await page.goto(`${base}/editor/tori?sfen=${encodeURIComponent(bad)}`);
  await page.waitForSelector('[data-editor-status][data-verdict="problems"]');
  const problems = await page.locator('[data-editor-problems] li').allTextContents();
  assert.equal(problems.length, 4, problems.join(' | '));
  assert.match(problems[0], /3 falcon pieces .* a set holds 2/);
  assert.match(problems[1], /sente has 2 phoenix pieces/);
  assert.match(problems[2], /sente swallow on 7a could not have got there/);
  assert.match(problems[3], /sente has 3 swallow pieces on file 1, at most 2/);
  for (const action of ['computer', 'friend', 'analyse']) {
    assert.equal(await page.locator(`[data-editor-action="${action}"]`).isDisabled(), true, action);
  }
  assert.equal(await page.locator('[data-editor-fen]').isVisible(), false);
  await shot(page, 'editor-problems-laptop.png');
  // Mended by clicking: a right-click takes the second phoenix off, the eraser two swallows, −
  // one falcon from the hand.
  await page.click('[data-editor-board] [data-square="3g"]', { button: 'right' });
  await page.click('[data-palette-erase]');
  await page.click('[data-editor-board] [data-square="7a"]');
  await page.click('[data-editor-board] [data-square="1b"]');
  await page.click('[data-editor-hand="sente"] [data-hand-less="F"]');
  // A gote crane placed from the palette, and gote a falcon in hand.
  await page.click('[data-palette-side="gote"]');
  await page.click('[data-palette-piece="C"]');
  await page.click('[data-editor-board] [data-square="2a"]');
  assert.equal(await page.getAttribute('[data-editor-board] [data-square="2a"]', 'aria-label'), '2a, gote crane');
  await page.click('[data-editor-hand="gote"] [data-hand-more="S"]');
  const sfen = '3k1c1/7/6S/6S/7/7/2K4 b 2Fs 1';
  assert.equal(await page.inputValue('[data-editor-sfen]'), sfen);
  await page.waitForSelector('[data-editor-status][data-verdict="playable"]');
  assert.match(await page.textContent('[data-editor-status]'), /Sente to move: \d+ legal moves/);
  assert.equal(await page.inputValue('[data-editor-fen]'), '3k1c1/7/6S/6S/7/7/2K4[FFs] w - - 0 1');
  const link = await page.inputValue('[data-editor-link]');
  assert.equal(link, `${base}/editor/tori?sfen=${encodeURIComponent(sfen).replace(/%20/g, '+')}`);
  assert.equal(page.url(), link, 'the address follows the position');
  // Files over the board, ranks beside it.
  assert.deepEqual(await page.$$eval('.editor-files span', (spans) => spans.map((s) => s.textContent)), ['7', '6', '5', '4', '3', '2', '1']);
  assert.deepEqual(await page.$$eval('.editor-ranks span', (spans) => spans.map((s) => s.textContent)), ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  // The side panels' rows (level and side, clock, buttons) stand apart, not field on field.
  const rowGaps = await page.evaluate(() => [...document.querySelectorAll('.editor .side-area .panel')].flatMap((panel) => {
    const rows = [...panel.querySelectorAll(':scope > .row')].filter((r) => r.offsetParent).map((r) => r.getBoundingClientRect());
    return rows.slice(1).map((box, i) => box.top - rows[i].bottom);
  }));
  assert.ok(rowGaps.length >= 3 && rowGaps.every((gap) => gap >= 4), `gaps between the editor's rows: ${rowGaps}`);
  await shot(page, 'editor-playable-laptop.png');
  // A gote swallow checking sente's phoenix: with sente to move that is check; with gote to
  // move it is refused, named.
  await page.click('[data-palette-piece="S"]');
  await page.click('[data-editor-board] [data-square="5f"]');
  await page.waitForSelector('[data-editor-status][data-verdict="playable"]:has-text("in check")');
  await page.selectOption('select[name="turn"]', 'gote');
  await page.waitForSelector('[data-editor-problems] li:has-text("sente is not to move but is in check")');
  await page.selectOption('select[name="turn"]', 'sente');
  await page.click('[data-editor-board] [data-square="5f"]');
  await page.waitForSelector('[data-editor-status][data-verdict="playable"]:not(:has-text("in check"))');
  assert.equal(await page.inputValue('[data-editor-sfen]'), sfen);
  // The link opens the same position, on a phone too.
  const phone = await newPage(390, 844);
  await phone.goto(link);
  await phone.waitForSelector('[data-editor-status][data-verdict="playable"]');
  assert.equal(await phone.inputValue('[data-editor-sfen]'), sfen);
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(phone, 'editor-phone.png');
  // Tenjiku's board fits a phone too, and Wa without drops names a hand as a problem.
  await phone.goto(`${base}/editor/tenjiku`);
  await phone.waitForSelector('[data-editor-status][data-verdict="playable"]');
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(phone, 'editor-tenjiku-phone.png');
  await phone.goto(`${base}/editor/wa?options=drops%3Doff&sfen=${encodeURIComponent('5k5/11/11/11/11/11/11/11/11/11/5K5 b S 1')}`);
  await phone.waitForSelector('[data-editor-problems] li:has-text("holds pieces in hand, but this game has no drops")');
  // The options are choices in words, the link's shown chosen; drops on again, the hand is fine.
  assert.equal(await phone.inputValue('[data-editor-options] [data-option="drops"]'), 'off');
  await phone.selectOption('[data-editor-options] [data-option="drops"]', 'on');
  await phone.waitForSelector('[data-editor-status][data-verdict="playable"]');
  assert.doesNotMatch(await phone.inputValue('[data-editor-link]'), /options=/);
  await phone.close();
  // Analyse: the analysis board opens on the position.
  await page.click('[data-editor-action="analyse"]');
  await page.waitForURL('**/analysis?**');
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, sfen);
  // Play the computer from it: the player takes the side to move.
  await page.goto(link);
  await page.waitForSelector('[data-editor-status][data-verdict="playable"]');
  await page.click('[data-editor-action="computer"]');
  await page.waitForURL('**/game/**');
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, sfen);
  await page.waitForSelector('[data-clock]:has-text("— you")');
  assert.match(await page.textContent('[data-clock="sente"]'), /— you/);
  // Or the other side, against level 3, on a clock with an increment.
  await page.goto(link);
  await page.waitForSelector('[data-editor-status][data-verdict="playable"]');
  await page.selectOption('select[name="level"]', '3');
  await page.selectOption('select[name="side"]', 'other');
  assert.equal(await page.isVisible('input[name="periods"]'), false, 'no clock fields without a clock');
  await page.selectOption('select[name="clock"]', 'fischer');
  assert.equal(await page.isVisible('input[name="increment"]'), true);
  assert.equal(await page.isVisible('input[name="periods"]'), false, 'no byo-yomi fields for an increment');
  await shot(page, 'editor-game-choice-laptop.png');
  await page.click('[data-editor-action="computer"]');
  await page.waitForURL('**/game/**');
  const chosen = await (await fetch(`${base}/api/games/${new URL(page.url()).pathname.split('/').pop()}`)).json();
  assert.equal(chosen.sente_name, 'Computer level 3');
  assert.match(chosen.gote_name, /^Guest-/);
  assert.equal(chosen.time_control.kind, 'fischer');
  await page.close();
});

test('Board editor: an answer about a position no longer on the board is never shown as its verdict', async () => {
  const page = await newPage(1366, 850);
  await page.goto(`${base}/editor/tori?sfen=${encodeURIComponent('3k3/7/7/7/7/7/3K3 b - 1')}`);
  await page.waitForSelector('[data-editor-status][data-verdict="playable"]');
  // Every check from here waits for the test's word: the answer about a swallow in sente's hand
  // is held until gote's swallow has been added, then arrives before the next check is asked.
  const held = [];
  const asked = [];
  const waitUntil = async (done, what) => {
    for (let tries = 0; tries < 200 && !done(); tries += 1) await new Promise((wake) => setTimeout(wake, 50));
    assert.ok(done(), `waited 10 s for: ${what}`);
  };
  await page.route('**/api/positions/check', async (route) => {
    const answer = await route.fetch();
    asked.push(route.request().postDataJSON().sfen);
    held.push(() => route.fulfill({ response: answer }));
  });
  await page.click('[data-editor-hand="sente"] [data-hand-more="S"]');
  await page.waitForFunction(() => document.querySelector('[data-editor-sfen]').value === '3k3/7/7/7/7/7/3K3 b S 1');
  await waitUntil(() => held.length === 1, 'the first check is asked');
  await page.click('[data-editor-hand="gote"] [data-hand-more="S"]');
  const stale = page.waitForResponse('**/api/positions/check');
  await held[0]();
  await stale;
  // The page has had the stale answer; the verdict still waits for the position shown.
  await page.waitForTimeout(300);
  assert.equal(await page.getAttribute('[data-editor-status]', 'data-verdict'), 'checking');
  assert.equal(await page.inputValue('[data-editor-fen]'), '');
  await waitUntil(() => held.length === 2, 'the second check is asked');
  assert.deepEqual(asked, ['3k3/7/7/7/7/7/3K3 b S 1', '3k3/7/7/7/7/7/3K3 b Ss 1']);
  await held[1]();
  await page.waitForSelector('[data-editor-status][data-verdict="playable"]');
  assert.match(await page.inputValue('[data-editor-fen]'), /\[Ss\] w /);
  await page.close();
});

test('The piece inspector: touching any piece, either side\'s, shows its name and moves', async () => {
  const page = await newPage(390, 844);
  await page.goto(`${base}/analysis`);
  await page.waitForSelector('.board sq[data-square]');
  await page.selectOption('select[name="variant"]', 'tenjiku');
  const tenjiku = (await (await fetch(`${base}/api/variants`)).json()).find((v) => v.name === 'tenjiku');
  await page.fill('input[name="sfen"]', tenjiku.start_sfen);
  await page.click('[data-action="load"]');
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, tenjiku.start_sfen);
  // Gote's lion: on a phone Tenjiku's squares are tiny, the inspector is not.
  const lionSquare = '8b';
  await click(page, lionSquare);
  await page.waitForSelector('.inspector[data-inspector]:not([hidden])');
  assert.equal(await page.getAttribute('.inspector', 'data-inspector'), 'L!');
  assert.equal(await page.getAttribute('.inspector', 'data-color'), 'gote');
  assert.match(await page.textContent('.inspector h3'), /^Lion/);
  assert.match(await page.textContent('.inspector'), /Lion power/);
  const lionMarks = await page.locator('.inspector .cell.lion').count();
  assert.equal(lionMarks, 24, 'every square within two of the lion');
  await page.locator('.inspector').scrollIntoViewIfNeeded();
  await shot(page, 'inspector-tenjiku-phone.png');
  // Sente's own pawn: selecting it to move shows it in the inspector too.
  await click(page, '5l');
  await page.waitForFunction(() => document.querySelector('.inspector')?.dataset.inspector === 'P');
  assert.equal(await page.getAttribute('.inspector', 'data-color'), 'sente');
  assert.equal(await page.locator('.inspector .cell.step').count(), 1);
  await page.close();
});

test('Import a PGN file of several games, pick one, and download and copy its exports', async () => {
  const page = await newPage(1366, 900);
  const replay = async (moves) => (await fetch(`${base}/api/replay`, { method: 'POST',
    body: JSON.stringify({ variant: 'tori', moves }) })).json();
  const first = await replay(['3d3c', '4b3c', '5e5d']);
  const second = await replay(['5e5d', '5c5d', '4g3f', '4a3b']);
  const file = `${first.exports.pgn}\n\n${second.exports.pgn}`;
  await page.goto(`${base}/import`);
  await page.waitForSelector('[data-action="import"]');
  await page.setInputFiles('input[name="record-file"]', { name: 'two.pgn', mimeType: 'text/plain', buffer: Buffer.from(file) });
  await page.waitForSelector('select[name="game-pick"]:not([hidden])');
  assert.equal(await page.locator('select[name="game-pick"] option').count(), 2);
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, first.sfen);
  await page.selectOption('select[name="game-pick"]', '1');
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, second.sfen);
  assert.match(await page.locator('[data-export="hodges"]').inputValue(), /^1\. Swx5d Swx5d\n2\. Ph-3f Ph-3b$/);
  await shot(page, 'import-pgn-games.png');
  // The move list in another notation: Japanese (KIF's), the play site's, USI; remembered.
  await page.selectOption('select[name="notation"]', 'japanese');
  await page.waitForFunction(() => document.querySelector('.moves [data-ply="1"]')?.textContent === '５四燕(55)');
  assert.equal(await page.textContent('.moves [data-ply="2"]'), '同　燕(53)');
  await page.selectOption('select[name="notation"]', 'usi');
  await page.waitForFunction(() => document.querySelector('.moves [data-ply="3"]')?.textContent === '4g3f');
  await page.selectOption('select[name="notation"]', 'hodges');
  // Each export downloads as a file named for the game and the format.
  for (const [key, extension] of [['kif', 'kif'], ['pgn', 'pgn'], ['record', 'tsr']]) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-download="${key}"]`)]);
    assert.equal(download.suggestedFilename(), `tsubame-tori-game.${extension}`);
    const saved = join(work, `download.${extension}`);
    await download.saveAs(saved);
    assert.equal((await import('node:fs')).readFileSync(saved, 'utf8'), await page.locator(`[data-export="${key}"]`).inputValue());
  }
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await page.click('[data-copy="kif"]');
  await page.waitForFunction(() => /copied|selected/.test(document.querySelector('[data-export-status]')?.textContent || ''));
  // A pasted KIF is recognised without naming its format; the players it names stand by the
  // board, sente below, with the day.
  const named = `開始日時：2026/11/30 19:05:00\n先手：羽生\n後手：Kawasaki\n${first.exports.kif.replace(/^#.*\n/gm, '')}`;
  await page.fill('textarea[name="record"]', named);
  await page.click('[data-action="import"]');
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, first.sfen);
  assert.ok(await page.locator('select[name="game-pick"]').isHidden());
  assert.match(await page.textContent('[data-bar="bottom"] [data-import-player="sente"]'), /☗ 羽生/);
  assert.match(await page.textContent('[data-bar="top"] [data-import-player="gote"]'), /☖ Kawasaki.*2026\.11\.30/);
  await shot(page, 'import-kif-names.png');
  // Garbage is refused with the reader's reason.
  await page.fill('textarea[name="record"]', '[Event "x"]\n1. Zz9 *');
  await page.click('[data-action="import"]');
  await page.waitForFunction(() => /^pgn: /.test(document.querySelector('.create .error')?.textContent || ''));
  await page.close();
});

test('Analyse this game: an evaluation graph over every position, the moves that gave chances away marked, the better move shown', async () => {
  const page = await newPage(1366, 900);
  await page.goto(`${base}/import`);
  await page.waitForSelector('[data-action="load"]');
  await page.fill('textarea[name="moves"]', '3d3c 4b3c 5e5d 5c5d 4g3f 4a3b S*3d 3c2b');
  await page.click('[data-action="load"]');
  await page.waitForSelector('[data-action="analyse-game"]');
  await page.click('[data-action="analyse-game"]');
  await page.waitForSelector('.eval-graph', { timeout: 30000 });
  assert.equal(await page.locator('.eval-graph [data-eval-ply]').count(), 9);
  await page.locator('.game-analysis').scrollIntoViewIfNeeded();
  await shot(page, 'game-analysis.png');
  // A point of the graph is a position of the game.
  await page.locator('.eval-graph [data-eval-ply="2"]').click();
  await page.waitForSelector('.moves .mv.cur[data-ply="2"]');
  // The move list marks the moves that gave away the mover's chances, as the play sites do,
  // and the list under the graph names the same moves with the same marks (one measure), each
  // with the better move and its line.
  await page.waitForSelector('[data-mistake]');
  const listed = await page.$$eval('[data-mistake]', (items) => items.map((li) => [li.dataset.mistake, li.dataset.mark]));
  const inMoves = await page.$$eval('.moves .mv [data-judgement]', (marks) => marks.map((m) => [m.closest('[data-ply]').dataset.ply, m.textContent]));
  assert.deepEqual(listed, inMoves);
  for (const [, mark] of listed) assert.ok(['??', '?', '?!'].includes(mark), mark);
  // A click on the better move: the position before the marked move, with the move as an
  // arrow on the board.
  const better = page.locator('[data-better]').first();
  const before = await better.getAttribute('data-better');
  await better.click();
  await page.waitForSelector(`.moves .mv.cur[data-ply="${before}"], .moves:not(:has(.mv.cur))`);
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.arrow && document.querySelector('.board svg.sg-shapes line, .board svg.sg-shapes ellipse'));
  await shot(page, 'game-analysis-better.png');
  await page.close();
});

test('A finished game\'s analysis is made once and kept for everyone; its player learns from their mistakes, at both sizes', async () => {
  // Sente gives away its falcon to a swallow on the third ply, then resigns.
  const sente = await apiGame({ variant: 'tori', opponent: 'human', clock: { kind: 'fischer', main_ms: 600000, increment_ms: 0 } });
  const joined = await (await fetch(`${base}/api/games/${sente.game_id}/join`, { method: 'POST', body: JSON.stringify({ invite: sente.invite }) })).json();
  const gote = { game_id: sente.game_id, token: joined.token };
  const line = ['5e5d', '5c5d', '4f5e', '5d5e', '3d3c', '4b3c'];
  for (const [i, usi] of line.entries()) await apiMove(i % 2 === 0 ? sente : gote, usi);
  const resigned = await fetch(`${base}/api/games/${sente.game_id}/resign`, { method: 'POST', body: JSON.stringify({ token: sente.token }) });
  assert.equal(resigned.status, 200);
  const record = await (await fetch(`${base}/api/games/${sente.game_id}/record`)).json();
  const openAs = async (page, grant) => {
    await page.goto(`${base}/`);
    if (grant) await page.evaluate(([id, token]) => localStorage.setItem(`tsubame.token.${id}`, token), [grant.game_id, grant.token]);
    await page.goto(`${base}/game/${sente.game_id}`);
    await page.waitForSelector('.game-analysis');
  };
  const page = await newPage(1366, 850);
  await openAs(page, sente);
  await page.click('[data-action="analyse-game"]');
  await page.waitForSelector('[data-analysis-status]:has-text("Analysing position")');
  await page.waitForSelector('.eval-graph', { timeout: 30000 });
  const analysis = await (await fetch(`${base}/api/games/${sente.game_id}/analysis`)).json();
  assert.equal(analysis.status, 'done');
  assert.equal(analysis.positions.length, line.length + 1);
  // Someone else opening the game sees the same analysis at once: nothing to ask for.
  const watcher = await otherPersonPage(1366, 850);
  await openAs(watcher, null);
  await watcher.waitForSelector('.eval-graph');
  const marked = async (p) => {
    // The graph comes first; the list of marked moves follows once their better lines are replayed.
    await p.waitForSelector('ol.mistakes, [data-no-mistakes]');
    return p.$$eval('[data-mistake]', (items) => items.map((li) => `${li.dataset.mistake}${li.dataset.mark}`));
  };
  const playersMarks = await marked(page);
  assert.deepEqual(await marked(watcher), playersMarks);
  assert.ok(playersMarks.some((m) => m.startsWith('3')), 'the falcon given away is marked');
  assert.equal(await watcher.locator('[data-action="learn-mistakes"]').count(), 0, 'only a player learns from their mistakes');
  await watcher.close();
  /** The ply of the position the board shows, in the game's record. */
  const shownPly = (p) => p.evaluate((positions) => positions.indexOf(document.querySelector('.board').dataset.sfen), record.positions);
  // The player's own mistakes, one position each: the move played is not the answer, the
  // engine's move is.
  await page.click('[data-action="learn-mistakes"]');
  await page.waitForSelector('[data-learn-mistakes][data-state="find"]');
  assert.match(await page.textContent('[data-learn-message]'), /You played .*Find a better move for sente/);
  let ply = await shownPly(page);
  assert.ok(ply >= 0 && ply % 2 === 0, `sente's position: ${ply}`);
  await playByClicks(page, record.usi[ply], 'sente');
  await page.waitForSelector('[data-learn-message]:has-text("That is the move you played")');
  await shot(page, 'learn-mistakes.png');
  await playByClicks(page, analysis.positions[ply].pv[0], 'sente');
  await page.waitForSelector('[data-learn-message][data-tone="right"]');
  await page.waitForFunction((usi) => document.querySelector('.board').dataset.arrow === usi, analysis.positions[ply].pv[0]);
  await shot(page, 'learn-mistakes-found.png');
  // The other mistakes, however many the analysis marked, skipped.
  while (!(await page.locator('[data-learn-mistakes][data-state="done"]').count())) {
    await page.click((await page.locator('[data-learn="next"]').count()) ? '[data-learn="next"]' : '[data-learn="skip"]');
    await page.waitForSelector('[data-learn-mistakes][data-state="find"], [data-learn-mistakes][data-state="done"]');
  }
  assert.match(await page.textContent('[data-learn-message]'), /you found 1 of \d+ better moves/);
  await page.click('[data-learn="stop"]');
  await page.waitForFunction(() => !document.querySelector('[data-learn-mistakes]'));
  await page.close();
  // On a phone: the analysis is there at once, and a mistake's answer can be shown.
  const phone = await newPage(390, 844);
  await openAs(phone, sente);
  await phone.click('[data-action="learn-mistakes"]');
  await phone.waitForSelector('[data-learn-mistakes][data-state="find"]');
  ply = await shownPly(phone);
  await phone.click('[data-learn="show"]');
  await phone.waitForSelector('[data-learn-message]:has-text("The better move")');
  await phone.waitForFunction((usi) => document.querySelector('.board').dataset.arrow === usi, analysis.positions[ply].pv[0]);
  await phone.locator('.board').scrollIntoViewIfNeeded();
  await shot(phone, 'learn-mistakes-phone.png');
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'nothing scrolls sideways');
  await phone.close();
});
