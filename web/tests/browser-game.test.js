// Browser tests of the game page: moves by clicking, dragging, keys and premoves, against the computer
// and between people; the clocks, check, the end of a game, a lost connection and a missing game.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base, useServer, newPage, otherPersonPage, playByClicks, apiGame, apiMove, waitForPly,
  openWithToken, shot, click, waitPly, chooseSwitch,
} from './support.js';

useServer();

test('Tori against the computer from the lobby: click moves, drop from hand', async () => {
  const page = await newPage();
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-action="create"]');
  await shot(page, 'lobby.png');
  await page.selectOption('select[name="variant"]', 'tori');
  await page.selectOption('select[name="level"]', '1');
  // What a level does is the game's: Tenjiku's weak levels see only part of one ply.
  assert.match(await page.locator('[data-level-help]').innerText(), /second to sixth choice/);
  await page.selectOption('select[name="variant"]', 'tenjiku');
  assert.match(await page.locator('[data-level-help]').innerText(), /only a few of its moves/);
  await page.selectOption('select[name="variant"]', 'tori');
  assert.match(await page.locator('[data-level-help]').innerText(), /second to sixth choice/);
  await page.selectOption('select[name="clock"]', 'unlimited');
  await page.click('[data-action="create"]');
  await page.waitForSelector('.board sq');
  assert.equal(await page.locator('.board sq').count(), 49);
  // The board takes moves once the game's state has come and it is our turn: a click before
  // that is a premove selection, cleared when the state comes.
  await page.waitForFunction(() => document.body.innerText.includes('your move'));
  // Select the swallow on 3d: its destination is shown, then capture on 3c.
  await click(page, '3d');
  // The board draws a selection on its next animation frame.
  await page.waitForSelector('.board sq.dest');
  assert.equal(await page.locator('.board sq.dest').count(), 1);
  await click(page, '3c');
  await waitPly(page, 2);
  // Each move arriving sounds: the last one, the computer's answer, is a move, a capture or a check.
  assert.match(await page.getAttribute('.toggle.sound', 'data-played') || '', /^(move|capture|check)$/);
  // The captured swallow is in sente's hand: drop it.
  await page.waitForSelector('[data-hand="sente"] [data-drop="S"]');
  await page.click('[data-hand="sente"] [data-drop="S"]');
  await page.waitForSelector('.board sq.dest');
  const drops = await page.locator('.board sq.dest').count();
  assert.ok(drops > 5, `drop destinations: ${drops}`);
  const target = await page.locator('.board sq.dest').first().getAttribute('data-square');
  await click(page, target);
  await waitPly(page, 4);
  assert.match(await page.locator('[data-moves] [data-ply="3"]').innerText(), /^Sw\*/);
  await shot(page, 'tori-vs-computer.png');
  await chooseSwitch(page, '#pieces', 'latin');
  await shot(page, 'tori-latin.png');
  await chooseSwitch(page, '#pieces', 'pictures');
  // Flipped, the board starts from sente's far left corner (1g) and gote's hand is below.
  assert.equal(await page.locator('.board sq').first().getAttribute('data-square'), '7a');
  await page.click('[data-action="flip"]');
  await page.waitForSelector('.board.orientation-gote');
  assert.equal(await page.locator('.board sq').first().getAttribute('data-square'), '1g');
  assert.equal(await page.locator('.hand').last().getAttribute('data-hand'), 'gote');
  await shot(page, 'tori-flipped.png');
  // The zoom overrides the fitted size: smaller, then bigger again.
  const before = (await page.locator('.board').boundingBox()).width;
  await page.locator('input.zoom').fill('30');
  const zoomedOut = (await page.locator('.board').boundingBox()).width;
  assert.ok(zoomedOut < before - 50, `${before} -> ${zoomedOut}`);
  await page.locator('input.zoom').fill('60');
  assert.ok((await page.locator('.board').boundingBox()).width > zoomedOut + 50);
  await page.close();
});

