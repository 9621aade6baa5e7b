// Browser tests: the real `tsubame serve` with a fresh SQLite file, driven through Debian's
// Chromium by playwright-core. Screenshots go to target/ui-screenshots/.
// Playwright gives each launch a fresh temporary profile.
// TSUBAME_BIN names the tsubame binary (default ../target/ci/tsubame); CHROMIUM the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const root = resolve(import.meta.dirname, '..', '..');
const bin = process.env.TSUBAME_BIN || join(root, 'target', 'ci', 'tsubame');
const shots = join(root, 'target', 'ui-screenshots');
const work = mkdtempSync(join(tmpdir(), 'tsubame-ui-'));
let server;
let base;
let browser;
// Anything the page's Content-Security-Policy refused: the UI must need nothing it forbids.
const refusedByPolicy = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  // Every page of the tests comes from one address and creates games faster than a player.
  server = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--database', `sqlite://${join(work, 'ui.db')}`,
    '--games-per-minute', '1000'],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TSUBAME_LOG: 'warn' } });
  base = await new Promise((done, fail) => {
    server.stdout.on('data', (chunk) => {
      const match = String(chunk).match(/listening on (http:\/\/\S+)/);
      if (match) done(match[1]);
    });
    server.on('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  assert.deepEqual(refusedByPolicy, [], 'the Content-Security-Policy refused something the UI needs');
  await browser?.close();
  server?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

test('The page has an icon, and a missing file is not answered with the page', async () => {
  const page = await newPage();
  await page.goto(`${base}/`);
  const href = await page.getAttribute('link[rel="icon"]', 'href');
  const icon = await fetch(new URL(href, base));
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
  assert.equal((await fetch(`${base}/favicon.ico`)).status, 404);
  await page.close();
});

function watchPolicy(page) {
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
  });
}

async function newPage(width = 1200, height = 900) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('pageerror', (e) => { throw e; });
  watchPolicy(page);
  return page;
}

/** A page in a browser context of its own: another person, with their own stored tokens. */
async function otherPersonPage(width = 1200, height = 900) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  watchPolicy(page);
  // The browser may already be closing (after the last test): nothing is left to close then.
  page.on('close', () => context.close().catch(() => {}));
  return page;
}

/** Starts a Tori game against a person from the lobby form, at unlimited time. */
async function createHumanGame(page, { listed = false } = {}) {
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-action="create"]');
  await page.selectOption('select[name="variant"]', 'tori');
  await page.check('input[name="opponent"][value="human"]');
  if (listed) await page.check('input[name="public"]');
  await page.selectOption('select[name="side"]', 'sente');
  await page.selectOption('select[name="clock"]', 'unlimited');
  await page.click('[data-action="create"]');
  await page.waitForSelector('[data-status]');
}

/** Plays one USI move by clicking: the piece (or the hand piece), then the destination. */
async function playByClicks(page, usi, side = null) {
  const drop = usi.match(/^([A-Z])\*(\w+)$/);
  if (drop) {
    // Both hands may hold the kind: the mover's is named when it matters.
    await page.click(`[data-hand${side ? `="${side}"` : ''}] [data-drop="${drop[1]}"]:visible`);
    await click(page, drop[2]);
  } else {
    await click(page, usi.slice(0, 2));
    await click(page, usi.slice(2, 4));
  }
  // Several moves reach the square: pick the one meant.
  if (await page.locator('[data-dialog]').count()) await page.click(`[data-dialog] button:has-text("(${usi})")`);
}

/** Two people take turns: sente's page plays the even plies, gote's the odd ones; each waits
 * to see the other's move arrive before answering. */
async function playLine(sente, gote, line, from = 0) {
  for (const [index, usi] of line.split(' ').entries()) {
    const ply = from + index;
    await waitPly(ply % 2 === 0 ? sente : gote, ply);
    await playByClicks(ply % 2 === 0 ? sente : gote, usi);
    await waitPly(sente, ply + 1);
    await waitPly(gote, ply + 1);
  }
}

/** Creates a game through the API (for set positions the form does not offer). */
async function apiGame(body) {
  const response = await fetch(`${base}/api/games`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(response.status, 201);
  return response.json();
}

async function apiMove(grant, usi) {
  const response = await fetch(`${base}/api/games/${grant.game_id}/moves`,
    { method: 'POST', body: JSON.stringify({ token: grant.token, move: usi }) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

async function waitForPly(id, ply) {
  for (let tries = 0; tries < 300; tries++) {
    const view = await (await fetch(`${base}/api/games/${id}`)).json();
    if (view.ply >= ply) return view;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`game ${id} did not reach ply ${ply}`);
}

async function openWithToken(page, grant) {
  await page.goto(`${base}/`);
  await page.evaluate(([id, token]) => localStorage.setItem(`tsubame.token.${id}`, token), [grant.game_id, grant.token]);
  await page.goto(`${base}/game/${grant.game_id}`);
  await page.waitForSelector('.board sq');
  // The board shows the game before the server has said which side this page plays (its
  // hello over the socket); a click before that is a spectator's and would be lost.
  await page.waitForSelector('[data-clock]:has-text("— you")');
}

/** Saves a screenshot once the board's pieces have stopped moving and fading. */
async function shot(page, name, options = {}) {
  await page.waitForFunction(() => !document.querySelector('.board piece.anim, .board piece.fading'));
  await page.waitForTimeout(50);
  await page.screenshot({ path: join(shots, name), ...options });
}

async function click(page, square) {
  // Shogiground takes clicks on its piece layer above the squares: click where the square is.
  await page.locator(`.board [data-square="${square}"]`).click({ force: true });
}

async function waitPly(page, ply) {
  await page.waitForFunction((n) => document.querySelector('[data-moves]')?.dataset.moves >= n, ply, { timeout: 20000 });
}

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

// A Tori game from the start position that sente mates on the 13th move: a swallow promotes on
// capturing (3c3b+), falcon and crane are dropped from the hand, the promoted falcon (eagle)
// makes a two-square jump, and the dropped crane mates.
const TORI_MATE = '3d3c 4b3b 3c3b+ 3a4b F*2b 4a5b 2b1a+ 4b3c 1a3c 5a6b 3b3d 5b4a C*3b';

test('Invite link: two people in two browsers play by clicking, each sees the other live, to mate', async () => {
  const sente = await otherPersonPage();
  await createHumanGame(sente);
  await sente.waitForSelector('.invite code');
  const link = await sente.locator('.invite code').innerText();
  assert.match(link, /\/join\/\w+\/[0-9a-f]+$/);
  assert.match(await sente.locator('[data-status]').innerText(), /waiting for the second player/);
  const gote = await otherPersonPage();
  await gote.goto(link);
  await gote.waitForSelector('.board sq');
  // The one who opened the link holds gote's seat: the board turns for them.
  await gote.waitForSelector('[data-clock="gote"]:has-text("you")');
  await sente.waitForSelector('[data-status]:has-text("your move")');
  await playLine(sente, gote, TORI_MATE.split(' ').slice(0, 2).join(' '));
  // Each saw the other's move arrive without reloading.
  assert.equal(await sente.locator('[data-moves] [data-ply="2"]').innerText(), 'Fa-3b');
  assert.equal(await gote.locator('[data-moves] [data-ply="1"]').innerText(), 'Swx3c');
  await shot(gote, 'tori-invited-gote.png');
  await playLine(sente, gote, TORI_MATE.split(' ').slice(2).join(' '), 2);
  // The promotion and both drops were played by clicking.
  assert.equal(await sente.locator('[data-moves] [data-ply="3"]').innerText(), 'Swx3b+');
  assert.equal(await sente.locator('[data-moves] [data-ply="5"]').innerText(), 'Fa*2b');
  // The mating drop gives check: its mark follows the move, apart from its text.
  assert.equal(await sente.locator('[data-moves] [data-ply="13"]').innerText(), 'Cr*3b+');
  assert.equal(await sente.locator('[data-moves] [data-ply="13"] [data-check]').count(), 1);
  for (const page of [sente, gote]) {
    await page.waitForSelector('[data-result]');
    assert.equal(await page.locator('[data-result]').getAttribute('data-result'), 'checkmate');
    assert.match(await page.locator('[data-result]').innerText(), /Guest-\w+ \(sente\) wins — checkmate/);
    assert.equal(await page.getAttribute('[data-personal-end]', 'data-personal-end'), page === sente ? 'won' : 'lost');
    assert.match(await page.locator('[data-status]').innerText(), /game over/);
  }
  await sente.waitForSelector('[data-export="usi"]');
  assert.match(await sente.locator('[data-export="usi"]').inputValue(), /moves 3d3c 4b3b 3c3b\+ .* C\*3b$/);
  assert.ok((await sente.locator('[data-export="fen"]').inputValue()).length > 10);
  await shot(sente, 'tori-finished.png');
  await shot(gote, 'tori-finished-gote.png');
  // Replay from the start: all 32 pieces are back.
  await sente.click('[data-replay="0"]');
  // (Captured pieces fade out during the board's animation before they are gone.)
  await sente.waitForFunction(() => document.querySelectorAll('.board sg-pieces piece').length === 32);
  assert.equal(await sente.locator('.board').getAttribute('data-sfen'), 'rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1');
  await sente.close();
  await gote.close();
});

test('Lobby: a listed seek made in one browser is joined from the lobby list in another', async () => {
  const creator = await otherPersonPage();
  await createHumanGame(creator, { listed: true });
  const id = creator.url().match(/\/game\/(\w+)/)[1];
  // In the lobby of the browser that made it, the seek is its own: opened, not joined.
  await creator.goto(`${base}/`);
  const own = creator.locator(`[data-seek="${id}"]`);
  await own.waitFor();
  // It can be cancelled, never joined.
  assert.equal(await own.locator('[data-join]').count(), 0);
  assert.equal(await own.locator('[data-cancel-seek]').count(), 1);
  await shot(creator, 'lobby-own-seek.png');
  await own.locator('[data-own-seek]').click();
  await creator.waitForURL(`**/game/${id}`);
  await creator.waitForSelector('[data-status]:has-text("waiting for the second player")');
  const joiner = await otherPersonPage();
  await joiner.goto(`${base}/`);
  const seek = joiner.locator(`[data-seek="${id}"]`);
  await seek.waitFor();
  await shot(joiner, 'lobby-seek.png');
  await seek.locator('button').click();
  await joiner.waitForURL(`**/game/${id}`);
  await joiner.waitForSelector('[data-clock="gote"]:has-text("you")');
  await creator.waitForSelector('[data-status]:has-text("your move")');
  await playLine(creator, joiner, '3d3c 4b3c');
  assert.equal(await creator.locator('[data-moves] [data-ply="2"]').innerText(), 'Fax3c');
  // Once taken, the seek leaves the lobby.
  await joiner.goto(`${base}/`);
  await joiner.waitForSelector('text=No open seeks.');
  await creator.close();
  await joiner.close();
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
  await shot(wide, 'wa-promotion-choice.png');
  await wide.click('[data-choice="promote"]');
  await waitPly(wide, 1);
  assert.match(await wide.locator('[data-moves] [data-ply="1"]').innerText(), /\+$/);
  await shot(wide, 'wa-board.png');
  await wide.close();
});

/** The page boxes of these selectors, rounded to whole pixels. */
async function boxes(page, selectors) {
  return page.evaluate((list) => Object.fromEntries(list.map((selector) => {
    const r = document.querySelector(selector)?.getBoundingClientRect();
    return [selector, r ? { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right) } : null];
  })), selectors);
}

test('A phone: a one-row top bar with a menu, and each game playable without scrolling, the players above and below the board', async () => {
  const page = await newPage(390, 844);
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-action="login"]');
  // One row: brand, account and the menu button; the pages wait behind the button.
  const top = await page.locator('header.top').boundingBox();
  assert.ok(top.height <= 56, `top bar ${top.height} px tall`);
  assert.equal(await page.locator('header.top nav').isVisible(), false);
  assert.equal(await page.getAttribute('#menu-button', 'aria-expanded'), 'false');
  await page.click('#menu-button');
  await page.locator('header.top nav a:has-text("Rules")').waitFor({ state: 'visible' });
  assert.equal(await page.getAttribute('#menu-button', 'aria-expanded'), 'true');
  assert.equal(await page.locator('#pieces').isVisible(), true);
  await shot(page, 'phone-menu.png');
  await page.click('header.top nav a:has-text("Puzzles")');
  await page.waitForURL('**/puzzles');
  assert.equal(await page.locator('header.top nav').isVisible(), false);
  assert.equal(await page.getAttribute('#menu-button', 'aria-expanded'), 'false');

  const games = [
    ['tori', { sfen: 'rpckcpl/3f3/sssssss/2s1S2/7/SSSS1SS/LPCKCPR b S 3' }, '3d3c'],
    ['wa', {}, '6k5j'],
    ['tenjiku', {}, '8l8k'],
  ];
  for (const [variant, extra, move] of games) {
    await openWithToken(page, await apiGame({ variant, opponent: 'engine', level: 1, ...extra }));
    await click(page, move.slice(0, 2));
    await click(page, move.slice(2, 4));
    await waitPly(page, 2);
    const at = await boxes(page, ['[data-bar="top"] [data-clock="gote"]', '.board-wrap', '[data-bar="bottom"] [data-clock="sente"]',
      '[data-action="resign"]', '.moves', '.moves [data-ply="2"]']);
    // The opponent's name and clock above the board, one's own below it.
    assert.ok(at['[data-bar="top"] [data-clock="gote"]'].bottom <= at['.board-wrap'].top, `${variant}: ${JSON.stringify(at)}`);
    assert.ok(at['[data-bar="bottom"] [data-clock="sente"]'].top >= at['.board-wrap'].bottom, `${variant}: ${JSON.stringify(at)}`);
    // The board, both players, Resign and the moves on one screen, nothing wider than it.
    for (const key of ['[data-action="resign"]', '.moves']) assert.ok(at[key].bottom <= 844, `${variant}: ${key} at ${at[key].bottom}`);
    assert.ok(at['.board-wrap'].right <= 390);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
    // The moves are one row.
    const moves = at['.moves'];
    assert.ok(moves.bottom - moves.top < 40, `${variant}: the move list is ${moves.bottom - moves.top} px tall`);
    assert.ok(Math.abs(at['.moves [data-ply="2"]'].top - moves.top) < 10);
    await shot(page, `phone-game-${variant}.png`);
  }

  // Touching a piece opens its card over the page: nothing under it moves, and it closes.
  const steady = ['[data-bar="top"]', '.board-wrap', '[data-bar="bottom"]', '[data-action="resign"]', '.moves'];
  const before = await boxes(page, steady);
  // A piece picked up to move opens no card over the board it may move on; the opponent's does.
  await click(page, '8p');
  await page.waitForSelector('.board sq.selected');
  assert.equal(await page.locator('.inspector').isVisible(), false);
  await click(page, '8a');
  await page.waitForSelector('.inspector:not([hidden])');
  assert.deepEqual(await boxes(page, steady), before);
  const card = await page.locator('.inspector').boundingBox();
  assert.ok(card.y >= 0 && card.y + card.height <= 844 && card.x >= 0 && card.x + card.width <= 390, JSON.stringify(card));
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.inspector')).position), 'fixed');
  await shot(page, 'phone-piece-card.png');
  await page.click('[data-action="close-inspector"]');
  await page.waitForSelector('.inspector', { state: 'hidden' });
  await page.close();
});

test('The top bar is one row once logged in, with games waiting, in English and Japanese, on a laptop and a phone', async () => {
  const name = `bar_${Date.now() % 100000}_long`;
  const cookie = await signUpFrom(name, '10.80.0.1');
  // A game against the computer waits for the player's move.
  await postAs(cookie, '/api/games', { variant: 'tenjiku', opponent: 'engine', level: 1, side: 'sente' });
  for (const lang of ['en', 'ja']) {
    // A laptop, a phone, the phone held sideways and a tablet: the pages fold behind the menu
    // wherever they would not fit beside the name and the switches.
    for (const [width, height, most] of [[1366, 850, 52], [390, 844, 56], [844, 390, 56], [1024, 768, 56]]) {
      const page = await otherPersonPage(width, height);
      await page.context().addCookies([{ name: cookie.split('=')[0], value: cookie.split('=')[1], url: base }]);
      await page.goto(`${base}/`);
      await page.evaluate((l) => localStorage.setItem('tsubame.lang', l), lang);
      await page.goto(`${base}/`);
      await page.waitForSelector('[data-your-turn="1"]');
      const bar = await page.locator('header.top').boundingBox();
      assert.ok(bar.height <= most, `${lang} ${width}: the top bar is ${bar.height} px tall`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width);
      // Nothing in the bar lies over anything else.
      const parts = await page.evaluate(() => ['.brand', '#account', '#menu-button', '.top nav', '#display-button']
        .map((selector) => document.querySelector(selector).getBoundingClientRect())
        .filter((r) => r.width > 0 && r.bottom <= 60).map((r) => [r.left, r.right]));
      for (const [i, a] of parts.entries()) {
        for (const b of parts.slice(i + 1)) assert.ok(a[1] <= b[0] || b[1] <= a[0], `${lang} ${width}: ${JSON.stringify(parts)}`);
      }
      if (width > 1080) {
        // The switches open below their button and close again.
        assert.equal(await page.isVisible('#pieces'), false);
        await page.click('#display-button');
        await page.waitForSelector('#pieces', { state: 'visible' });
        await shot(page, `top-bar-display-${lang}-laptop.png`, { clip: { x: 0, y: 0, width, height: 260 } });
        await page.keyboard.press('Escape');
        await page.waitForSelector('#pieces', { state: 'hidden' });
      } else {
        // Settings and logging out are in the menu.
        await page.click('#menu-button');
        await page.waitForSelector('[data-menu-action="logout"]', { state: 'visible' });
        await shot(page, `top-bar-menu-${lang}-phone.png`);
        await page.click('#menu-button');
      }
      await shot(page, `top-bar-${lang}-${width}.png`, { clip: { x: 0, y: 0, width, height: 120 } });
      await page.evaluate(() => localStorage.setItem('tsubame.lang', 'en'));
      await page.close();
    }
  }
});

test('A laptop: the game stays put when a hand fills, and the piece card opens in view', async () => {
  const page = await newPage(1366, 850);
  await openWithToken(page, await apiGame({ variant: 'tori', opponent: 'engine', level: 1,
    sfen: 'rpckcpl/3f3/sssssss/2s1S2/7/SSSS1SS/LPCKCPR b - 3' }));
  // The side panel grows downwards with the moves; where it starts stays.
  const steady = ['[data-bar="top"]', '.board-wrap', '[data-bar="bottom"]', '.side-area > .panel', '.board-tools'];
  const before = await boxes(page, steady);
  // The whole board, both players and the board's tools in the window.
  assert.ok(before['.board-tools'].bottom <= 850, JSON.stringify(before));
  await click(page, '3d');
  await click(page, '3c');
  await waitPly(page, 1);
  await page.waitForSelector('[data-hand="sente"] [data-nb="1"]');
  const withTop = (box) => ({ ...box, '.side-area > .panel': box['.side-area > .panel'].top });
  assert.deepEqual(withTop(await boxes(page, steady)), withTop(before));
  await click(page, '1g');
  await page.waitForSelector('.inspector:not([hidden])');
  const card = await page.locator('.inspector').boundingBox();
  assert.ok(card.y + card.height <= 850, JSON.stringify(card));
  assert.deepEqual(withTop(await boxes(page, steady)), withTop(before));
  await shot(page, 'laptop-piece-card.png');
  await page.keyboard.press('Escape');
  await page.waitForSelector('.inspector', { state: 'hidden' });
  await page.close();
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
    ['Directly (9o9m)', 'Via 9n (9o9n9m)', 'Cancel']);
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
    ['Via 9n (9o9n9o)', 'Pass (9o9o)', 'Cancel']);
  await page.click('[data-dialog] button:has-text("(9o9n9o)")');
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
    if (await page.locator('[data-dialog]').count()) await page.click(`[data-dialog] button:has-text("(${puzzle.moves[0]})")`);
    await page.waitForSelector('[data-puzzle-status="done"]');
    assert.match(await page.textContent('[data-puzzle-mine]'), /1 solved, 0 failed/);
    await page.close();
  }
});

