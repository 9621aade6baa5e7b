// Browser tests of how the pages fit a screen: the top bar, the board, hands and players on a laptop and
// a phone, upright and sideways; the piece card; Tenjiku zoomed on a phone; the colour themes.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base, browser, useServer, watchPolicy, newPage, otherPersonPage, apiGame, openWithToken, shot,
  click, waitPly, signUpFrom, chooseSwitch, postAs,
} from './support.js';

useServer();

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
        const button = await page.locator('#display-button').boundingBox();
        const panel = await page.locator('#switches').boundingBox();
        assert.ok(Math.abs(panel.x + panel.width - (button.x + button.width)) <= 1 && panel.y >= button.y + button.height,
          `${lang} ${width}: the switches (${JSON.stringify(panel)}) open right under their button (${JSON.stringify(button)})`);
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
  // Panned to the far side, the players' bars (names and clocks) and the board's tools (the way
  // back to the fitted size) stay on the screen.
  for (const part of ['[data-bar="top"]', '[data-bar="bottom"]', '[data-action="flip"]', 'input.zoom', '[data-action="fit"]']) {
    const box = await page.locator(`.board-area ${part}`).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `${part} on screen when panned: ${JSON.stringify(box)}`);
  }
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