test('Wa: a move on a phone-sized screen, and the optional promotion choice', async () => {
  const page = await newPage(390, 844);
  const grant = await apiGame({ variant: 'wa', opponent: 'engine', level: 1 });
  await openWithToken(page, grant);
  assert.equal(await page.locator('.board sq').count(), 121);
  await click(page, '6k');
  await click(page, '5j');
  await waitPly(page, 2);
  await shot(page, 'wa-phone.png', { fullPage: true });
  await page.close();

  const wide = await newPage();
  // A Wa swallow (pawn) one step from the zone: the move into it may promote or not.
  const choice = await apiGame({ variant: 'wa', opponent: 'engine', level: 1,
    sfen: '5k5/11/11/5P5/11/11/11/11/11/11/5K5 b - 1' });
  await openWithToken(wide, choice);
  await click(wide, '6d');
  await click(wide, '6c');
  await wide.waitForSelector('[data-dialog="choice"]');
  // The dialog shows the swallow and the goose it may become, drawn as board pieces.
  assert.equal(await wide.getAttribute('[data-choice="stay"] [data-piece]', 'data-piece'), 'P');
  assert.equal(await wide.getAttribute('[data-choice="promote"] [data-piece]', 'data-piece'), '+P');
  const glyph = await wide.evaluate(() => getComputedStyle(
    document.querySelector('[data-choice="promote"] piece'), '::after').content);
  assert.notEqual(glyph, 'none');
  // The choices name the pieces in words, not the move's USI.
  assert.deepEqual(await wide.locator('[data-dialog] button').allInnerTexts(),
    ['Promote to the golden bird', 'Keep the sparrow pawn', 'Cancel']);
  await shot(wide, 'wa-promotion-choice.png');
  await wide.click('[data-choice="promote"]');
  await waitPly(wide, 1);
  assert.match(await wide.locator('[data-moves] [data-ply="1"]').innerText(), /\+$/);
  await shot(wide, 'wa-board.png');
  await wide.close();
});

test('The piece card stays out of the game: a capture opens none, on a phone and a laptop, and every move closes it', async () => {
  for (const [width, height] of [[390, 844], [1366, 850]]) {
    const grant = await apiGame({ variant: 'tori', opponent: 'human' });
    const joined = await (await fetch(`${base}/api/games/${grant.game_id}/join`, { method: 'POST',
      body: JSON.stringify({ invite: grant.invite }) })).json();
    const page = await newPage(width, height);
    await openWithToken(page, grant);
    // The swallow picked up, then the gote swallow it takes: a move, not a look at the bird.
    await click(page, '3d');
    await click(page, '3c');
    await waitPly(page, 1);
    assert.equal(await page.isVisible('.inspector'), false, `${width}: a capture opened the card`);
    // A card opened on a piece closes with the next move, wherever it is made.
    await click(page, '1g');
    await page.waitForSelector('.inspector:not([hidden])');
    await apiMove({ game_id: grant.game_id, token: joined.token }, '4b3c');
    await waitPly(page, 2);
    await page.waitForSelector('.inspector', { state: 'hidden' });
    await page.close();
  }
});

test('Tenjiku: the 16x16 board, a pawn move and a lion pass by clicking, the engine answering', async () => {
  const page = await newPage(1280, 1000);
  const grant = await apiGame({ variant: 'tenjiku', opponent: 'engine', level: 1 });
  await openWithToken(page, grant);
  assert.equal(await page.locator('.board sq').count(), 256);
  // Pieces with suffixed codes are drawn as pieces, not left out.
  assert.equal(await page.locator('.board sg-pieces piece').count(), 156);
  await click(page, '9l');
  await click(page, '9k');
  await waitPly(page, 2);
  assert.equal(await page.locator('[data-moves] [data-ply="1"]').innerText(), 'P-9k');
  // The lion passes: its own square is one of its destinations.
  await click(page, '9o');
  await click(page, '9o');
  await waitPly(page, 4);
  assert.equal(await page.locator('[data-moves] [data-ply="3"]').innerText(), 'Ln-9o');
  await shot(page, 'tenjiku-board.png', { fullPage: true });
  await page.close();
});