/** Solves the tap drill on the page as the rules list its answer, with one wrong tap first
 * (two stars); answers the drill's key. */
async function solveDrill(page, replay) {
  await page.waitForSelector('[data-drill] .learn-board[data-sfen]');
  const drill = await page.getAttribute('[data-drill]', 'data-drill');
  const [code, stage] = drill.split(' ');
  const sfen = await page.getAttribute('.learn-board', 'data-sfen');
  const record = await replay('tori', sfen);
  const cells = await page.locator('.learn-sq').evaluateAll((all) => all.map((b) => ({ square: b.dataset.square, empty: !b.querySelector('piece') })));
  let answer;
  if (stage === 'drops') {
    const allowed = new Set(record.legal_moves.filter((m) => m.startsWith(`${code}*`)).map((m) => m.slice(2)));
    answer = cells.filter((c) => c.empty && !allowed.has(c.square)).map((c) => c.square);
  } else if (stage === 'promotion') {
    // A falcon or swallow must promote entering the zone: its promoting moves are the answer.
    const from = await page.getAttribute('.learn-from', 'data-square');
    answer = [...new Set(record.legal_moves.filter((m) => m.startsWith(from) && m.endsWith('+')).map((m) => m.slice(2, 4)))];
    if (code === 'F') assert.equal(answer.length, 3, `${drill}: ${answer}`);
    assert.equal(await page.locator('.learn-sq.learn-zone').count(), 14, 'the two far ranks shaded');
  } else {
    const from = await page.getAttribute('.learn-from', 'data-square');
    answer = [...new Set(record.legal_moves.filter((m) => m.startsWith(from) && !m.includes('*')).map((m) => m.slice(2, 4)))];
  }
  assert.ok(answer.length > 0, drill);
  const wrong = cells.find((c) => !answer.includes(c.square) && c.empty);
  await page.click(`.learn-sq[data-square="${wrong.square}"]`);
  for (const square of answer) await page.click(`.learn-sq[data-square="${square}"]`);
  await page.waitForSelector('[data-learn-status][data-stars="2"]');
  assert.equal(await page.locator('.learn-sq.right').count(), answer.length);
  return drill;
}

