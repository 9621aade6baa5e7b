// Browser tests of the site as a whole: the icon, real addresses and 404 pages, every route of the UI,
// and the pages in Japanese.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  base, browser, work, bin, root, useServer, newPage, playByClicks, apiGame, shot, signUpFrom,
  chooseSwitch, postAs,
} from './support.js';

useServer();

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