test('Against the computer the end says "You won" or "You lost" and offers the same game again or a new one', async () => {
  // Sente mates with a falcon dropped on 1b.
  const won = await apiGame({ variant: 'tori', opponent: 'engine', side: 'sente', level: 1,
    sfen: '5sk/5s1/6C/7/7/7/K6 b F 1', clock: { kind: 'fischer', main_ms: 300000, increment_ms: 2000 } });
  for (const [width, height, suffix] of [[1366, 850, ''], [390, 844, '-phone']]) {
    const page = await newPage(width, height);
    if (!suffix) {
      await openWithToken(page, won);
      await playByClicks(page, 'F*1b', 'sente');
      await page.waitForSelector('[data-computer-end="won"]');
      assert.match(await page.textContent('[data-computer-end]'), /You won!/);
      await shot(page, 'computer-won.png');
    }
    const lost = await apiGame({ variant: 'tori', opponent: 'engine', side: 'sente', level: 2,
      clock: { kind: 'byoyomi', main_ms: 600000, periods: 1, period_ms: 10000 } });
    await openWithToken(page, lost);
    // A move and the computer's answer: resigning before each side has moved aborts instead.
    const first = (await (await fetch(`${base}/api/games/${lost.game_id}`)).json()).legal_moves.find((m) => !m.includes('*'));
    await playByClicks(page, first);
    await waitPly(page, 2);
    await page.click('[data-action="resign"]');
    await page.click('[data-action="resign-yes"]');
    await page.waitForSelector('[data-computer-end="lost"]');
    assert.match(await page.textContent('[data-computer-end]'), /You lost/);
    await page.locator('[data-computer-end]').scrollIntoViewIfNeeded();
    await shot(page, `computer-lost${suffix}.png`);
    // The same again: a new game, the same level, clock and side.
    await page.click('[data-action="play-again"]');
    await page.waitForFunction((id) => location.pathname.startsWith('/game/') && !location.pathname.endsWith(id), lost.game_id);
    const id = await page.evaluate(() => location.pathname.slice('/game/'.length));
    const view = await (await fetch(`${base}/api/games/${id}`)).json();
    assert.equal(view.engine_level, 2);
    assert.equal(view.sente_player, 'human');
    assert.deepEqual(view.time_control, { kind: 'byoyomi', main_ms: 600000, periods: 1, period_ms: 10000 });
    await page.close();
  }
});