test('Learn the pieces: each piece explained, then every square it reaches, with pieces in its way, where it promotes, and where a swallow may not be dropped, as the rules list them', async () => {
  const replay = async (variant, sfen) => (await fetch(`${base}/api/replay`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ variant, options: '', sfen, moves: [] }) })).json();
  for (const [width, height, suffix] of [[1366, 850, ''], [390, 844, '-phone']]) {
    const page = await newPage(width, height);
    for (const piece of ['falcon', 'swallow']) {
      await page.goto(`${base}/learn/tori/piece-${piece}`);
      // First the piece's card: its diagram, and the piece it promotes to.
      await page.waitForSelector('[data-lesson-piece] .diagram');
      assert.equal(await page.locator('[data-lesson-piece] .piece-rule').count(), 2, `${piece} and its promoted form`);
      if (piece === 'falcon') await shot(page, `learn-piece-card${suffix}.png`);
      await page.click('[data-lesson-continue]');
      // Then its drills, one after another, until the lesson is done.
      while (!(await page.locator('[data-lesson-finished]').count())) {
        const drill = await solveDrill(page, replay);
        if (drill === 'S drops') await shot(page, `learn-drops${suffix}.png`);
        if (drill === 'F blocked') await shot(page, `learn-blocked${suffix}.png`);
        if (drill === 'F promotion') await shot(page, `learn-promotion${suffix}.png`);
        await page.click('[data-lesson-continue]');
        await page.waitForSelector('[data-drill], [data-lesson-finished]');
      }
    }
    // The stars are kept: the path shows the fewest of the falcon's drills, and both done.
    await page.goto(`${base}/learn/tori`);
    assert.match(await page.textContent('[data-lesson-link="piece-falcon"]'), /★★(?!★)/);
    assert.equal(await page.locator('.lesson-item.done [data-lesson-link="piece-swallow"]').count(), 1);
    await page.close();
  }
  // Tenjiku on a phone: the lion's drill fits and its squares are the rules'.
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/learn/tenjiku/piece-lion`);
  await phone.click('[data-lesson-continue]');
  await phone.waitForSelector('[data-drill="L! alone"] .learn-board[data-sfen]');
  const box = await phone.locator('.learn-board').boundingBox();
  assert.ok(box.width <= 390, `the board is ${box.width} px wide`);
  await phone.locator('.learn-board').scrollIntoViewIfNeeded();
  await shot(phone, 'learn-tenjiku-lion-phone.png');
  await phone.close();
});

test('The learn path: from the home page, each lesson read then tried on a board, a wrong move said and tried again, progress kept, titles as titles, in English and Japanese, at both sizes', async () => {
  for (const [width, height, suffix] of [[1366, 850, ''], [390, 844, '-phone']]) {
    const page = await otherPersonPage(width, height);
    await page.goto(`${base}/`);
    await page.click('[data-learn-link="tori"]');
    await page.waitForSelector('[data-learn-path="tori"]');
    assert.equal(await page.title(), 'Learn Tori shogi · Tsubame');
    assert.equal(await page.getAttribute('[data-path-next]', 'data-path-next'), 'game', 'the path starts with the game');
    const chapters = await page.locator('[data-chapter]').evaluateAll((all) => all.map((c) => c.dataset.chapter));
    assert.deepEqual(chapters, ['start', 'pieces', 'basics', 'special', 'play']);
    // What the game is: read, then find one's own phoenix (a wrong tap is said).
    await page.click('[data-path-next]');
    await page.waitForSelector('[data-lesson-read="game-tori"]');
    assert.equal(await page.title(), 'What Tori shogi is · Learn Tori shogi · Tsubame');
    await page.click('[data-lesson-continue]');
    await page.click('.learn-sq[data-square="4a"]');
    await page.waitForSelector('[data-lesson-message].wrong');
    await page.click('.learn-sq[data-square="4g"]');
    await page.waitForSelector('[data-lesson-message].right');
    await page.click('[data-lesson-continue]');
    await page.waitForSelector('[data-next-lesson="piece-phoenix"]');
    // Capturing: a move that captures nothing is said so and taken back; the capture is right.
    await page.goto(`${base}/learn/tori/capture`);
    await page.click('[data-lesson-continue]');
    await page.waitForSelector('[data-lesson-task="capture"] .board sq');
    await playByClicks(page, '4e3d');
    await page.waitForSelector('[data-lesson-message][data-verdict="wrong"]:has-text("captures nothing")');
    await shot(page, `learn-lesson-wrong${suffix}.png`);
    await page.click('[data-lesson-retry]');
    await page.waitForSelector('[data-lesson-message]:not([data-verdict])');
    await playByClicks(page, '4e5d');
    await page.waitForSelector('[data-lesson-message][data-verdict="right"]');
    await page.click('[data-lesson-continue]');
    // Drops: the swallow from the hand, where it checks.
    await page.waitForSelector('[data-lesson-read="drops-tori"]');
    await page.click('[data-lesson-continue]');
    await page.waitForSelector('[data-lesson-task="drop-check"] .board sq');
    await playByClicks(page, 'S*4b', 'sente');
    await page.waitForSelector('[data-lesson-message][data-verdict="right"]');
    // The dropped swallow glides from the hand: the picture once it stands on 4b.
    await page.waitForFunction(() => [...document.querySelectorAll('.board sg-pieces piece')].some((p) => p.sgKey === '4b'));
    await page.waitForTimeout(400);
    await shot(page, `learn-lesson-drop${suffix}.png`);
    await page.click('[data-lesson-continue]');
    await page.waitForSelector('[data-next-lesson="promotion"]');
    // Check and mate: the mate is a falcon's drop.
    await page.goto(`${base}/learn/tori/check`);
    for (const [task, usi] of [['give-check', '3c3b'], ['escape-capture', '4g4f'], ['mate-in-one', 'F*1b']]) {
      await page.click('[data-lesson-continue]');
      await page.waitForSelector(`[data-lesson-task="${task}"] .board sq`);
      await playByClicks(page, usi, 'sente');
      await page.waitForSelector('[data-lesson-message][data-verdict="right"]');
      if (task === 'mate-in-one') assert.equal(await page.textContent('[data-lesson-message]'), 'Checkmate!');
      await page.click('[data-lesson-continue]');
    }
    // Repetition: the move that makes the position a third time loses; another is right.
    await page.goto(`${base}/learn/tori/repetition`);
    await page.click('[data-lesson-continue]');
    await page.waitForSelector('[data-lesson-task="repetition"] .board sq');
    await playByClicks(page, '4g4f');
    await page.waitForSelector('[data-lesson-message][data-verdict="wrong"]:has-text("third time")');
    await page.click('[data-lesson-retry]');
    await playByClicks(page, '4g5g');
    await page.waitForSelector('[data-lesson-message][data-verdict="right"]');
    // The path keeps what was done and goes on from the first lesson not done.
    await page.goto(`${base}/learn/tori`);
    await page.waitForSelector('[data-learn-path="tori"]');
    for (const id of ['game', 'capture', 'check']) assert.equal(await page.locator(`.lesson-item.done [data-lesson-link="${id}"]`).count(), 1, id);
    assert.equal(await page.locator('.lesson-item.done [data-lesson-link="repetition"]').count(), 0, 'a lesson is done at its end');
    assert.equal(await page.getAttribute('[data-path-next]', 'data-path-next'), 'piece-phoenix');
    assert.match(await page.textContent('[data-path-done]'), /^3 of 14 lessons done$/);
    await shot(page, `learn-path${suffix}.png`, { fullPage: true });
    // The last lesson leads to beginner puzzles.
    await page.goto(`${base}/learn/tori/first-games`);
    await page.click('[data-lesson-continue]');
    await page.click('[data-lesson-puzzles]');
    await page.waitForURL(`${base}/puzzles/tori?theme=beginner`);
    assert.equal(await page.inputValue('[data-puzzle-theme]'), 'beginner');
    // In Japanese: the path and a lesson's title in the page's title.
    await page.goto(`${base}/learn/tenjiku`);
    await page.evaluate(() => localStorage.setItem('tsubame.lang', 'ja'));
    await page.goto(`${base}/learn/tenjiku/lions`);
    await page.waitForSelector('[data-lesson-read="lions"]');
    assert.match(await page.title(), /^獅子 · 天竺将棋を覚える · Tsubame$/);
    assert.match(await page.textContent('[data-lesson-read]'), /居食い/);
    await page.evaluate(() => localStorage.setItem('tsubame.lang', 'en'));
    await page.close();
  }
  // Tenjiku's own rules on a laptop: a lion takes two pawns in one move, a fire demon burns
  // three, a great general jumps two pawns to take a rook.
  const page = await newPage(1366, 850);
  for (const [lesson, usi, name] of [['lions', '8l8k8j', 'learn-lesson-lion.png'], ['burning', '8l8g', 'learn-lesson-burning.png'], ['jumping', '8n8g', null]]) {
    await page.goto(`${base}/learn/tenjiku/${lesson}`);
    await page.click('[data-lesson-continue]');
    await page.waitForSelector('[data-lesson-task] .board sq');
    const board = await page.locator('.board').boundingBox();
    assert.ok(board.y + board.height <= 850, `the board fits the window: ${JSON.stringify(board)}`);
    if (usi.length > 4) {
      // The lion's two steps: from, to, then the route through the first pawn.
      await click(page, usi.slice(0, 2));
      await click(page, usi.slice(4, 6));
      await page.click(`[data-dialog] button:has-text("(${usi})")`);
    } else {
      await playByClicks(page, usi);
    }
    await page.waitForSelector('[data-lesson-message][data-verdict="right"]');
    if (name) await shot(page, name);
  }
  // A lesson the game does not have: the site's "not found", answered 404.
  const response = await page.goto(`${base}/learn/tori/burning`);
  assert.equal(response.status(), 404);
  await page.waitForSelector('[data-not-found]');
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
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.sfen.startsWith('rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/'));
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
  // No main time, four periods of 3 s; the clocks start once both sides have made a first move.
  const grant = await apiGame({
    variant: 'tori', opponent: 'engine', side: 'sente', level: 1,
    clock: { kind: 'byoyomi', main_ms: 0, periods: 4, period_ms: 3000 },
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
  const [shownTime, shownPeriods] = await page.evaluate(() => {
    const clock = document.querySelector('[data-clock="sente"]');
    return [clock.querySelector('.t').textContent, clock.querySelectorAll('.p')[1].textContent];
  });
  const server = await (await fetch(`${base}/api/games/${grant.game_id}`)).json();
  const view = server.sente_clock;
  assert.equal(view.remaining_ms, 0);
  assert.equal(shownPeriods, `byo-yomi ${view.periods}×3s`, `server: ${JSON.stringify(view)}`);
  const seconds = Number(shownTime.replace(/s$/, ''));
  assert.ok(Math.abs(seconds - Math.ceil(view.period_ms / 1000)) <= 1,
    `shown ${shownTime}, server ${JSON.stringify(view)}`);
  await shot(page, 'byoyomi-after-reload.png');
  await page.close();
});

test('Low time shows tenths in red, the tab tells whose move it is, keys replay and flip, resigning asks in the page', async () => {
  const grant = await apiGame({
    variant: 'tori', opponent: 'engine', side: 'sente', level: 1,
    clock: { kind: 'fischer', main_ms: 9500, increment_ms: 0 },
  });
  await apiMove(grant, '3d3c');
  await waitForPly(grant.game_id, 2);
  const page = await newPage();
  await openWithToken(page, grant);
  await page.waitForSelector('[data-clock="sente"].running.low');
  assert.match(await page.textContent('[data-clock="sente"] .t'), /^0:0\d\.\d$/);
  // The low-time warning sounds once the player's own clock is under ten seconds.
  await page.waitForSelector('.toggle.sound[data-played="low-time"]', { state: 'attached' });
  assert.match(await page.title(), /^● Your move · Tori shogi/);
  // So does the tab's icon, with a red dot.
  assert.equal(await page.getAttribute('link[rel="icon"]', 'href'), '/favicon-turn.svg');
  const icon = await fetch(`${base}/favicon-turn.svg`);
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
  await shot(page, 'low-time.png');
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

test('The board and both hands fit the window for every game, on a laptop and a phone, upright and sideways', async () => {
  for (const [width, height, device] of [[1366, 850, 'laptop'], [390, 844, 'phone'], [844, 390, 'landscape']]) {
    for (const variant of ['tori', 'wa', 'tenjiku']) {
      const grant = await apiGame({ variant, opponent: 'engine', side: 'sente', clock: { kind: 'unlimited' } });
      const page = await newPage(width, height);
      await openWithToken(page, grant);
      const boxes = await page.evaluate(() => {
        const box = (selector, index = 0) => {
          const node = document.querySelectorAll(selector)[index];
          if (!node || node.hidden) return null;
          const r = node.getBoundingClientRect();
          return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
        };
        return { board: box('.board-wrap'), top: box('.board-area > .hand', 0), bottom: box('.board-area > .hand', 1),
          square: document.querySelector('.board sq').getBoundingClientRect().width,
          // The squares' pitch: the board's width over its files (the lines are shared).
          pitch: document.querySelector('.board').getBoundingClientRect().width
            / Number(getComputedStyle(document.querySelector('.board')).getPropertyValue('--files')),
          beside: document.querySelector('.board-area').classList.contains('beside'),
          bars: [...document.querySelectorAll('.board-area > .player-bar')].map((bar) => {
            const r = bar.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom, left: r.left, name: bar.querySelector('.who').scrollWidth <= bar.querySelector('.who').clientWidth };
          }),
          page: document.documentElement.scrollWidth };
      });
      const where = `${variant} on a ${device}: ${JSON.stringify(boxes)}`;
      const lowest = boxes.bottom ? boxes.bottom.bottom : boxes.board.bottom;
      // Sideways, Tenjiku's 16 ranks are zoomed into: the board may be taller than a phone.
      if (!(device === 'landscape' && variant === 'tenjiku')) assert.ok(lowest <= height, `below the fold: ${where}`);
      assert.ok(boxes.board.right <= width, `wider than the window: ${where}`);
      assert.ok(boxes.page <= width, `the page scrolls sideways: ${where}`);
      assert.equal(Boolean(boxes.top && boxes.bottom), variant !== 'tenjiku', where);
      // Room is used: Tori's board on a laptop is not a small island in an empty screen.
      if (variant === 'tori' && device === 'laptop') assert.ok(boxes.square >= 64, where);
      // A big board takes the laptop's height, its players' bars beside it, each name whole and
      // the bars within the window; Tenjiku's squares are 48 px or more.
      if (variant !== 'tori' && device === 'laptop') {
        assert.ok(boxes.beside, where);
        for (const bar of boxes.bars) {
          assert.ok(bar.left >= boxes.board.right && bar.bottom <= height && bar.name, where);
        }
        assert.ok(boxes.bars[0].top < boxes.bars[1].top, where);
      }
      if (variant === 'tenjiku' && device === 'laptop') assert.ok(boxes.pitch >= 48, where);
      if (variant === 'wa' && device === 'laptop') assert.ok(boxes.pitch >= 50, where);
      if (device === 'phone') assert.ok(!boxes.beside, where);
      // A phone held sideways: the bars beside the board, which has the height.
      if (device === 'landscape') {
        assert.ok(boxes.beside, where);
        if (variant === 'tori') assert.ok(boxes.pitch >= 28, where);
      }
      await shot(page, `fit-${variant}-${device}.png`);
      await page.close();
    }
  }
});

test('The lobby, analysis and import pages fit a phone: nothing scrolls sideways', async () => {
  const page = await newPage(390, 844);
  // A seek and a game with long names and ratings in the lobby's lists.
  const context = await browser.newContext();
  const long = await context.newPage();
  await long.goto(`${base}/signup`);
  await long.fill('input[name="username"]', 'a_very_long_name_xyz');
  await long.fill('input[name="password"]', 'a long enough password');
  await long.click('[data-action="signup-submit"]');
  await long.waitForSelector('[data-me="a_very_long_name_xyz"]');
  const seek = await long.evaluate(async () => (await fetch('/api/games', { method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ variant: 'tenjiku', opponent: 'human', public: true, rated: true,
      clock: { kind: 'byoyomi', main_ms: 3600000, periods: 10, period_ms: 60000 }, rating_range: [1000, 2000] }) })).json());
  assert.ok(seek.game_id, JSON.stringify(seek));
  await context.close();
  for (const route of ['', 'analysis', 'import']) {
    await page.goto(`${base}/${route}`);
    await page.waitForSelector('form.create');
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      sfen: document.querySelector('input[name="sfen"]')?.getBoundingClientRect().right ?? 0,
    }));
    if (!route) await page.waitForSelector(`[data-seek="${seek.game_id}"]`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 390, `${route || 'lobby'}: ${wide}`);
    assert.ok(widths.page <= 390 && widths.sfen <= 390, `${route || 'lobby'}: ${JSON.stringify(widths)}`);
    await shot(page, `phone-${route || 'lobby'}.png`, { fullPage: true });
  }
  await page.close();
});

test('The new-game form explains options in plain words, shows only the clock fields that apply, and takes seconds', async () => {
  for (const [width, height, name] of [[1366, 850, 'desktop'], [390, 844, 'phone']]) {
    const page = await newPage(width, height);
    await page.goto(`${base}/`);
    await page.waitForSelector('[data-action="create"]');
    await page.selectOption('select[name="variant"]', 'wa');
    const form = await page.locator('form.create').innerText();
    assert.doesNotMatch(form, /drops: on|max-plies/, form);
    assert.match(form, /captured pieces may be dropped back/);
    await page.selectOption('select[name="opt-drops"]', 'off');
    await page.fill('input[name="opt-max-plies"]', '300');
    await page.selectOption('select[name="clock"]', 'fischer');
    assert.equal(await page.locator('input[name="periods"]').isVisible(), false);
    assert.equal(await page.locator('input[name="increment"]').isVisible(), true);
    await page.selectOption('select[name="main"]', '10');
    await page.fill('input[name="increment"]', '2');
    await shot(page, `new-game-form-${name}.png`, { fullPage: true });
    await page.selectOption('select[name="clock"]', 'unlimited');
    assert.equal(await page.locator('select[name="main"]').isVisible(), false);
    await page.selectOption('select[name="clock"]', 'fischer');
    await page.click('[data-action="create"]');
    await page.waitForSelector('.board sq');
    const id = page.url().split('/').pop();
    const server = await (await fetch(`${base}/api/games/${id}`)).json();
    assert.deepEqual(server.time_control, { kind: 'fischer', main_ms: 10000, increment_ms: 2000 });
    assert.match(server.options, /drops=off/);
    assert.match(server.options, /max-plies=300/);
    await page.close();
  }
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
  assert.match(shownBefore, /^You have (29|30) s to make a first move/);
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

test('Every page has a real address: opened directly, followed without reloading, back and forward; unknown ones are a 404 page', async () => {
  for (const [width, height, device] of [[1366, 850, 'laptop'], [390, 844, 'phone']]) {
    const page = await newPage(width, height);
    // Opened directly: the server answers the page, the page shows the game's rules.
    const rules = await page.goto(`${base}/rules/wa`);
    assert.equal(rules.status(), 200);
    await page.waitForSelector('.rule-tabs a.current:has-text("Wa")');
    // Followed: the address changes and the site is not loaded again.
    await page.evaluate(() => { window.sameDocument = true; });
    await page.click('.rule-tabs a:has-text("Tenjiku")');
    await page.waitForURL(`${base}/rules/tenjiku`);
    await page.waitForSelector('.rule-tabs a.current:has-text("Tenjiku")');
    if (device === 'phone') await page.click('#menu-button');
    await page.click('header.top nav a:has-text("Puzzles")');
    await page.waitForURL(`${base}/puzzles`);
    assert.equal(await page.evaluate(() => window.sameDocument), true, 'followed without reloading');
    // Back and forward go through the pages seen.
    await page.goBack();
    await page.waitForURL(`${base}/rules/tenjiku`);
    await page.waitForSelector('.rule-tabs a.current:has-text("Tenjiku")');
    await page.goForward();
    await page.waitForURL(`${base}/puzzles`);
    // An old link with #/ opens the page it named, at its real address.
    await page.goto(`${base}/#/learn/tori`);
    await page.waitForURL(`${base}/learn/tori`);
    // Unknown addresses and games that do not exist: 404, and a page that says so.
    for (const path of ['/no/such/page', '/rules/chess']) {
      const response = await page.goto(`${base}${path}`);
      assert.equal(response.status(), 404, path);
      await page.waitForSelector('[data-not-found]:has-text("Page not found")');
    }
    await shot(page, `not-found-${device}.png`);
    await page.click('[data-not-found] a:has-text("Play")');
    await page.waitForURL(`${base}/`);
    await page.waitForSelector('[data-computer="tori"]');
    const missing = await page.goto(`${base}/game/doesnotexist`);
    assert.equal(missing.status(), 404);
    await page.waitForSelector('[data-missing-game]');
    await page.close();
  }
});

test('Every route of the UI answers 200 with its page; a player, arena, puzzle or page that does not exist answers 404 with the site\'s own page, in the visitor\'s language', async () => {
  const stamp = Date.now() % 100000;
  const admin = `routes_${stamp}`;
  const cookie = await signUpFrom(admin, '10.79.0.1');
  execFileSync(bin, ['admin', 'grant', admin, '--database', `sqlite://${join(work, 'ui.db')}`]);
  const arena = await postAs(cookie, '/api/tournaments', { name: `Routes ${stamp}`, variant: 'tori',
    clock: { kind: 'byoyomi', main_ms: 600000, periods: 1, period_ms: 30000 }, minutes: 60, starts_in_seconds: 3600 });
  const seek = await apiGame({ variant: 'wa', opponent: 'human' });
  const puzzle = await (await fetch(`${base}/api/puzzles/next?variant=tori`)).json();
  const paths = ['/', `/game/${seek.game_id}`, `/join/${seek.game_id}/${seek.invite}`, '/import', '/analysis', '/editor',
    '/editor/wa', '/rules', '/rules/tenjiku', '/puzzles', '/puzzles/wa', `/puzzles/tori/${puzzle.id}`, '/learn',
    '/learn/tenjiku', '/learn/tori/capture', '/learn/tenjiku/piece-lion', '/login', '/signup', '/tv', '/tv/wa', '/tournaments', `/tournament/${arena.id}`, '/admin', '/account',
    `/@/${admin}`];
  // Every route the UI knows (by its first segment, as main.ts routes) is walked here.
  const source = readFileSync(join(root, 'web', 'src', 'main.ts'), 'utf8');
  const routes = new Set([...source.matchAll(/first === '([^']+)'/g)].map((m) => m[1]));
  const walked = new Set(paths.map((p) => p.split('/')[1]).filter(Boolean));
  assert.deepEqual([...routes].filter((r) => !walked.has(r)), [], 'a route of the UI left unwalked');
  const page = await newPage(1366, 850);
  await page.context().addCookies([{ name: cookie.split('=')[0], value: cookie.split('=')[1], url: base }]);
  for (const path of paths) {
    const response = await page.goto(`${base}${path}`);
    assert.equal(response.status(), 200, path);
    await page.waitForSelector('#app > *');
    await page.waitForTimeout(300);
    assert.equal(await page.locator('[data-not-found], [data-missing-game], [data-missing-arena]').count(), 0, path);
  }
  for (const lang of ['en', 'ja']) {
    await page.evaluate((l) => localStorage.setItem('tsubame.lang', l), lang);
    for (const path of ['/@/nobody_at_all', '/tournament/nosucharena', '/puzzles/tori/nosuchpuzzle', '/no/such/page', '/tournaments/x']) {
      const response = await page.goto(`${base}${path}`);
      assert.equal(response.status(), 404, path);
      await page.waitForSelector(`[data-not-found]:has-text("${lang === 'ja' ? 'ページが見つかりません' : 'Page not found'}")`);
      assert.match(await page.textContent('[data-not-found]'), new RegExp(path.replace(/\//g, '\\/')));
    }
  }
  await shot(page, 'not-found-player-ja-laptop.png');
  await page.evaluate(() => localStorage.setItem('tsubame.lang', 'en'));
  await page.close();
});

/** The serious and critical accessibility faults axe-core finds on the page as it stands. */
async function accessibilityFaults(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) {
    // Run through the debugging protocol, which the page's Content-Security-Policy leaves alone.
    await page.evaluate(readFileSync(join(root, 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  }
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.html.slice(0, 160)) })));
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

test('Accessibility: axe-core finds no serious or critical fault on any page, laptop and phone, light and dark', async () => {
  const grant = await apiGame({ variant: 'tori', opponent: 'engine', level: 1,
    sfen: 'rpckcpl/3f3/sssssss/2s1S2/7/SSSS1SS/LPCKCPR b S 3' });
  const name = `axe_${Date.now() % 100000}`;
  const signup = await fetch(`${base}/api/account/signup`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: name, password: 'a long enough password' }) });
  assert.equal(signup.status, 201, await signup.text());
  const pages = ['/', `/game/${grant.game_id}`, '/analysis', '/import', '/rules/tori', '/rules/tenjiku', '/puzzles/tori',
    '/learn/tori', '/editor/tori', '/editor/tenjiku', '/login', '/signup', '/account', `/@/${name}`, '/no/such/page'];
  for (const [width, height, scheme] of [[1366, 850, 'light'], [390, 844, 'light'], [1366, 850, 'dark']]) {
    const page = await newPage(width, height);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${base}/`);
    await page.evaluate(([id, token]) => localStorage.setItem(`tsubame.token.${id}`, token), [grant.game_id, grant.token]);
    for (const path of pages) {
      await page.goto(`${base}${path}`);
      await page.waitForSelector('#app > *');
      // What each page loads after it shows: the lobby, the game, the puzzle, the player.
      await page.waitForLoadState('networkidle');
      if (path.startsWith('/game/')) await page.waitForSelector('[data-clock]:has-text("— you")');
      const faults = await accessibilityFaults(page);
      assert.deepEqual(faults, [], `${path} at ${width}px, ${scheme}: ${JSON.stringify(faults, null, 1)}`);
    }
    if (width < 600) {
      await page.click('#menu-button');
      assert.deepEqual(await accessibilityFaults(page), [], 'the open menu');
    }
    await page.close();
  }
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

test('Account settings: change the password, download every game, log out everywhere, delete the account, at laptop and phone size', async () => {
  const name = `set_${Date.now() % 100000}`;
  const [first, second] = ['a long enough password', 'second password 2'];
  const page = await accountPage(name, '10.76.0.1');
  await page.goto(`${base}/`);
  await page.waitForSelector(`[data-me="${name}"]`);
  // A finished game against the computer, resigned after one move: the download holds it.
  const gameId = await page.evaluate(async () => {
    const post = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then((r) => r.json());
    const grant = await post('/api/games', { variant: 'tori', opponent: 'engine', level: 1, side: 'sente' });
    await post(`/api/games/${grant.game_id}/moves`, { token: grant.token, move: '3d3c' });
    // Resigned once the computer has answered: before each side has moved it is aborted.
    while ((await fetch(`/api/games/${grant.game_id}`).then((r) => r.json())).ply < 2) await new Promise((r) => setTimeout(r, 100));
    await post(`/api/games/${grant.game_id}/resign`, { token: grant.token });
    return grant.game_id;
  });
  // The top bar's gear opens the settings.
  await page.click('[data-action="settings"]');
  await page.waitForSelector(`[data-settings-page="${name}"]`);
  assert.equal(new URL(page.url()).pathname, '/account');
  assert.deepEqual(await accessibilityFaults(page), []);
  await shot(page, 'settings-laptop.png');
  // A wrong current password is named and changes nothing; the right one changes it.
  const current = '[data-settings="password"] input[name="current_password"]';
  const fresh = '[data-settings="password"] input[name="new_password"]';
  await page.fill(current, 'not it at all');
  await page.fill(fresh, second);
  await page.click('[data-action="change-password"]');
  await page.waitForSelector('[data-settings-answer="password"].error:has-text("the password is not this account\'s")');
  await page.fill(current, first);
  await page.click('[data-action="change-password"]');
  await page.waitForSelector('[data-settings-answer="password"].ok');
  // Every game in one record file, under the name the server gives it.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="download-games"]')]);
  assert.equal(download.suggestedFilename(), `tsubame-${name}-games.txt`);
  const text = readFileSync(await download.path(), 'utf8');
  assert.match(text, new RegExp(`\\[Sente "${name}"\\]`));
  assert.match(text, /\[Reason "resignation"\]/);
  // The Tori games as KIF too, each move with its time.
  const [kif] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="download-kif"]')]);
  assert.equal(kif.suggestedFilename(), `tsubame-${name}-games.kif`);
  assert.match(readFileSync(await kif.path(), 'utf8'), new RegExp(`先手：${name}[\\s\\S]*\\( ?\\d+:\\d\\d/\\d\\d:\\d\\d:\\d\\d\\)`));
  // (Password checks share the login limit of five a minute a name: the test stays within it.)
  // On a phone: logged in with the new password, the page fits, and logging out everywhere
  // logs the laptop out too.
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/login`);
  await phone.fill('input[name="username"]', name);
  await phone.fill('input[name="password"]', second);
  await phone.click('[data-action="login-submit"]');
  await phone.waitForSelector(`[data-me="${name}"]`, { state: 'attached' });
  await phone.goto(`${base}/account`);
  await phone.waitForSelector(`[data-settings-page="${name}"]`);
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(phone, 'settings-phone.png', { fullPage: true });
  phone.once('dialog', (dialog) => dialog.accept());
  await phone.click('[data-action="logout-everywhere"]');
  await phone.waitForURL('**/login');
  await page.reload();
  await page.waitForSelector('#account [data-action="login"]');
  await phone.close();
  // Deleting needs the password; the games stay under "[deleted]" and the player page goes.
  await page.goto(`${base}/login`);
  await page.fill('input[name="username"]', name);
  await page.fill('input[name="password"]', second);
  await page.click('[data-action="login-submit"]');
  await page.waitForSelector(`[data-me="${name}"]`);
  await page.goto(`${base}/account`);
  await page.waitForSelector(`[data-settings-page="${name}"]`);
  await page.fill('[data-settings="delete"] input[name="password"]', second);
  page.once('dialog', (dialog) => dialog.accept());
  await page.click('[data-action="delete-account"]');
  await page.waitForFunction(() => location.pathname === '/');
  await page.waitForSelector('#account [data-action="login"]');
  assert.equal((await fetch(`${base}/api/players/${name}`)).status, 404);
  const game = await (await fetch(`${base}/api/games/${gameId}`)).json();
  assert.equal(game.sente_name, '[deleted]');
  await page.goto(`${base}/game/${gameId}`);
  await page.waitForSelector('[data-player-name="[deleted]"]');
  assert.equal(await page.locator('a[data-player-name="[deleted]"]').count(), 0, 'a deleted player is no link');
  await page.close();
});

/** A new account, signed up from an address of its own (sign-ups are limited per address),
 * and a page in a browser context of its own logged in as it. */
async function accountPage(name, address, width = 1366, height = 850) {
  const [cookie, value] = (await signUpFrom(name, address)).split('=');
  const page = await otherPersonPage(width, height);
  await page.context().addCookies([{ name: cookie, value, url: base }]);
  return page;
}

/** Signs `name` up from `address` (sign-ups are limited per address); the session cookie. */
async function signUpFrom(name, address) {
  const response = await fetch(`${base}/api/account/signup`, { method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ username: name, password: 'a long enough password' }) });
  assert.equal(response.status, 201, await response.text());
  return response.headers.get('set-cookie').split(';')[0];
}

/** The session cookie of a page's browser, as a `Cookie` header. */
async function cookieOf(page) {
  return (await page.context().cookies()).filter((c) => c.name.startsWith('tsubame')).map((c) => `${c.name}=${c.value}`).join('; ');
}

/** Waits until `page` (a player of arena `arena`) is taken to a game `wanted` accepts; on a
 * timeout, says what the server and the page knew then, so that a failure can be read. */
async function waitTakenToGame(page, arena, wanted, timeout = 20000) {
  try {
    await page.waitForURL((url) => url.pathname.startsWith('/game/') && wanted(url.pathname), { timeout });
  } catch (e) {
    const view = await (await fetch(`${base}/api/tournaments/${arena}`, { headers: { cookie: await cookieOf(page) } })).text();
    const shown = await page.evaluate(() => document.querySelector('main')?.innerText.slice(0, 2000));
    throw new Error(`${e.message}\nthe arena as this player sees it: ${view}\nthe page shows: ${shown}`);
  }
}

/** The names of an arena game's players: [sente, gote]. */
async function arenaSides(path) {
  const view = await (await fetch(`${base}/api/games/${path.split('/').pop()}`)).json();
  return [view.sente_name, view.gote_name];
}

/** Clicks the mover's first move on their page, a board move (no drop), once it is their turn. */
async function clickFirstMove(page, path) {
  const id = path.split('/').pop();
  await page.waitForSelector('[data-clock]:has-text("— you")');
  const view = await (await fetch(`${base}/api/games/${id}`)).json();
  const usi = view.legal_moves.find((m) => !m.includes('*'));
  await playByClicks(page, usi);
  await waitForPly(id, view.ply + 1);
}

/** Plays a game's moves up to ply `plies` through the API, each as its player (`cookies` by
 * name): any legal moves, chosen the same way every run. */
async function playPliesAs(cookies, path, plies) {
  const id = path.split('/').pop();
  for (;;) {
    const view = await (await fetch(`${base}/api/games/${id}`)).json();
    if (view.ply >= plies) return;
    const usi = view.legal_moves[(view.ply * 7 + 3) % view.legal_moves.length];
    const mover = view.ply % 2 === 0 ? view.sente_name : view.gote_name;
    await postAs(cookies[mover], `/api/games/${id}/moves`, { move: usi });
  }
}

/** Chooses a value of one of the top bar's switches, opening what holds them (the Display
 * menu on a laptop, the menu on a phone) and closing it again. */
async function chooseSwitch(page, selector, value) {
  const wide = await page.isVisible('#display-button');
  const shown = await page.isVisible(selector);
  if (!shown) await page.click(wide ? '#display-button' : '#menu-button');
  await page.selectOption(selector, value);
  if (!shown) {
    if (wide) await page.keyboard.press('Escape');
    else if (await page.getAttribute('#menu-button', 'aria-expanded') === 'true') await page.click('#menu-button');
  }
}

/** A POST as the account of `cookie`; the answer's JSON. */
async function postAs(cookie, path, body) {
  const response = await fetch(`${base}${path}`, { method: 'POST',
    headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body) });
  const text = await response.text();
  assert.ok(response.ok, `${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

test('TV shows the highest-rated public game being played, and the next one when it ends; laptop and phone', async () => {
  const stamp = Date.now() % 100000;
  const [ann, ben] = [`tv_a_${stamp}`, `tv_b_${stamp}`];
  const [annCookie, benCookie] = [await signUpFrom(ann, '10.79.0.1'), await signUpFrom(ben, '10.79.0.2')];
  const clock = { kind: 'byoyomi', main_ms: 3600000, periods: 1, period_ms: 60000 };
  // A casual game between guests, and a rated one between two accounts: TV shows the rated.
  const casual = await apiGame({ variant: 'tori', opponent: 'human', public: true, clock });
  await fetch(`${base}/api/games/${casual.game_id}/join`, { method: 'POST', body: '{}' });
  const rated = await postAs(annCookie, '/api/games', { variant: 'tori', opponent: 'human', public: true, rated: true, clock });
  await postAs(benCookie, `/api/games/${rated.game_id}/join`, {});
  const page = await newPage(1366, 850);
  await page.goto(`${base}/tv/tori`);
  await page.waitForSelector('[data-tv="tori"]');
  await page.waitForSelector(`.board-bar [data-player-name="${ann}"], [data-player-name="${ann}"]`);
  assert.equal(new URL(page.url()).pathname, '/tv/tori');
  assert.deepEqual(await accessibilityFaults(page), []);
  await shot(page, 'tv-laptop.png');
  // It ends: after a moment TV shows the next game, at the same address.
  await postAs(benCookie, `/api/games/${rated.game_id}/resign`, {});
  await page.waitForFunction((name) => !document.querySelector(`[data-player-name="${name}"]`), ann, { timeout: 20000 });
  await page.waitForSelector('[data-tv="tori"]');
  assert.equal(new URL(page.url()).pathname, '/tv/tori');
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/tv`);
  await phone.waitForSelector('[data-tv]');
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(phone, 'tv-phone.png');
  await phone.close();
  // The home page leads there.
  await page.goto(`${base}/`);
  await page.click('[data-tv-link]');
  await page.waitForSelector('[data-tv], [data-tv-none]');
  await page.close();
});

test('A player\'s games on a phone: each finished and ongoing game read whole, nothing cut off or scrolled sideways', async () => {
  const stamp = Date.now() % 100000;
  const [ann, ben] = [`pg_a_${stamp}_longname`, `pg_b_${stamp}_longname`];
  const cookies = { [ann]: await signUpFrom(ann, '10.81.0.1'), [ben]: await signUpFrom(ben, '10.81.0.2') };
  const clock = { kind: 'byoyomi', main_ms: 600000, periods: 1, period_ms: 30000 };
  for (const variant of ['tori', 'wa']) {
    const game = await postAs(cookies[ann], '/api/games', { variant, opponent: 'human', public: true, rated: true, clock });
    await postAs(cookies[ben], `/api/games/${game.game_id}/join`, {});
    await playPliesAs(cookies, `/game/${game.game_id}`, 4);
    await postAs(cookies[ben], `/api/games/${game.game_id}/resign`, {});
  }
  const ongoing = await postAs(cookies[ann], '/api/games', { variant: 'tenjiku', opponent: 'human', public: true, clock });
  await postAs(cookies[ben], `/api/games/${ongoing.game_id}/join`, {});
  const page = await newPage(390, 844);
  await page.goto(`${base}/@/${ann}`);
  await page.waitForSelector('[data-finished-games] [data-outcome]');
  const cells = await page.evaluate(() => [...document.querySelectorAll('.player-games td')].map((td) => {
    const r = td.getBoundingClientRect();
    return { left: r.left, right: r.right, text: td.textContent, clipped: td.scrollWidth > td.clientWidth + 1 };
  }));
  assert.equal(cells.length, 2 * 6 + 5, JSON.stringify(cells));
  for (const cell of cells) assert.ok(cell.left >= 0 && cell.right <= 390 && !cell.clipped, JSON.stringify(cell));
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(page, 'player-games-phone.png', { fullPage: true });
  await page.close();
});