test('Byo-yomi: after a reload in the middle of a period the clock goes on as the server\'s does', async () => {
  // No main time, ten periods of 3 s (room for a slow page to open and reload before the
  // last); the clocks start once both sides have made a first move.
  const PERIOD_MS = 3000;
  const grant = await apiGame({
    variant: 'tori', opponent: 'engine', side: 'sente', level: 1,
    clock: { kind: 'byoyomi', main_ms: 0, periods: 10, period_ms: PERIOD_MS },
  });
  await apiMove(grant, '3d3c');
  await waitForPly(grant.game_id, 2);
  const page = await newPage();
  await openWithToken(page, grant);
  // One period spent and 1.5 s into the next; the reload brings a report from the middle of it.
  await page.waitForTimeout(4500);
  await page.reload();
  await page.waitForSelector('[data-clock="sente"].running');
  // Past the end of the reported period: the display must move on to a whole new period.
  await page.waitForTimeout(2000);
  // The server's clock asked just before and just after the page is read.
  const serverClock = async () =>
    (await (await fetch(`${base}/api/games/${grant.game_id}`)).json()).sente_clock;
  const before = await serverClock();
  const [shownTime, shownPeriods] = await page.evaluate(() => {
    const clock = document.querySelector('[data-clock="sente"]');
    return [clock.querySelector('.t').textContent, clock.querySelectorAll('.p')[1].textContent];
  });
  const after = await serverClock();
  // What each shows as time left before the flag falls. The page counts from when its report
  // arrived and redraws five times a second, so it may trail the server by the report's trip and
  // one redraw: a bounded lag, far less than a period restarted at its full length after the
  // reload (1.5 s or more here) or a period never moved on from (3 s).
  const serverLeft = (v) => (v.periods - 1) * PERIOD_MS + v.period_ms;
  const periodsMatch = /^byo-yomi (\d+)×3s$/.exec(shownPeriods);
  assert.ok(periodsMatch, `periods shown as ${JSON.stringify(shownPeriods)}`);
  const seconds = Number(shownTime.replace(/s$/, ''));
  assert.ok(Number.isFinite(seconds) && seconds >= 0 && seconds <= 3, `shown ${shownTime}`);
  const pageLeft = (Number(periodsMatch[1]) - 1) * PERIOD_MS + seconds * 1000;
  const MAX_LAG_MS = 1000;
  // Tenths are rounded down, so the page may also show up to a tenth less than it counts.
  const ROUNDING_MS = 100;
  assert.equal(before.remaining_ms, 0);
  assert.ok(pageLeft <= serverLeft(before) + MAX_LAG_MS && pageLeft >= serverLeft(after) - ROUNDING_MS,
    `page shows ${shownPeriods} ${shownTime} (${pageLeft} ms left), server before and after: ${JSON.stringify([before, after])}`);
  await shot(page, 'byoyomi-after-reload.png');
  await page.close();
});

test('Low time shows tenths in red, the tab tells whose move it is, keys replay and flip, resigning asks in the page', async () => {
  const low = await apiGame({
    variant: 'tori', opponent: 'engine', side: 'sente', level: 1,
    clock: { kind: 'fischer', main_ms: 9500, increment_ms: 0 },
  });
  await apiMove(low, '3d3c');
  await waitForPly(low.game_id, 2);
  const lowPage = await newPage();
  await openWithToken(lowPage, low);
  await lowPage.waitForSelector('[data-clock="sente"].running.low');
  assert.match(await lowPage.textContent('[data-clock="sente"] .t'), /^0:0\d\.\d$/);
  // The low-time warning sounds once the player's own clock is under ten seconds.
  await lowPage.waitForSelector('.toggle.sound[data-played="low-time"]', { state: 'attached' });
  await shot(lowPage, 'low-time.png');
  await lowPage.close();
  // The rest in a game on a long clock: a page slow to answer must not lose the game on time
  // before it gets to resign.
  const grant = await apiGame({
    variant: 'tori', opponent: 'engine', side: 'sente', level: 1,
    clock: { kind: 'fischer', main_ms: 600000, increment_ms: 0 },
  });
  await apiMove(grant, '3d3c');
  await waitForPly(grant.game_id, 2);
  const page = await newPage();
  await openWithToken(page, grant);
  await page.waitForSelector('[data-clock="sente"].running');
  assert.match(await page.title(), /^● Your move · Tori shogi/);
  // So does the tab's icon, with a red dot.
  assert.equal(await page.getAttribute('link[rel="icon"]', 'href'), '/favicon-turn.svg');
  const icon = await fetch(`${base}/favicon-turn.svg`);
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('[data-moves] [data-ply="1"].cur');
  await page.keyboard.press('End');
  await page.waitForSelector('[data-moves] [data-ply="2"].cur');
  await page.keyboard.press('f');
  await page.waitForSelector('.board.orientation-gote');
  await page.click('[data-action="resign"]');
  await page.waitForSelector('[data-confirm="resign"]');
  await page.click('[data-action="resign-no"]');
  await page.waitForSelector('[data-action="resign"]');
  assert.equal((await (await fetch(`${base}/api/games/${grant.game_id}`)).json()).status, 'playing');
  await page.click('[data-action="resign"]');
  await page.click('[data-action="resign-yes"]');
  await page.waitForSelector('[data-result="resignation"]');
  await page.waitForSelector('.toggle.sound[data-played="end"]', { state: 'attached' });
  assert.doesNotMatch(await page.title(), /Your move/);
  assert.equal(await page.getAttribute('link[rel="icon"]', 'href'), '/favicon.svg');
  await page.close();
});