test('A named challenge: sent from a player\'s page, shown at once to the player on another page, accepted into the game, declined, and sent again from a game\'s end; laptop and phone', async () => {
  const stamp = Date.now() % 100000;
  const [chaser, target] = [`chal_a_${stamp}`, `chal_b_${stamp}`];
  const page = await accountPage(chaser, '10.76.0.1');
  const phone = await accountPage(target, '10.76.0.2', 390, 844);
  // The player challenged is on the home page; nothing waits yet.
  await phone.goto(`${base}/`);
  await phone.waitForSelector('[data-seek-panel]');
  assert.equal(await phone.isVisible('[data-challenge-tray]'), false);
  // From the player's page: the form, a rated Tori game, the challenger sente.
  await page.goto(`${base}/@/${target}`);
  await page.click('[data-action="challenge"]');
  await page.waitForSelector('[data-challenge-form]:not([hidden])');
  await page.selectOption('[data-challenge-form] select[name="variant"]', 'tori');
  await page.selectOption('[data-challenge-form] select[name="side"]', 'sente');
  await page.check('[data-challenge-form] input[name="rated"]');
  assert.deepEqual(await accessibilityFaults(page), []);
  await shot(page, 'challenge-form-laptop.png');
  await page.click('[data-action="send-challenge"]');
  await page.waitForURL(/\/game\/[a-z0-9]+$/);
  const id = new URL(page.url()).pathname.split('/').pop();
  await page.waitForFunction((name) => document.querySelector('[data-status]')?.textContent.includes(name), target);
  // At once on the other player's page, without a reload: who, which game, which side.
  const incoming = `[data-incoming-challenge="${id}"]`;
  await phone.waitForSelector(incoming, { timeout: 5000 });
  const words = await phone.textContent(incoming);
  assert.match(words, new RegExp(chaser));
  assert.match(words, /Tori/);
  assert.match(words, /rated/i);
  assert.match(words, /You play Gote/i);
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  assert.deepEqual(await accessibilityFaults(phone), []);
  await shot(phone, 'challenge-tray-phone.png');
  // The challenger's own tray says it waits; accepting opens the game for both.
  await page.waitForSelector(`[data-outgoing-challenge="${id}"]`);
  await phone.click(`${incoming} [data-action="accept-challenge"]`);
  await phone.waitForURL(new RegExp(`/game/${id}$`));
  await phone.waitForSelector('[data-challenge-tray]', { state: 'hidden' });
  await page.waitForFunction(() => !/challenge/.test(document.querySelector('[data-status]')?.textContent || ''));
  await page.waitForSelector('[data-action="resign"]');
  // A second challenge, declined from the tray: it leaves both trays, the game ends as declined.
  const chaserCookie = (await page.context().cookies()).find((c) => c.name.startsWith('tsubame'));
  const second = await postAs(`${chaserCookie.name}=${chaserCookie.value}`, `/api/players/${target}/challenge`, { variant: 'wa' });
  await phone.waitForSelector(`[data-incoming-challenge="${second.game_id}"]`, { timeout: 5000 });
  await phone.click(`[data-incoming-challenge="${second.game_id}"] [data-action="decline-challenge"]`);
  await phone.waitForSelector('[data-challenge-tray]', { state: 'hidden' });
  const declined = await (await fetch(`${base}/api/games/${second.game_id}`)).json();
  assert.equal(declined.result.reason, 'declined');
  // At the game's end (a move each, then a resignation: before that it would be aborted), a
  // link to challenge the opponent again opens the form on their page.
  await playPliesAs({ [chaser]: await cookieOf(page), [target]: await cookieOf(phone) }, `/game/${id}`, 2);
  await waitPly(page, 2);
  await page.click('[data-action="resign"]');
  await page.click('[data-action="resign-yes"]');
  await page.click('[data-action="challenge-opponent"]');
  await page.waitForSelector('[data-challenge-form]:not([hidden])');
  assert.equal(new URL(page.url()).pathname, `/@/${target}`);
  await shot(page, 'challenge-again-laptop.png');
  await page.close();
  await phone.close();
});