test('Between people the clocks start only after both first moves, and the first-move time is shown', async () => {
  const grant = await apiGame({
    variant: 'tori', opponent: 'human', clock: { kind: 'fischer', main_ms: 60000, increment_ms: 0 },
  });
  const joined = await (await fetch(`${base}/api/games/${grant.game_id}/join`,
    { method: 'POST', body: JSON.stringify({ invite: grant.invite }) })).json();
  const page = await newPage();
  await openWithToken(page, grant);
  await page.waitForFunction(() => document.querySelector('[data-first-move]').textContent.startsWith('You have'));
  assert.equal(await page.locator('.clock.running').count(), 0);
  const shownBefore = await page.textContent('[data-first-move]');
  // The seconds the page counts down are the server's: at most 30, and within a second of
  // what the server says is left (a slow page load only shows fewer).
  const left = (await (await fetch(`${base}/api/games/${grant.game_id}`)).json()).first_move_ms_left;
  const shown = Number(/^You have (\d+) s to make a first move/.exec(shownBefore)?.[1]);
  assert.ok(shown <= 30 && Math.abs(shown - left / 1000) <= 1.5, `${shownBefore} with ${left} ms left`);
  await shot(page, 'first-move-notice.png');
  await apiMove(grant, '3d3c');
  await page.waitForFunction(() => document.querySelector('[data-first-move]').textContent.startsWith('Gote has'));
  assert.equal(await page.locator('.clock.running').count(), 0);
  await apiMove({ game_id: grant.game_id, token: joined.token }, '4b3c');
  await page.waitForSelector('[data-clock="sente"].running');
  assert.equal(await page.textContent('[data-first-move]'), '');
  // Nobody was charged for the first moves: a full minute on both clocks.
  const server = await (await fetch(`${base}/api/games/${grant.game_id}`)).json();
  assert.equal(server.gote_clock.remaining_ms, 60000);
  assert.ok(server.sente_clock.remaining_ms > 58000, JSON.stringify(server.sente_clock));
  await page.close();
});

test('A lost connection is shown, the game goes on once it is back, and the notice clears', async () => {
  const page = await newPage();
  // Every socket of the page goes through this route, so the test can cut it.
  let route = null;
  await page.routeWebSocket(/\/api\/games\/\w+\/ws/, (ws) => { ws.connectToServer(); route = ws; });
  const grant = await apiGame({ variant: 'tori', opponent: 'engine', side: 'sente' });
  await openWithToken(page, grant);
  await page.waitForSelector('[data-status]:has-text("your move")');
  await route.close();
  await page.waitForSelector('[data-connection]:has-text("Connection lost")');
  await shot(page, 'connection-lost.png');
  await page.waitForSelector('[data-connection]:has-text("Connection restored")');
  await playByClicks(page, '3d3c');
  await waitPly(page, 2);
  await page.waitForFunction(() => document.querySelector('[data-connection]').textContent === '', null, { timeout: 6000 });
  await page.close();
});

test('Keyboard play: Tab reaches the board, the arrows move a cursor, Enter picks up and moves, a drop from the hand', async () => {
  const page = await newPage(1366, 850);
  await openWithToken(page, await apiGame({ variant: 'tori', opponent: 'engine', level: 1,
    sfen: 'rpckcpl/3f3/sssssss/2s1S2/7/SSSS1SS/LPCKCPR b S 3' }));
  const says = () => page.textContent('[data-board-says]');
  // From gote's hand above the board, Tab goes on to the board.
  await page.focus('[data-hand="gote"]');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('board')), true);
  assert.equal(await page.getAttribute('.board', 'role'), 'application');
  assert.match(await page.getAttribute('.board', 'aria-label'), /Arrow keys/);
  // The cursor starts on the player's side, and says what stands there.
  await page.waitForSelector('.board sq.kbd-cursor[data-square="4f"]');
  assert.equal(await says(), "4f: sente's swallow");
  for (const key of ['ArrowRight', 'ArrowUp', 'ArrowUp']) await page.keyboard.press(key);
  await page.waitForSelector('.board sq.kbd-cursor[data-square="3d"]');
  // The arrows were the board's: the move list did not move.
  assert.equal(await page.getAttribute('[data-moves]', 'data-moves'), '0');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.board sq.selected[data-square="3d"]');
  assert.match(await says(), /swallow on 3d picked up: 1 square to go to/);
  await shot(page, 'keyboard-picked-up.png');
  await page.keyboard.press('ArrowUp');
  assert.equal(await says(), "3c: gote's swallow");
  await page.keyboard.press('Enter');
  await waitPly(page, 2);
  assert.equal(await page.locator('[data-moves] [data-ply="1"]').innerText(), 'Swx3c');
  // Tab on to sente's hand: Enter picks up a swallow, and the board takes the drop.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.hand), 'sente');
  assert.match(await says(), /sente's hand: swallow, 2 of them/);
  await page.waitForSelector('[data-hand="sente"] sg-hp-wrap.kbd-cursor');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('board')), true);
  assert.match(await says(), /picked up to drop/);
  for (const key of ['ArrowLeft', 'ArrowDown', 'ArrowDown']) await page.keyboard.press(key);
  await page.waitForSelector('.board sq.kbd-cursor[data-square="4e"]');
  await page.keyboard.press('Enter');
  await waitPly(page, 3);
  assert.equal(await page.locator('[data-moves] [data-ply="3"]').innerText(), 'Sw*4e');
  // A click focuses the board without the cursor, and the arrows step through the moves again.
  await click(page, '1g');
  await page.waitForFunction(() => !document.querySelector('.board sq.kbd-cursor'));
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('[data-moves] .mv.cur[data-ply="3"], [data-moves] .mv.cur[data-ply="2"]');
  await page.close();
});

test('A game that does not exist says so and stops trying to connect', async () => {
  const page = await newPage();
  let sockets = 0;
  page.on('websocket', () => { sockets += 1; });
  await page.goto(`${base}/game/doesnotexist`);
  await page.waitForSelector('[data-missing-game]:has-text("No such game")');
  await page.waitForTimeout(4000);
  assert.equal(sockets, 1, 'one attempt, no reconnecting');
  assert.equal(await page.locator('[data-connection]').count(), 0, 'no "connection lost" notice');
  await shot(page, 'missing-game.png');
  await page.goto(`${base}/`);
  await page.waitForTimeout(1500);
  assert.equal(sockets, 1, 'nothing after leaving the page');
  await page.close();
});