test('An arena: an administrator makes it, two players join and are taken to their game, berserk, the standings live for a spectator, on the home page; laptop and phone', async () => {
  const stamp = Date.now() % 100000;
  const [admin, ann, ben] = [`ar_adm_${stamp}`, `ar_ann_${stamp}`, `ar_ben_${stamp}`];
  const adminPage = await accountPage(admin, '10.75.0.1');
  execFileSync(bin, ['admin', 'grant', admin, '--database', `sqlite://${join(work, 'ui.db')}`]);
  // The administrator's form, on the arenas page.
  await adminPage.goto(`${base}/tournaments`);
  await adminPage.waitForSelector('[data-arena-form]');
  await adminPage.fill('[data-arena-form] input[name="name"]', `Test arena ${stamp}`);
  await adminPage.selectOption('[data-arena-form] select[name="variant"]', 'tori');
  await adminPage.fill('[data-arena-form] input[name="starts-in"]', '0');
  assert.deepEqual(await accessibilityFaults(adminPage), []);
  await shot(adminPage, 'arenas-laptop.png');
  await adminPage.click('[data-action="make-arena"]');
  await adminPage.waitForURL(/\/tournament\/[a-z0-9]+$/);
  const id = new URL(adminPage.url()).pathname.split('/').pop();
  await adminPage.waitForSelector('[data-countdown]');
  // A guest on a phone watches; the first player joins on a laptop.
  const spectator = await newPage(390, 844);
  await spectator.goto(`${base}/tournament/${id}`);
  await spectator.waitForSelector('[data-arena-page]');
  const annPage = await accountPage(ann, '10.75.0.2');
  await annPage.goto(`${base}/tournament/${id}`);
  await annPage.click('[data-action="join"]');
  await spectator.waitForSelector(`[data-standing="${ann}"]`);
  await annPage.waitForSelector('[data-action="withdraw"]');
  // The second joins on a phone: both are paired and taken to their game.
  const benPage = await accountPage(ben, '10.75.0.3', 390, 844);
  await benPage.goto(`${base}/tournament/${id}`);
  await benPage.click('[data-action="join"]');
  await waitTakenToGame(annPage, id, () => true);
  await waitTakenToGame(benPage, id, () => true);
  assert.equal(annPage.url(), benPage.url());
  await benPage.waitForSelector('[data-arena-link]');
  // Berserk, before one's first move: the mark shows for both.
  await benPage.click('[data-action="berserk"]');
  await annPage.waitForSelector('[data-berserk]');
  await benPage.waitForSelector('[data-berserk]');
  assert.equal(await benPage.isVisible('[data-action="berserk"]'), false);
  assert.equal(await benPage.isVisible('[data-action="abort"]'), false, 'no abort in an arena');
  assert.equal(await benPage.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(benPage, 'arena-game-phone.png');
  const cookies = { [ann]: await cookieOf(annPage), [ben]: await cookieOf(benPage) };
  // The first game: sente's first move clicked, then four moves each (a shorter game is worth
  // nothing); gote resigns and the spectator's standings give the winner two points at once.
  const firstGame = new URL(annPage.url()).pathname;
  const [firstSente, firstGote] = await arenaSides(firstGame);
  await clickFirstMove(firstSente === ann ? annPage : benPage, firstGame);
  await playPliesAs(cookies, firstGame, 8);
  const firstLoserPage = firstGote === ann ? annPage : benPage;
  await waitPly(firstLoserPage, 8);
  await firstLoserPage.click('[data-action="resign"]');
  await firstLoserPage.click('[data-action="resign-yes"]');
  await spectator.waitForSelector(`[data-standing="${firstSente}"] [data-points="2"]`, { timeout: 10000 });
  const first = await spectator.textContent('[data-standings] tr:nth-child(2)');
  assert.match(first, new RegExp(firstSente));
  // Alone together, they are paired again at once: each is taken from the finished game's page
  // to the new game, with a sound, and plays it (the first move of each side clicked).
  for (const p of [annPage, benPage]) {
    await waitTakenToGame(p, id, (path) => path !== firstGame);
    await p.waitForFunction(() => document.getElementById('sound').parentElement.dataset.played === 'start');
  }
  assert.equal(annPage.url(), benPage.url());
  const secondGame = new URL(annPage.url()).pathname;
  const [secondSente, secondGote] = await arenaSides(secondGame);
  assert.equal(secondSente, firstGote, 'sente to the player who had gote');
  await clickFirstMove(secondSente === ann ? annPage : benPage, secondGame);
  await clickFirstMove(secondGote === ann ? annPage : benPage, secondGame);
  await playPliesAs(cookies, secondGame, 8);
  const secondLoserPage = secondGote === ann ? annPage : benPage;
  await waitPly(secondLoserPage, 8);
  await secondLoserPage.click('[data-action="resign"]');
  await secondLoserPage.click('[data-action="resign-yes"]');
  await spectator.waitForSelector(`[data-standing="${secondSente}"] [data-points="2"]`, { timeout: 10000 });
  const second = await (await fetch(`${base}/api/games/${secondGame.split('/').pop()}`)).json();
  assert.equal(second.result.reason, 'resignation', 'nobody lost the second game by not moving');
  await spectator.waitForSelector('[data-arena-game] >> nth=1');
  assert.equal(await spectator.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  assert.deepEqual(await accessibilityFaults(spectator), []);
  await shot(spectator, 'arena-phone.png');
  await adminPage.waitForSelector(`[data-standing="${ben}"] [data-points="2"]`);
  await adminPage.waitForSelector(`[data-standing="${ann}"] [data-points="2"]`);
  assert.deepEqual(await accessibilityFaults(adminPage), []);
  await shot(adminPage, 'arena-laptop.png');
  // The home page lists it.
  await adminPage.goto(`${base}/`);
  await adminPage.waitForSelector(`[data-arenas-home] [data-arena="${id}"]`);
  for (const p of [spectator, annPage, benPage]) await p.close();
  // A six-second arena of three players: its podium once it is over.
  const short = await postAs(await cookieOf(adminPage), '/api/tournaments', { name: `Short arena ${stamp}`, variant: 'tori',
    clock: { kind: 'byoyomi', main_ms: 600000, periods: 1, period_ms: 30000 }, minutes: 0.1, starts_in_seconds: 0 });
  const trio = [];
  for (const [n, name] of [`ar_x_${stamp}`, `ar_y_${stamp}`, `ar_z_${stamp}`].entries()) {
    const cookie = await signUpFrom(name, `10.75.1.${n}`);
    await postAs(cookie, `/api/tournaments/${short.id}/join`, {});
    trio.push([name, cookie]);
  }
  // The first game paired ends soon: four moves each, then gote resigns.
  let paired = null;
  for (let i = 0; i < 50 && !paired; i++) {
    const view = await (await fetch(`${base}/api/tournaments/${short.id}`)).json();
    paired = view.games.find((g) => g.status === 'playing');
    if (!paired) await new Promise((r) => setTimeout(r, 100));
  }
  await playPliesAs(Object.fromEntries(trio), `/game/${paired.game_id}`, 8);
  const loser = trio.find(([name]) => name === paired.gote);
  await postAs(loser[1], `/api/games/${paired.game_id}/resign`, {});
  await adminPage.goto(`${base}/tournament/${short.id}`);
  await adminPage.waitForSelector('[data-podium]', { timeout: 15000 });
  assert.match(await adminPage.textContent('[data-podium] .place-1'), new RegExp(paired.sente));
  assert.deepEqual(await accessibilityFaults(adminPage), []);
  await shot(adminPage, 'arena-podium-laptop.png');
  await adminPage.close();
});

test('Block and report a player from their page; an administrator reads the report, mutes, closes and resolves; laptop and phone', async () => {
  const stamp = Date.now() % 100000;
  const [rude, reporter, admin] = [`rude_${stamp}`, `rep_${stamp}`, `adm_${stamp}`];
  const rudePage = await accountPage(rude, '10.77.0.1');
  const page = await accountPage(reporter, '10.77.0.2');
  // Blocked from the player's page, kept after a reload, listed in the settings and
  // unblocked there.
  await page.goto(`${base}/@/${rude}`);
  await page.click('.player-actions [data-action="block"]');
  await page.waitForSelector('[data-moderation-answer].ok');
  await page.reload();
  await page.waitForSelector('.player-actions [data-action="unblock"]');
  await page.goto(`${base}/account`);
  await page.waitForSelector(`[data-blocked="${rude}"]`);
  await page.click(`[data-blocked="${rude}"] [data-action="unblock"]`);
  await page.waitForSelector('[data-blocked-list] li.help');
  // A report, with a reason and what happened.
  await page.goto(`${base}/@/${rude}`);
  await page.click('.player-actions [data-action="report"]');
  await page.selectOption('[data-report-form] select[name="reason"]', 'abuse');
  await page.fill('[data-report-form] textarea', 'Insults in the chat of our last game.');
  await page.click('[data-action="send-report"]');
  await page.waitForSelector('[data-moderation-answer].ok');
  assert.equal(await page.locator('[data-report-form]').isHidden(), true);
  assert.deepEqual(await accessibilityFaults(page), []);
  await shot(page, 'player-actions-laptop.png');
  // Nobody but an administrator sees the administrators' page.
  await page.goto(`${base}/admin`);
  await page.waitForSelector('[data-admin-refused]');
  // The administrator, made one from the command line.
  const adminPage = await accountPage(admin, '10.77.0.3');
  execFileSync(bin, ['admin', 'grant', admin, '--database', `sqlite://${join(work, 'ui.db')}`]);
  await adminPage.goto(`${base}/`);
  await adminPage.click('#account [data-action="admin"]');
  await adminPage.waitForSelector('[data-admin="open"]');
  const report = adminPage.locator('[data-report]').filter({ hasText: rude });
  await report.waitFor();
  assert.match(await report.locator('[data-report-text]').innerText(), /Insults in the chat/);
  assert.deepEqual(await accessibilityFaults(adminPage), []);
  await shot(adminPage, 'admin-laptop.png');
  await report.locator('[data-action="mute"]').click();
  await adminPage.waitForSelector('[data-admin-answer].ok');
  await adminPage.locator('[data-report]').filter({ hasText: rude }).filter({ hasText: 'Chat muted until' }).waitFor();
  adminPage.once('dialog', (dialog) => dialog.accept());
  await adminPage.locator('[data-report]').filter({ hasText: rude }).locator('[data-action="close"]').click();
  await adminPage.locator('[data-report]').filter({ hasText: rude }).filter({ hasText: 'The account is closed' }).waitFor();
  // Closed, the reported player is logged out and their page says so.
  await rudePage.goto(`${base}/`);
  await rudePage.waitForSelector('#account [data-action="login"]');
  await page.goto(`${base}/@/${rude}`);
  await page.waitForSelector('[data-closed]');
  // Resolved, the report moves to the resolved list with what was done.
  const open = adminPage.locator('[data-report]').filter({ hasText: rude });
  await open.locator('input[name="resolution"]').fill('Muted for a day and closed.');
  await open.locator('[data-action="resolve"]').click();
  await adminPage.waitForSelector('[data-admin-answer].ok');
  // The open list is drawn again after the answer: wait for the report to leave it.
  await adminPage.locator('[data-report]').filter({ hasText: rude }).waitFor({ state: 'detached' });
  assert.equal(await adminPage.locator('[data-report]').filter({ hasText: rude }).count(), 0);
  await adminPage.click('[data-reports="resolved"]');
  await adminPage.waitForSelector('[data-admin="resolved"]');
  assert.match(await adminPage.locator('[data-report]').filter({ hasText: rude }).locator('[data-resolution]').innerText(),
    new RegExp(`Resolved by ${admin}.*Muted for a day and closed\\.`));
  // On a phone the page fits.
  await adminPage.setViewportSize({ width: 390, height: 844 });
  assert.equal(await adminPage.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(adminPage, 'admin-phone.png', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click('.player-actions [data-action="report"]');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await shot(page, 'player-actions-phone.png');
  for (const p of [rudePage, page, adminPage]) await p.close();
});

test('The home page: open seeks as a list and a graph beside the day\'s puzzle, above the fold, with the players online; a dot joins; a player page says who is online', async () => {
  const seek = await apiGame({ variant: 'wa', opponent: 'human', public: true,
    clock: { kind: 'fischer', main_ms: 300000, increment_ms: 3000 } });
  const page = await newPage(1366, 850);
  await page.goto(`${base}/`);
  const dot = page.locator(`[data-seek-dot="${seek.game_id}"]`);
  await dot.waitFor();
  await page.waitForFunction(() => /\d+ players? online · \d+ games? being played/.test(document.querySelector('[data-site-stats]')?.textContent || ''));
  // Above the fold: the panel starts and the dot sits within the first screen.
  const panel = await page.locator('[data-seek-panel]').boundingBox();
  assert.ok(panel.y < 850, `the seeks start at y=${panel.y}`);
  const spot = await dot.boundingBox();
  assert.ok(spot.y + spot.height < 850, `the dot is at y=${spot.y}`);
  assert.ok(await page.locator(`[data-seek="${seek.game_id}"]`).isVisible());
  // The games list names games by what they are, not by their ids.
  for (const link of await page.locator('[data-game-row] td:first-child a').allInnerTexts()) {
    assert.ok(['watch', 'replay', 'open'].includes(link), link);
  }
  assert.deepEqual(await accessibilityFaults(page), []);
  await shot(page, 'home-seeks-laptop.png');
  // A click on the dot joins the seek.
  await dot.click();
  await page.waitForURL(`**/game/${seek.game_id}`);
  await page.waitForSelector('[data-clock]:has-text("— you")');
  // On a phone the seeks come right after the games' cards, and nothing is wider than it.
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/`);
  await phone.waitForSelector('[data-seek-panel] [data-seek-graph]');
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await phone.locator('[data-seek-panel]').scrollIntoViewIfNeeded();
  await shot(phone, 'home-seeks-phone.png');
  await phone.close();
  // A player seen within the last minute is online on their page.
  const name = `online_${Date.now() % 100000}`;
  const player = await accountPage(name, '10.78.0.1');
  await player.goto(`${base}/`);
  await player.waitForSelector(`[data-me="${name}"]`);
  await page.goto(`${base}/@/${name}`);
  await page.waitForSelector('[data-online]');
  await player.close();
  await page.close();
});

test('The sign-up form checks the name in the browser, with no console error', async () => {
  const page = await newPage();
  const errors = [];
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  await page.goto(`${base}/signup`);
  const name = page.locator('input[name="username"]');
  await name.fill('bad name!');
  assert.equal(await name.evaluate((input) => input.validity.patternMismatch), true);
  await name.fill('Good_name-1');
  assert.equal(await name.evaluate((input) => input.validity.patternMismatch), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Every piece is drawn with the bundled font, whatever fonts the machine has', async () => {
  const page = await newPage(1280, 1000);
  await page.goto(`${base}/analysis`);
  await page.waitForSelector('.board sq[data-square]');
  // Tori's pieces are pictures unless kanji are chosen.
  await chooseSwitch(page, '#pieces', 'kanji');
  const variants = await (await fetch(`${base}/api/variants`)).json();
  const glyphs = new Map();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  for (const variant of variants) {
    await page.selectOption('select[name="variant"]', variant.name);
    await page.fill('input[name="sfen"]', variant.start_sfen);
    await page.click('[data-action="load"]');
    await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, variant.start_sfen);
    await page.evaluate(() => document.fonts.ready);
    // Which font Chromium really drew each piece's kanji with: this machine has IPA Mincho too.
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
    const pieces = [];
    const walk = (node) => {
      if (node.localName === 'piece') pieces.push(...(node.pseudoElements || []).filter((p) => p.pseudoType === 'after'));
      for (const child of node.children || []) walk(child);
    };
    walk(root);
    assert.ok(pieces.length >= 20, `${variant.name}: ${pieces.length} pieces found`);
    for (const pseudo of pieces) {
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId: pseudo.nodeId });
      for (const font of fonts) glyphs.set(font.familyName, (glyphs.get(font.familyName) || 0) + font.glyphCount);
    }
  }
  assert.deepEqual([...glyphs.keys()], ['Noto Serif JP'], `fonts used: ${JSON.stringify([...glyphs])}`);
  const faces = await page.evaluate(() => [...document.fonts].map((f) => [f.family.replace(/"/g, ''), f.status]));
  assert.deepEqual(faces, [['Tsubame Pieces', 'loaded']]);
  const fontPath = await page.evaluate(() => document.querySelector('link[rel="preload"][as="font"]').getAttribute('href'));
  assert.match(fontPath, /^\/assets\/tsubame-pieces-[0-9a-f]{12}\.woff2$/);
  const font = await fetch(`${base}${fontPath}`);
  assert.equal(font.headers.get('content-type'), 'font/woff2');
  assert.ok((await font.arrayBuffer()).byteLength < 100_000);
  await page.close();
});

/** A position with the given pieces only: `placements` maps `file,rankIndex` to an SFEN code. */
function sfenWith(files, ranks, placements) {
  const rows = [];
  for (let rank = 0; rank < ranks; rank++) {
    let row = '';
    let empty = 0;
    for (let file = files; file >= 1; file--) {
      const code = placements.get(`${file},${rank}`);
      if (!code) { empty++; continue; }
      if (empty) row += empty;
      empty = 0;
      row += code;
    }
    rows.push(row + (empty ? empty : ''));
  }
  return `${rows.join('/')} b - 1`;
}

test('Rules pages: every piece\'s diagram marks exactly where the move generator lets it go', async () => {
  const page = await newPage(1366, 900);
  const variants = await (await fetch(`${base}/api/variants`)).json();
  for (const variant of variants) {
    await page.goto(`${base}/rules/${variant.name}`);
    await page.waitForSelector(`.rules [data-piece] .diagram`);
    await page.waitForSelector('.rules .board piece');
    await shot(page, `rules-${variant.name}.png`, { fullPage: variant.name === 'tori' });
    const radius = variant.name === 'tenjiku' ? 4 : 3;
    const centreFile = Math.ceil(variant.files / 2);
    const centreRank = Math.floor(variant.ranks / 2);
    const royal = variant.roles.find((r) => r.royal).sfen;
    // Both royals where no move of any piece from the centre can reach.
    const ownRoyal = `${centreFile - 3},${centreRank + 2}`;
    const enemyRoyal = `${centreFile + 3},${centreRank - 2}`;
    let compared = 0;
    for (const role of variant.roles) {
      // Tenjiku's powers (lion moves, burning, range jumps) depend on other pieces: their
      // diagrams are checked by shape in the rules data, not against a lone piece.
      if (role.powers) continue;
      const placements = new Map([[`${centreFile},${centreRank}`, role.sfen], [enemyRoyal, royal.toLowerCase()]]);
      if (!role.royal) placements.set(ownRoyal, royal);
      const sfen = sfenWith(variant.files, variant.ranks, placements);
      const replay = await fetch(`${base}/api/replay`, { method: 'POST',
        body: JSON.stringify({ variant: variant.name, sfen, moves: [] }) });
      assert.equal(replay.status, 200, `${variant.name} ${role.sfen}: ${sfen}`);
      const { legal_moves: legal } = await replay.json();
      const from = `${centreFile}${String.fromCharCode(97 + centreRank)}`;
      const expected = new Set(legal.filter((m) => m.startsWith(from)).map((m) => {
        const target = m.slice(from.length).replace(/\+$/, '');
        const file = Number(target.match(/^\d+/)[0]);
        const rank = target.charCodeAt(target.length - 1) - 97;
        return `${file - centreFile},${centreRank - rank}`;
      }).filter((key) => key.split(',').every((n) => Math.abs(Number(n)) <= radius)));
      const drawn = new Set(await page.$$eval(`.rules [data-piece="${role.sfen}"] .diagram .cell[data-marks]`,
        (cells) => cells.map((c) => `${c.dataset.left},${c.dataset.forward}`)));
      assert.deepEqual([...drawn].sort(), [...expected].sort(), `${variant.name} ${role.name} (${role.sfen})`);
      compared++;
    }
    assert.ok(compared >= Math.min(10, variant.roles.length), `${variant.name}: ${compared} pieces compared`);
  }
  await page.close();
});

/** Where a lone piece in the middle of an empty board may go, by way: for each direction
 * (left, forward) with no common factor, the squares along it it reaches (from the move
 * generator); a knight's leap is its own way's first square. */
async function reachFromCentre(variant, code) {
  const centreFile = Math.ceil(variant.files / 2);
  const centreRank = Math.floor(variant.ranks / 2);
  const royal = variant.roles.find((r) => r.royal).sfen;
  const placements = new Map([[`${centreFile},${centreRank}`, code],
    [`${centreFile + 3},${centreRank - 2}`, royal.toLowerCase()]]);
  if (code !== royal) placements.set(`${centreFile - 3},${centreRank + 2}`, royal);
  const replay = await fetch(`${base}/api/replay`, { method: 'POST',
    body: JSON.stringify({ variant: variant.name, sfen: sfenWith(variant.files, variant.ranks, placements), moves: [] }) });
  assert.equal(replay.status, 200, `${variant.name} ${code}`);
  const { legal_moves: legal } = await replay.json();
  const from = `${centreFile}${String.fromCharCode(97 + centreRank)}`;
  const gcd = (a, b) => (b === 0 ? Math.abs(a) : gcd(b, a % b));
  const reach = new Map();
  for (const move of legal.filter((m) => m.startsWith(from) && !m.includes(','))) {
    const target = move.slice(from.length).replace(/\+$/, '');
    const left = Number(target.match(/^\d+/)[0]) - centreFile;
    const forward = centreRank - (target.charCodeAt(target.length - 1) - 97);
    const distance = gcd(left, forward);
    const key = `${left / distance},${forward / distance}`;
    reach.set(key, [...new Set([...(reach.get(key) || []), distance])].sort((a, b) => a - b));
  }
  return reach;
}

test('Tori\'s picture pieces: each bird\'s head, wings, tail and feet point exactly where the move generator lets it go; sides and promotion told apart', async () => {
  const page = await newPage(1366, 900);
  await page.goto(`${base}/rules/tori`);
  await page.waitForSelector('.rules [data-piece] .rule-piece piece');
  // Pictures are the default for a new visitor.
  assert.equal(await page.evaluate(() => document.documentElement.dataset.pieces), 'pictures');
  assert.equal(await page.inputValue('#pieces'), 'pictures');
  const tori = (await (await fetch(`${base}/api/variants`)).json()).find((v) => v.name === 'tori');
  assert.equal(tori.roles.length, 11, 'every bird, the owl and shrike and both promoted ones included');
  const kinds = { '1': 'step', '1,2': 'second', '1,2,3': 'slide', '2': 'jump' };
  const luminance = [];
  for (const role of tori.roles) {
    // The picture the page draws for each side's piece, read back from the page's own style.
    const pictures = await page.evaluate((code) => {
      const face = document.querySelector(`.rules [data-piece="${code}"] .rule-piece piece`);
      const gote = face.cloneNode();
      gote.classList.replace('sente', 'gote');
      face.parentElement.append(gote);
      const read = (node) => decodeURIComponent(getComputedStyle(node, '::after').backgroundImage.replace(/^url\("data:image\/svg\+xml,|"\)$/g, ''));
      const result = { sente: read(face), gote: read(gote) };
      gote.remove();
      return result;
    }, role.sfen);
    const measured = {};
    for (const color of ['sente', 'gote']) {
      assert.match(pictures[color], /^<svg/, `${role.name} (${color}) is a picture`);
      measured[color] = await page.evaluate((text) => {
        const holder = document.createElement('div');
        holder.innerHTML = text;
        document.body.append(holder);
        const svg = holder.querySelector('svg');
        svg.setAttribute('width', '300');
        const [cx, cy] = svg.dataset.centre.split(' ').map(Number);
        const farthest = (shapes) => {
          let best = { r: -1 };
          for (const shape of shapes) {
            const length = shape.getTotalLength();
            for (let i = 0; i <= 600; i++) {
              const p = shape.getPointAtLength(length * i / 600);
              const r = Math.hypot(p.x - cx, p.y - cy);
              if (r > best.r) best = { r, x: p.x - cx, y: p.y - cy };
            }
          }
          return best;
        };
        const reaches = [...svg.querySelectorAll('.reach')].map((group) => {
          const tip = farthest(group.querySelectorAll('path'));
          return { kind: group.dataset.reach, r: tip.r, angle: Math.atan2(-tip.y, tip.x) * 180 / Math.PI };
        });
        // Everything else stays within the body: what reaches out is a move.
        const rest = [...svg.querySelectorAll('path, circle, ellipse')].filter((s) => !s.closest('.reach') && !s.classList.contains('seal'));
        const body = Math.max(...rest.map((s) => {
          const b = s.getBBox();
          return Math.max(...[[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
            .map(([x, y]) => Math.hypot(x - cx, y - cy)));
        }));
        const fill = getComputedStyle(svg.querySelector('.body')).fill.match(/\d+/g).map(Number);
        const seal = Boolean(svg.querySelector('.seal'));
        holder.remove();
        return { reaches, body, fill, seal };
      }, pictures[color]);
    }
    const { reaches, body } = measured.sente;
    // Read as a player reads it: each part's direction and kind.
    const drawn = new Map();
    for (const part of reaches) {
      const compass = Math.round(part.angle / 45) * 45;
      assert.ok(Math.abs(part.angle - compass) < 1.5, `${role.name}: a part points at ${part.angle.toFixed(1)}°, along no line`);
      const radians = compass * Math.PI / 180;
      // Screen right is sente's right: "left" is the other way.
      const key = `${-Math.round(Math.cos(radians))},${Math.round(Math.sin(radians))}`;
      assert.ok(!drawn.has(key), `${role.name}: two parts point along ${key}`);
      drawn.set(key, part.kind);
      const [least, most] = { step: [30, 38], second: [40, 47], jump: [40, 47], slide: [43, 50] }[part.kind];
      assert.ok(part.r >= least && part.r <= most, `${role.name} ${key} ${part.kind}: reaches ${part.r.toFixed(1)}`);
      assert.ok(part.r > body + 4, `${role.name} ${key}: the part stands out of the body (${part.r.toFixed(1)} > ${body.toFixed(1)})`);
    }
    const expected = new Map([...await reachFromCentre(tori, role.sfen)]
      .map(([key, distances]) => [key, kinds[distances.filter((d) => d <= 3).join(',')]]));
    assert.deepEqual(Object.fromEntries([...drawn].sort()), Object.fromEntries([...expected].sort()), `${role.name} (${role.sfen}): ${role.betza}`);
    // Sente's birds dark, gote's light; a promoted bird sealed in red.
    const lum = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    luminance.push([lum(measured.sente.fill), lum(measured.gote.fill)]);
    assert.ok(lum(measured.sente.fill) < 0.3 && lum(measured.gote.fill) > 0.85, `${role.name}: sente ${measured.sente.fill}, gote ${measured.gote.fill}`);
    assert.equal(measured.sente.seal, role.sfen.startsWith('+'), `${role.name}: sealed as promoted`);
    assert.equal(measured.gote.seal, role.sfen.startsWith('+'), `${role.name}: sealed as promoted`);
  }
  assert.equal(luminance.length, 11);
  await shot(page, 'rules-tori-pictures.png', { fullPage: true });

  // On the board: pictures on both sides, gote's turned round; kanji and Latin are the same
  // switch's other choices, remembered.
  for (const [width, height, name] of [[1366, 850, 'laptop'], [390, 844, 'phone']]) {
    const board = await newPage(width, height);
    await board.goto(`${base}/analysis`);
    await board.waitForSelector('.board piece.gote');
    const face = (selector) => board.evaluate((s) => {
      const node = document.querySelector(s);
      const after = getComputedStyle(node, '::after');
      return { image: after.backgroundImage.slice(0, 30), content: after.content, transform: after.transform };
    }, selector);
    assert.match((await face('.board piece.sente')).image, /^url\("data:image\/svg\+xml/);
    const gote = await face('.board piece.gote');
    assert.match(gote.image, /^url\("data:image\/svg\+xml/);
    assert.equal(gote.transform, 'matrix(-1, 0, 0, -1, 0, 0)');
    await shot(board, `tori-pictures-${name}.png`);
    await chooseSwitch(board, '#pieces', 'kanji');
    assert.equal((await face('.board [data-square="4g"] piece, .board piece.sente')).image, 'none');
    assert.match((await face('.board piece.sente')).content, /^"[\u3400-\u9fff]/);
    await board.reload();
    await board.waitForSelector('.board piece.gote');
    assert.equal(await board.inputValue('#pieces'), 'kanji');
    assert.match((await face('.board piece.sente')).content, /^"[\u3400-\u9fff]/);
    await board.close();
  }
  await page.close();
});

test('Wa and Tenjiku move marks: every dot, ring and line on a piece is where the move generator lets it go', async () => {
  const page = await newPage(1366, 900);
  const variants = (await (await fetch(`${base}/api/variants`)).json()).filter((v) => v.name !== 'tori');
  for (const variant of variants) {
    await page.goto(`${base}/rules/${variant.name}`);
    await page.waitForSelector('.rules [data-piece] .rule-piece piece');
    let compared = 0;
    for (const role of variant.roles) {
      const svg = await page.evaluate((code) => {
        const face = document.querySelector(`.rules [data-piece="${code}"] .rule-piece piece`);
        const layers = getComputedStyle(face, '::before').backgroundImage;
        const marks = layers.match(/^url\("data:image\/svg\+xml,([^"]*)"\)/);
        return marks ? decodeURIComponent(marks[1]) : null;
      }, role.sfen);
      assert.ok(svg, `${variant.name} ${role.name} carries marks`);
      // Tenjiku's powers depend on other pieces: they are marked in red and spelled out on the
      // piece card; the ordinary moves are compared here.
      if (role.powers) {
        assert.match(svg, /class="[^"]*power/, `${role.name}: its power is marked`);
        continue;
      }
      const marks = await page.evaluate((text) => {
        const holder = document.createElement('div');
        holder.innerHTML = text;
        document.body.append(holder);
        const node = holder.querySelector('svg');
        const [cx, cy] = node.dataset.centre.split(' ').map(Number);
        const found = [...node.querySelectorAll('.mark')].map((mark) => {
          let x; let y;
          if (mark.localName === 'circle') [x, y] = [mark.cx.baseVal.value - cx, mark.cy.baseVal.value - cy];
          else {
            const end = mark.getPointAtLength(mark.getTotalLength());
            [x, y] = [end.x - cx, end.y - cy];
          }
          return { kind: mark.classList[1], r: Math.hypot(x, y), angle: Math.atan2(-y, x) * 180 / Math.PI };
        });
        holder.remove();
        return found;
      }, svg);
      // Marks read back into ways and squares: by direction (the eight lines and the knight's
      // eight), then from the rim inwards, 7 units a square; a ring is a square jumped to.
      const ways = new Map();
      for (const mark of marks) {
        const radians = mark.angle * Math.PI / 180;
        const candidates = [[1, 0], [1, 1], [0, 1], [2, 1], [1, 2]].flatMap(([a, b]) =>
          [[a, b], [-a, b], [a, -b], [-a, -b], [b, a], [-b, a], [b, -a], [-b, -a]]);
        const [dx, dy] = candidates.find(([a, b]) => Math.abs(Math.atan2(b, a) - radians) < 0.03
          || Math.abs(Math.abs(Math.atan2(b, a) - radians) - 2 * Math.PI) < 0.03) || [];
        assert.ok(dx !== undefined, `${role.name}: a mark at ${mark.angle.toFixed(1)}° is on no way`);
        const key = `${-dx},${dy}`;
        ways.set(key, [...(ways.get(key) || []), mark]);
      }
      const drawn = new Map();
      for (const [key, list] of ways) {
        if (list.some((m) => m.kind === 'line')) {
          assert.equal(list.length, 1, `${role.name} ${key}: a line alone`);
          drawn.set(key, 'slides');
          continue;
        }
        const positions = list.map((m) => ({ ...m, from: Math.round((40 - m.r) / 7) }));
        for (const m of positions) assert.ok(Math.abs(40 - m.r - m.from * 7) < 0.6, `${role.name} ${key}: a mark off its square (${m.r})`);
        const innermost = positions.reduce((a, b) => (a.from > b.from ? a : b));
        const last = innermost.from + 1 + (innermost.kind === 'ring' ? 1 : 0);
        drawn.set(key, positions.map((m) => last - m.from).sort((a, b) => a - b).join(','));
      }
      const reach = await reachFromCentre(variant, role.sfen);
      const expected = new Map([...reach].map(([key, distances]) => [key, distances.length >= 4 ? 'slides' : distances.join(',')]));
      assert.deepEqual(Object.fromEntries([...drawn].sort()), Object.fromEntries([...expected].sort()), `${variant.name} ${role.name} (${role.sfen}): ${role.betza}`);
      compared++;
    }
    assert.ok(compared >= Math.min(30, variant.roles.length - 21), `${variant.name}: ${compared} pieces compared`);
    await shot(page, `rules-${variant.name}-marks.png`);
  }
  await page.close();
  // On a phone the Tenjiku board shows the marks at its fitted size and one zoom step in.
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/analysis`);
  await phone.waitForSelector('.board sq[data-square]');
  await phone.selectOption('select[name="variant"]', 'tenjiku');
  await phone.click('[data-action="load"]');
  await phone.waitForSelector('.board.pieces-tenjiku piece');
  assert.match(await phone.evaluate(() => getComputedStyle(document.querySelector('.board piece'), '::before').backgroundImage), /^url\("data:image\/svg\+xml/);
  await shot(phone, 'tenjiku-marks-phone.png');
  await phone.locator('input.zoom').fill('36');
  await phone.waitForFunction(() => document.querySelector('.board [data-square="1a"]').getBoundingClientRect().width >= 35);
  await shot(phone, 'tenjiku-marks-phone-zoomed.png');
  await phone.close();
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

/** The English words a page writes itself in its visible text (not in fields, notation or
 * names the server or a player chose): none should be left in the Japanese pages. */
async function englishWords(page) {
  return page.evaluate(() => {
    // Names of formats, programs, books and rule sets, written as their makers write them.
    const allowed = new Set(['Tsubame', 'SFEN', 'FEN', 'USI', 'KIF', 'PGN', 'Hodges', 'Glicko', 'English', 'Elo',
      'pychess', 'variants', 'Encyclopedia', 'Chess', 'Variants', 'Fairy', 'Stockfish', 'tsa']);
    const words = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('script, style, textarea, option[value="en"], .visually-hidden, a[data-player-name], [data-player-name^="Guest-"], .line-moves, [data-moves], [data-export], code, a[href^="/game/"], a[href^="/tournament/"]')) continue;
      const box = parent.getBoundingClientRect();
      if (!box.width || !box.height || getComputedStyle(parent).visibility === 'hidden') continue;
      for (const word of node.textContent.match(/[A-Za-z]{3,}/g) || []) if (!allowed.has(word)) words.add(word);
    }
    return [...words];
  });
}

test('Japanese: chosen from the browser\'s language, switchable and remembered; the page\'s lang follows, and the pages speak it', async () => {
  for (const [width, height, device] of [[1366, 850, 'laptop'], [390, 844, 'phone']]) {
    const context = await browser.newContext({ viewport: { width, height }, locale: 'ja-JP' });
    const page = await context.newPage();
    page.on('pageerror', (e) => { throw e; });
    await page.goto(`${base}/`);
    await page.waitForSelector('#app > *');
    assert.equal(await page.getAttribute('html', 'lang'), 'ja');
    assert.equal(await page.inputValue('#lang'), 'ja');
    assert.equal(await page.textContent('header.top nav a[href="/"]'), '対局');
    for (const path of ['/', '/rules/tori', '/rules/tenjiku', '/learn/tori', '/learn/tori/check', '/learn/wa/piece-oxcart', '/editor/tori', '/puzzles/tori', '/analysis', '/import', '/signup', '/account', '/no/such/page']) {
      await page.goto(`${base}${path}`);
      await page.waitForSelector('#app > *');
      await page.waitForLoadState('networkidle');
      assert.deepEqual(await englishWords(page), [], `${path} at ${width}px`);
      if (['/', '/rules/tori', '/editor/tori'].includes(path)) await shot(page, `ja-${path.split('/').filter(Boolean).join('-') || 'home'}-${device}.png`);
    }
    if (device === 'laptop') {
      // The server's refusals in Japanese: a name already taken, a wrong login (from an
      // address of their own: sign-ups and logins are limited per address, refused ones too).
      const taken = `ja_${Date.now() % 100000}`;
      await signUpFrom(taken, '10.77.0.9');
      await page.context().setExtraHTTPHeaders({ 'x-forwarded-for': '10.77.0.10' });
      await page.goto(`${base}/signup`);
      await page.fill('input[name="username"]', taken);
      await page.fill('input[name="password"]', 'a long enough password');
      await page.click('[data-action="signup-submit"]');
      await page.waitForSelector('[data-account-error]:has-text("すでに使われています")');
      assert.equal(await page.textContent('[data-account-error]'), `${taken}という名前はすでに使われています。`);
      await page.goto(`${base}/login`);
      await page.fill('input[name="username"]', 'nobody_here_at_all');
      await page.fill('input[name="password"]', 'a long enough password');
      await page.click('[data-action="login-submit"]');
      await page.waitForSelector('[data-account-error]:has-text("ユーザー名またはパスワードが違います。")');
      assert.deepEqual(await englishWords(page), [], 'the refusal');
      // The board editor names every problem of a position in Japanese, Tenjiku's as well.
      await page.goto(`${base}/editor/tori?sfen=${encodeURIComponent('S2k3/6S/6S/6S/7/7/2K1K2 b 3F 1')}`);
      await page.waitForSelector('[data-editor-status][data-verdict="problems"]');
      const problems = await page.locator('[data-editor-problems] li').allTextContents();
      assert.equal(problems.length, 4, problems.join(' | '));
      assert.match(problems[1], /^先手の鵬が盤上に2枚/);
      assert.match(problems[3], /^先手の燕が1筋に3枚/);
      assert.deepEqual(await englishWords(page), [], 'the editor\'s problems');
      const tenjiku = 'P6k7P/16/16/16/16/16/16/16/16/16/16/16/16/pppppppppppppppp/p15/7K8 b - 1';
      await page.goto(`${base}/editor/tenjiku?sfen=${encodeURIComponent(tenjiku)}`);
      await page.waitForSelector('[data-editor-status][data-verdict="problems"]');
      const named = await page.locator('[data-editor-problems] li').allTextContents();
      assert.equal(named.length, 3, named.join(' | '));
      assert.match(named[0], /^16aの成っていない歩兵は動けません/);
      assert.match(named[2], /^後手の歩兵（成駒を含む）が17枚/);
      assert.deepEqual(await englishWords(page), [], 'Tenjiku\'s problems');
      await shot(page, 'ja-editor-problems-laptop.png');
      // Work the address does not keep survives a change of language: the analysis's moves.
      await page.goto(`${base}/analysis`);
      await page.waitForSelector('.board sq[data-square]');
      await playByClicks(page, '1e1d');
      await page.waitForSelector('[data-move-tree] [data-tree-move]');
      await chooseSwitch(page, '#lang', 'en');
      await page.waitForFunction(() => document.documentElement.lang === 'en');
      assert.equal(await page.textContent('header.top nav a[href="/"]'), 'Play');
      assert.equal(await page.locator('[data-move-tree] [data-tree-move]').count(), 1, 'the move is kept');
      await chooseSwitch(page, '#lang', 'ja');
    }
    // A game against the computer: the players' bars, the buttons and the end in Japanese.
    await page.goto(`${base}/`);
    await page.click('[data-computer="tori"]');
    await page.waitForSelector('[data-clock]:has-text("あなた")');
    assert.deepEqual(await englishWords(page), [], `a game at ${width}px`);
    // Moves are written 日本式 unless another notation was chosen.
    assert.equal(await page.inputValue('select[name="notation"]'), 'japanese');
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.hand[data-hand="sente"]'), '::before').content), '"☗ 先手"');
    await shot(page, `ja-game-${device}.png`);
    // Back to English: at once, and still after a reload.
    if (device === 'phone') await page.click('#menu-button');
    await chooseSwitch(page, '#lang', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    assert.equal(await page.textContent('header.top nav a[href="/"]'), 'Play');
    await page.reload();
    await page.waitForSelector('#app > *');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal(await page.inputValue('#lang'), 'en');
    await context.close();
  }
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

test('Themes: the system\'s dark scheme by default, light or dark by choice, remembered', async () => {
  const context = await browser.newContext({ viewport: { width: 1366, height: 850 }, colorScheme: 'dark' });
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  watchPolicy(page);
  const lightness = () => page.evaluate(() => {
    const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
    return (r + g + b) / 3;
  });
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-action="create"]');
  assert.equal(await page.inputValue('#theme'), 'auto');
  assert.ok(await lightness() < 60, 'the system is dark: so is the page');
  await shot(page, 'theme-dark-lobby.png');
  const game = await apiGame({ variant: 'wa', opponent: 'engine', level: 1, side: 'sente', clock: { kind: 'unlimited' } });
  await openWithToken(page, game);
  await shot(page, 'theme-dark-game.png');
  await chooseSwitch(page, '#theme', 'light');
  assert.ok(await lightness() > 200, 'light by choice');
  await page.reload();
  await page.waitForSelector('.board sq');
  assert.equal(await page.inputValue('#theme'), 'light');
  assert.ok(await lightness() > 200, 'the choice is remembered');
  await context.close();
});

test('Home: quick pairing joins the next player who picks the same game and clock', async () => {
  const first = await otherPersonPage(1366, 900);
  await first.goto(`${base}/`);
  await first.waitForSelector('[data-quick="tori 3+10"]');
  assert.equal(await first.locator('.game-card').count(), 3);
  await shot(first, 'home.png');
  await first.click('[data-quick="tori 3+10"]');
  await first.waitForSelector('.board sq');
  const gameUrl = first.url();
  const id = gameUrl.split('/').pop();
  const waiting = await (await fetch(`${base}/api/games/${id}`)).json();
  assert.equal(waiting.status, 'waiting');
  assert.deepEqual(waiting.time_control, { kind: 'byoyomi', main_ms: 180000, periods: 1, period_ms: 10000 });
  // Another person asking for the same game and clock is paired with the first.
  const second = await otherPersonPage(390, 844);
  await second.goto(`${base}/`);
  await second.waitForSelector('[data-quick="tori 3+10"]');
  await second.click('[data-quick="tori 3+10"]');
  await second.waitForSelector('.board sq');
  assert.equal(second.url().split('/').pop(), id);
  const paired = await (await fetch(`${base}/api/games/${id}`)).json();
  assert.equal(paired.status, 'playing');
  // The game is on the home page's list of games being played, with its board.
  const watcher = await newPage(1366, 900);
  await watcher.goto(`${base}/`);
  await watcher.waitForSelector(`[data-live="${id}"] .mini-board piece`);
  await shot(watcher, 'home-live.png');
  // Playing the computer from a game's card.
  await watcher.click('[data-computer="wa"]');
  await watcher.waitForSelector('.board sq');
  assert.equal(await watcher.locator('.board sq').count(), 121);
  for (const page of [first, second, watcher]) await page.close();
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
  const marked = (p) => p.$$eval('[data-mistake]', (items) => items.map((li) => `${li.dataset.mistake}${li.dataset.mark}`));
  assert.deepEqual(await marked(watcher), await marked(page));
  assert.ok((await marked(page)).some((m) => m.startsWith('3')), 'the falcon given away is marked');
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

/** Signs up from the header's link in this page's own browser context. */
async function signUp(page, name) {
  await page.goto(`${base}/`);
  await page.click('[data-action="signup"]');
  await page.fill('input[name="username"]', name);
  await page.fill('input[name="password"]', 'a long enough password');
  await page.click('[data-action="signup-submit"]');
  await page.waitForSelector(`[data-me="${name}"]`);
}

test('Learn path progress made as a guest goes with the account on signing up, and is there in another browser after logging in', async () => {
  const laptop = await otherPersonPage(1366, 850);
  await laptop.goto(`${base}/learn/wa/game`);
  await laptop.click('[data-lesson-continue]');
  await laptop.waitForSelector('[data-lesson-royal]');
  await laptop.click('.learn-sq[data-square="6k"]');
  await laptop.click('[data-lesson-continue]');
  await laptop.waitForSelector('[data-lesson-finished]');
  const name = `learner_${Date.now() % 100000}`;
  // Sign-ups are limited per address: this player's come from an address of its own.
  await laptop.context().setExtraHTTPHeaders({ 'x-forwarded-for': '10.78.0.5' });
  await signUp(laptop, name);
  await laptop.goto(`${base}/learn/wa`);
  await laptop.waitForSelector('[data-learn-path][data-synced="true"]');
  assert.equal(await laptop.getAttribute('[data-path-kept]', 'data-path-kept'), 'account');
  // A lesson done while logged in goes to the account at once.
  await laptop.goto(`${base}/learn/wa/first-games`);
  await laptop.click('[data-lesson-continue]');
  await laptop.waitForSelector('[data-lesson-puzzles]');
  const phone = await otherPersonPage(390, 844);
  await phone.goto(`${base}/learn/wa`);
  await phone.waitForSelector('[data-learn-path]');
  assert.equal(await phone.locator('.lesson-item.done').count(), 0, 'a guest in another browser has none of it');
  await phone.goto(`${base}/login`);
  await phone.fill('input[name="username"]', name);
  await phone.fill('input[name="password"]', 'a long enough password');
  await phone.click('[data-action="login-submit"]');
  await phone.waitForSelector(`[data-me="${name}"]`, { state: 'attached' });
  await phone.goto(`${base}/learn/wa`);
  await phone.waitForSelector('[data-learn-path][data-synced="true"]');
  for (const id of ['game', 'first-games']) assert.equal(await phone.locator(`.lesson-item.done [data-lesson-link="${id}"]`).count(), 1, id);
  await shot(phone, 'learn-path-account-phone.png');
  // Logged out, the laptop shows the next guest none of it.
  await laptop.evaluate(() => fetch('/api/account/logout', { method: 'POST' }));
  await laptop.goto(`${base}/learn/wa`);
  await laptop.waitForSelector('[data-learn-path][data-synced="false"]');
  await laptop.waitForTimeout(300);
  assert.equal(await laptop.locator('.lesson-item.done').count(), 0, 'a guest after the player sees none of their progress');
  await laptop.close();
  await phone.close();
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

test('Accounts: two players sign up, play a rated game by clicking, chat, see their new ratings, rematch, and resume on another device', async () => {
  const alice = await otherPersonPage();
  const bob = await otherPersonPage();
  // The login form refuses a wrong password with the same words as an unknown name.
  await alice.goto(`${base}/login`);
  await alice.fill('input[name="username"]', 'nobody');
  await alice.fill('input[name="password"]', 'whatever1234');
  await alice.click('[data-action="login-submit"]');
  await alice.waitForSelector('[data-account-error]:has-text("wrong user name or password")');
  await shot(alice, 'login-error.png');
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');

  // Alice seeks a rated game with a clock; her own seek offers Cancel, not Join.
  await alice.goto(`${base}/`);
  await alice.waitForSelector('[data-action="create"]');
  await alice.selectOption('select[name="variant"]', 'tori');
  await alice.check('input[name="opponent"][value="human"]');
  await alice.check('input[name="public"]');
  await alice.selectOption('select[name="side"]', 'sente');
  await alice.selectOption('select[name="clock"]', 'byoyomi');
  await alice.check('[data-rated]');
  await alice.click('[data-action="create"]');
  await alice.waitForSelector('[data-status]:has-text("rated")');
  const id = alice.url().match(/\/game\/(\w+)/)[1];
  await alice.goto(`${base}/`);
  await alice.locator(`[data-seek="${id}"] [data-cancel-seek]`).waitFor();
  assert.equal(await alice.locator(`[data-seek="${id}"] [data-join]`).count(), 0);

  // Bob sees who seeks, with her provisional rating, and joins.
  await bob.goto(`${base}/`);
  const seek = bob.locator(`[data-seek="${id}"]`);
  await seek.waitFor();
  assert.match(await seek.innerText(), /alice 1500\?/);
  assert.equal(await seek.locator('[data-seek-mode]').innerText(), 'rated');
  await shot(bob, 'lobby-rated-seek.png');
  await seek.locator('[data-join]').click();
  await bob.waitForURL(`**/game/${id}`);
  await alice.goto(`${base}/game/${id}`);
  for (const page of [alice, bob]) {
    await page.waitForSelector('[data-clock="sente"] [data-player-name="alice"]');
    await page.waitForSelector('[data-clock="gote"] [data-player-name="bob"]');
  }
  await bob.waitForSelector('[data-clock="gote"]:has-text("you")');

  // They chat while playing; a line with markup arrives as the text it is.
  await playLine(alice, bob, TORI_MATE.split(' ').slice(0, 4).join(' '));
  await alice.fill('[data-chat-input]', 'good luck <b>bob</b>');
  await alice.click('[data-action="chat-send"]');
  await bob.waitForSelector('[data-chat-line]:has-text("good luck")');
  assert.equal(await bob.locator('[data-chat-line] .chat-text').first().innerText(), 'good luck <b>bob</b>');
  assert.equal(await bob.locator('[data-chat-lines] b').count(), 0, 'no markup from chat');
  await bob.fill('[data-chat-input]', 'thanks, you too');
  await bob.press('[data-chat-input]', 'Enter');
  await alice.waitForSelector('[data-chat-line]:has-text("thanks, you too")');
  // Bob mutes alice: her lines leave his page, his own stay.
  await bob.check('[data-chat-mute]');
  assert.equal(await bob.locator('[data-chat-line]:has-text("good luck")').count(), 0);
  assert.equal(await bob.locator('[data-chat-line]:has-text("thanks")').count(), 1);
  await bob.uncheck('[data-chat-mute]');
  await shot(bob, 'rated-game-chat.png');
  await playLine(alice, bob, TORI_MATE.split(' ').slice(4).join(' '), 4);

  // Mate: both see the result and the rating changes of the worked first game.
  for (const page of [alice, bob]) {
    await page.waitForSelector('[data-result="checkmate"]');
    await page.waitForSelector('[data-rating-change="sente"]');
    assert.equal((await page.locator('[data-clock="sente"] [data-rating-change]').innerText()).trim(), '+162');
    assert.equal((await page.locator('[data-clock="gote"] [data-rating-change]').innerText()).trim(), '-162');
  }
  await shot(alice, 'rated-game-over.png');

  // Bob asks for a rematch, alice accepts: both land in the new game, colours swapped.
  await bob.click('[data-action="rematch"]');
  await bob.waitForSelector('[data-rematch-offered]');
  await alice.waitForSelector('[data-rematch-offer="gote"]');
  await alice.click('[data-action="rematch-accept"]');
  for (const page of [alice, bob]) {
    await page.waitForFunction((old) => !location.pathname.includes(old), id);
  }
  const rematch = bob.url().match(/\/game\/(\w+)/)[1];
  assert.notEqual(rematch, id);
  await bob.waitForSelector('[data-clock="sente"]:has-text("you")');
  await bob.waitForSelector('[data-clock="sente"] [data-rating]:has-text("1338")');
  await alice.waitForSelector('[data-clock="gote"]:has-text("you")');
  await playByClicks(bob, '3d3c');
  await waitPly(bob, 1);

  // Alice picks the game up on another device: logged in there, her seat follows her.
  const phone = await otherPersonPage(390, 844);
  await phone.goto(`${base}/login`);
  await phone.fill('input[name="username"]', 'ALICE');
  await phone.fill('input[name="password"]', 'a long enough password');
  await phone.click('[data-action="login-submit"]');
  await phone.waitForSelector('[data-me="alice"]');
  await phone.waitForSelector('[data-your-turn="1"]');
  await phone.click('[data-your-turn]');
  await phone.waitForSelector(`[data-ongoing="${rematch}"]:has-text("your turn")`);
  await phone.click(`[data-open-game="${rematch}"]`);
  await phone.waitForSelector('[data-clock="gote"]:has-text("you")');
  await playByClicks(phone, '4b3c');
  await waitPly(bob, 2);
  assert.equal(await bob.locator('[data-moves] [data-ply="2"]').innerText(), 'Fax3c');
  await shot(phone, 'resumed-on-phone.png');

  // Her page: the rating with its history chart, the ongoing and the finished game.
  await phone.goto(`${base}/@/alice`);
  await phone.waitForSelector('[data-rating-row="tori rapid"]');
  assert.match(await phone.locator('[data-rating-row="tori rapid"]').innerText(), /1662\?/);
  await phone.waitForSelector('[data-chart="tori"] svg circle');
  assert.match(await phone.locator(`[data-finished="${id}"]`).innerText(), /won \(checkmate\)\s*\+162/);
  assert.match(await phone.locator(`[data-finished="${id}"]`).innerText(), /bob/);
  await shot(phone, 'profile-phone.png', { fullPage: true });
  assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    'the player page does not scroll sideways on a phone');
  // The page has an address of its own to share.
  await alice.goto(`${base}/@/alice`);
  await alice.waitForSelector('[data-chart="tori"] svg circle');
  await shot(alice, 'profile.png');

  // Logged in, quick pairing is rated: bob's seek is taken by alice, not by a guest.
  await bob.goto(`${base}/`);
  await bob.click('[data-quick="tori 3+10"]');
  await bob.waitForSelector('[data-status]:has-text("rated")');
  const quick = bob.url().match(/\/game\/(\w+)/)[1];
  await alice.goto(`${base}/`);
  await alice.click('[data-quick="tori 3+10"]');
  await alice.waitForURL(`**/game/${quick}`);
  await alice.waitForSelector('[data-clock] [data-player-name="bob"]');

  // A guest still plays, under a generated name.
  const guest = await otherPersonPage();
  await guest.goto(`${base}/`);
  await guest.waitForSelector('[data-action="login"]');
  // Eight levels, each with its estimated rating, level 1 for a first visit; the one chosen is
  // every game's and is remembered.
  assert.equal(await guest.locator('[data-computer-level="tori"] option').count(), 8);
  assert.equal(await guest.inputValue('[data-computer-level="tori"]'), '1');
  assert.match(await guest.locator('[data-computer-level="tori"] option').nth(0).innerText(), /^Level 1: first game \(about \d+\)$/);
  // Each game's own ladder: Tori's first level is rated about 670, Wa's about 1010.
  assert.equal(await guest.locator('[data-computer-level="tori"] option').nth(0).innerText(), 'Level 1: first game (about 670)');
  assert.equal(await guest.locator('[data-computer-level="wa"] option').nth(0).innerText(), 'Level 1: first game (about 1010)');
  assert.equal(await guest.locator('[data-computer-level="tenjiku"] option').nth(0).innerText(), 'Level 1: first game (about 970)');
  await guest.selectOption('[data-computer-level="tori"]', '3');
  assert.equal(await guest.inputValue('[data-computer-level="wa"]'), '3');
  await guest.reload();
  assert.equal(await guest.inputValue('[data-computer-level="tori"]'), '3');
  await guest.click('[data-computer="tori"]');
  await guest.waitForSelector('[data-clock="sente"] [data-player-name^="Guest-"]');
  await guest.waitForSelector('[data-clock="gote"] [data-player-name="Computer level 3"]');
  for (const page of [alice, bob, phone, guest]) await page.close();
});

test('Tenjiku on a phone: zoom in to read the pieces, pan across the board inside its frame, play, and fit again', async () => {
  const page = await newPage(390, 844);
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-computer="tenjiku"]');
  // On a phone the switches are in the top bar's menu.
  await chooseSwitch(page, '#pieces', 'latin');
  await page.click('[data-computer="tenjiku"]');
  await page.waitForSelector('.board sq');
  const square = async () => (await page.locator('.board [data-square="1a"]').boundingBox()).width;
  const fitted = await square();
  assert.ok(fitted <= 24, `fitted squares: ${fitted}`);
  const sideways = () => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.equal(await sideways(), false);
  // Zoomed in, the pieces' letters are large enough to read, and the board pans inside its own
  // frame: the page itself never scrolls sideways. The place last touched (far to the right,
  // low on the board) stays in view.
  await page.locator('.board [data-square="3n"]').click({ force: true });
  await page.locator('input.zoom').fill('44');
  await page.waitForFunction(() => document.querySelector('.board [data-square="1a"]').getBoundingClientRect().width >= 43);
  const touched = await page.locator('.board [data-square="3n"]').boundingBox();
  assert.ok(touched.x >= 0 && touched.x + touched.width <= 390 && touched.y >= 0 && touched.y + touched.height <= 844,
    `the touched square in view after zooming: ${JSON.stringify(touched)}`);
  const letters = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('.board piece.sente'), '::after').fontSize));
  assert.ok(letters >= 12, `piece letters: ${letters}px`);
  assert.equal(await sideways(), false);
  const area = page.locator('.board-area');
  assert.ok(await area.evaluate((node) => node.scrollWidth > node.clientWidth + 200), 'the board is wider than its frame');
  await area.evaluate((node) => { node.scrollLeft = node.scrollWidth; });
  const corner = await page.locator('.board [data-square="1l"]').boundingBox();
  assert.ok(corner.x >= 0 && corner.x + corner.width <= 390, `1l on screen: ${JSON.stringify(corner)}`);
  await shot(page, 'tenjiku-phone-zoomed.png');
  // A move by tapping in the zoomed board: sente's pawn on 1l one square forward.
  await page.locator('.board [data-square="1l"]').click({ force: true });
  await page.waitForSelector('.board sq.dest');
  await page.locator('.board [data-square="1k"]').click({ force: true });
  await waitPly(page, 1);
  await page.click('[data-action="fit"]');
  await page.waitForFunction((before) => document.querySelector('.board [data-square="1a"]').getBoundingClientRect().width <= before + 0.5, fitted);
  assert.equal(await sideways(), false);
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