test('Premove: set during the opponent\'s turn, played when it comes if legal, dropped if not', async () => {
  const grant = await apiGame({ variant: 'tori', opponent: 'human', clock: { kind: 'unlimited' } });
  const joined = await (await fetch(`${base}/api/games/${grant.game_id}/join`,
    { method: 'POST', body: JSON.stringify({ invite: grant.invite }) })).json();
  const gote = { game_id: grant.game_id, token: joined.token };
  const page = await newPage();
  await openWithToken(page, grant);
  await page.waitForSelector('[data-status]:has-text("your move")');
  await playByClicks(page, '1e1d');
  await waitPly(page, 1);
  // Gote to move: sente premoves its swallow's capture on 3c.
  await click(page, '3d');
  await page.waitForSelector('.board sq.pre-dest');
  await click(page, '3c');
  await page.waitForSelector('.board sq.current-pre');
  // The touch that premoves onto gote's swallow is a move, not a look at the swallow: no card
  // of gote's piece opens over the board and the clock.
  assert.equal(await page.locator('.inspector[data-color="gote"]:not([hidden])').count(), 0, 'no card of the piece premoved onto');
  await shot(page, 'premove-set.png');
  await apiMove(gote, '7c7d');
  // The premove goes out as soon as gote's move arrives.
  await waitPly(page, 3);
  const afterPremove = await (await fetch(`${base}/api/games/${grant.game_id}`)).json();
  assert.equal(afterPremove.moves[2].usi, '3d3c');
  // A premove onto a square the own swallow still holds when the turn comes is dropped.
  await click(page, '4f');
  await click(page, '5e');
  await page.waitForSelector('.board sq.current-pre');
  await apiMove(gote, '4b3c');
  await waitPly(page, 4);
  await page.waitForTimeout(800);
  const afterDropped = await (await fetch(`${base}/api/games/${grant.game_id}`)).json();
  assert.equal(afterDropped.ply, 4);
  assert.equal(afterDropped.side_to_move, 'sente');
  assert.equal(await page.locator('.board sq.current-pre').count(), 0);
  // The turn is the player's as usual.
  await playByClicks(page, '2e2d');
  await waitPly(page, 5);
  await page.close();
});

test('Check is shown: the checked phoenix in red for both players, a + after the checking move, and again when replaying and on the analysis board', async () => {
  const grant = await apiGame({ variant: 'tori', opponent: 'human', clock: { kind: 'unlimited' } });
  const joined = await (await fetch(`${base}/api/games/${grant.game_id}/join`,
    { method: 'POST', body: JSON.stringify({ invite: grant.invite }) })).json();
  const sente = await newPage();
  const gote = await otherPersonPage();
  await openWithToken(sente, grant);
  await openWithToken(gote, { game_id: grant.game_id, token: joined.token });
  await sente.waitForSelector('[data-status]:has-text("your move")');
  await gote.waitForSelector('[data-clock="gote"]:has-text("you")');
  // The swallow dropped in front of gote's phoenix checks it.
  const seats = [grant, { game_id: grant.game_id, token: joined.token }];
  for (const [ply, usi] of ['3d3c', '4b3c', 'S*4b'].entries()) await apiMove(seats[ply % 2], usi);
  for (const page of [sente, gote]) {
    await waitPly(page, 3);
    await page.waitForSelector('.board sq.check[data-square="4a"]');
    assert.equal(await page.locator('.board sq.check').count(), 1);
    await page.waitForSelector('[data-moves] .mv[data-ply="3"] [data-check]');
    assert.equal(await page.locator('[data-moves] [data-check]').count(), 1, 'only the checking move is marked');
    assert.match(await page.locator('[data-status]').innerText(), /\(check\)/);
  }
  await shot(gote, 'check-in-play.png');
  // The phoenix takes the swallow: no check any more, but stepping back shows it again.
  await apiMove(seats[1], '4a4b');
  await waitPly(sente, 4);
  await sente.waitForFunction(() => !document.querySelector('.board sq.check'));
  await sente.click('[data-replay="1"]');
  await sente.waitForSelector('.board sq.check[data-square="4a"]');
  await sente.click('[data-replay="1"]');
  await sente.waitForFunction(() => !document.querySelector('.board sq.check'));
  // The analysis board marks it too, on the board and in its tree of moves, on a phone.
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/analysis`);
  await phone.waitForSelector('[data-action="load"]');
  await phone.fill('textarea[name="moves"]', '3d3c 4b3c S*4b');
  await phone.click('[data-action="load"]');
  await phone.waitForSelector('.board sq.check[data-square="4a"]');
  await phone.waitForSelector('[data-tree-move="3d3c 4b3c S*4b"] [data-check]');
  await shot(phone, 'check-analysis-phone.png');
  for (const page of [sente, gote, phone]) await page.close();
});
