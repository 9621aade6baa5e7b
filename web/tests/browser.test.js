// Browser tests: the real `tsubame serve` with a fresh SQLite file, driven through Debian's
// Chromium by playwright-core. Screenshots go to target/ui-screenshots/.
// Playwright gives each launch a fresh temporary profile.
// TSUBAME_BIN names the tsubame binary (default ../target/ci/tsubame); CHROMIUM the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
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

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--database', `sqlite://${join(work, 'ui.db')}`],
    { stdio: ['ignore', 'pipe', 'inherit'] });
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
  await browser?.close();
  server?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

async function newPage(width = 1200, height = 900) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('pageerror', (e) => { throw e; });
  return page;
}

/** Creates a game through the API (for set positions the form does not offer). */
async function apiGame(body) {
  const response = await fetch(`${base}/api/games`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(response.status, 201);
  return response.json();
}

async function openWithToken(page, grant) {
  await page.goto(`${base}/`);
  await page.evaluate(([id, token]) => localStorage.setItem(`tsubame.token.${id}`, token), [grant.game_id, grant.token]);
  await page.goto(`${base}/#/game/${grant.game_id}`);
  await page.waitForSelector('.board .sq');
}

async function click(page, square) {
  await page.click(`.board [data-square="${square}"]`);
}

async function waitPly(page, ply) {
  await page.waitForFunction((n) => document.querySelector('[data-moves]')?.dataset.moves >= n, ply, { timeout: 20000 });
}

test('Tori against the computer from the lobby: click moves, drop from hand', async () => {
  const page = await newPage();
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-action="create"]');
  await page.screenshot({ path: join(shots, 'lobby.png') });
  await page.selectOption('select[name="variant"]', 'tori');
  await page.selectOption('select[name="level"]', '1');
  await page.selectOption('select[name="clock"]', 'unlimited');
  await page.click('[data-action="create"]');
  await page.waitForSelector('.board .sq');
  assert.equal(await page.locator('.board .sq').count(), 49);
  // Select the swallow on 3d: its destination is shown, then capture on 3c.
  await click(page, '3d');
  assert.equal(await page.locator('.board .sq.dest').count(), 1);
  await click(page, '3c');
  await waitPly(page, 2);
  // The captured swallow is in sente's hand: drop it.
  await page.waitForSelector('[data-hand="sente"] [data-drop="S"]');
  await page.click('[data-hand="sente"] [data-drop="S"]');
  const drops = await page.locator('.board .sq.dest').count();
  assert.ok(drops > 5, `drop destinations: ${drops}`);
  const target = await page.locator('.board .sq.dest').first().getAttribute('data-square');
  await click(page, target);
  await waitPly(page, 4);
  assert.match(await page.locator('[data-moves] [data-ply="3"]').innerText(), /^Sw\*/);
  await page.screenshot({ path: join(shots, 'tori-vs-computer.png') });
  await page.check('#latin');
  await page.screenshot({ path: join(shots, 'tori-latin.png') });
  await page.uncheck('#latin');
  await page.close();
});

test('Tori: promotion by clicking, then a game played to its end (mate), replay and export', async () => {
  const page = await newPage();
  // A bare gote phoenix against a swallow, a phoenix and a falcon in hand: the swallow
  // promotes on 5b by clicking, then the test plays the engine's suggestions to mate.
  const grant = await apiGame({ variant: 'tori', opponent: 'engine', level: 1,
    sfen: '3k3/7/2S4/7/7/7/3K3 b F 1' });
  await openWithToken(page, grant);
  await click(page, '5c');
  await click(page, '5b');
  await waitPly(page, 2);
  // Finish the game: the engine plays on, the test drops and moves until the game ends.
  for (let i = 0; i < 60; i++) {
    const over = await page.locator('[data-result]').count();
    if (over) break;
    const legal = await page.evaluate(async (id) => (await (await fetch(`/api/games/${id}`)).json()), grant.game_id);
    if (legal.status !== 'playing') break;
    if (legal.side_to_move !== 'sente') { await page.waitForTimeout(100); continue; }
    // Prefer a mating or capturing move among the legal ones: ask the engine which.
    const best = await page.evaluate(async (g) => (await (await fetch('/api/analyse', { method: 'POST',
      body: JSON.stringify({ variant: 'tori', sfen: g.sfen, depth: 3 }) })).json()).best, legal);
    const drop = best.match(/^([A-Z])\*(\w+)$/);
    if (drop) {
      await page.click(`[data-hand="sente"] [data-drop="${drop[1]}"]`);
      await click(page, drop[2]);
    } else {
      await click(page, best.slice(0, 2));
      await click(page, best.slice(2, 4));
      if (await page.locator('[data-dialog]').count()) await page.click(`[data-choice="${best.endsWith('+') ? 'promote' : 'stay'}"]`);
    }
    await waitPly(page, legal.ply + 1);
  }
  await page.waitForSelector('[data-result]', { timeout: 20000 });
  const reason = await page.locator('[data-result]').getAttribute('data-result');
  assert.ok(['checkmate', 'drop-mate', 'stalemate', 'repetition'].includes(reason), reason);
  await page.waitForSelector('[data-export="usi"]');
  assert.match(await page.locator('[data-export="usi"]').inputValue(), /^sfen 3k3\/7\/2S4/);
  assert.ok((await page.locator('[data-export="fen"]').inputValue()).length > 10);
  await page.screenshot({ path: join(shots, 'tori-finished.png') });
  await page.click('[data-replay="0"]');
  assert.equal(await page.locator('.board .piece').count(), 3);
  await page.close();
});

test('Wa: a move on a phone-sized screen, and the optional promotion choice', async () => {
  const page = await newPage(390, 844);
  const grant = await apiGame({ variant: 'wa', opponent: 'engine', level: 1 });
  await openWithToken(page, grant);
  assert.equal(await page.locator('.board .sq').count(), 121);
  await click(page, '6k');
  await click(page, '5j');
  await waitPly(page, 2);
  await page.screenshot({ path: join(shots, 'wa-phone.png'), fullPage: true });
  await page.close();

  const wide = await newPage();
  // A Wa swallow (pawn) one step from the zone: the move into it may promote or not.
  const choice = await apiGame({ variant: 'wa', opponent: 'engine', level: 1,
    sfen: '5k5/11/11/5P5/11/11/11/11/11/11/5K5 b - 1' });
  await openWithToken(wide, choice);
  await click(wide, '6d');
  await click(wide, '6c');
  await wide.waitForSelector('[data-dialog="choice"]');
  await wide.screenshot({ path: join(shots, 'wa-promotion-choice.png') });
  await wide.click('[data-choice="promote"]');
  await waitPly(wide, 1);
  assert.match(await wide.locator('[data-moves] [data-ply="1"]').innerText(), /\+$/);
  await wide.screenshot({ path: join(shots, 'wa-board.png') });
  await wide.close();
});

test('Tenjiku: the 16x16 board, a pawn move and a lion pass by clicking, the engine answering', async () => {
  const page = await newPage(1280, 1000);
  const grant = await apiGame({ variant: 'tenjiku', opponent: 'engine', level: 1 });
  await openWithToken(page, grant);
  assert.equal(await page.locator('.board .sq').count(), 256);
  // Pieces with suffixed codes are drawn as pieces, not left out.
  assert.equal(await page.locator('.board .piece').count(), 156);
  await click(page, '9l');
  await click(page, '9k');
  await waitPly(page, 2);
  assert.equal(await page.locator('[data-moves] [data-ply="1"]').innerText(), 'P-9k');
  // The lion passes: its own square is one of its destinations.
  await click(page, '9o');
  await click(page, '9o');
  await waitPly(page, 4);
  assert.equal(await page.locator('[data-moves] [data-ply="3"]').innerText(), 'Ln-9o');
  await page.screenshot({ path: join(shots, 'tenjiku-board.png'), fullPage: true });
  await page.close();
});

test('import a record and ask the engine on the analysis board', async () => {
  const page = await newPage();
  await page.goto(`${base}/#/import`);
  await page.waitForSelector('[data-action="load"]');
  await page.fill('textarea[name="moves"]', '3d3c 4b3c 5e5d');
  await page.click('[data-action="load"]');
  await page.waitForSelector('[data-export="hodges"]');
  assert.match(await page.locator('[data-export="hodges"]').inputValue(), /^1\. Swx3c Fax3c/);
  await page.screenshot({ path: join(shots, 'import.png') });
  await page.goto(`${base}/#/analysis`);
  await page.waitForSelector('.board .sq');
  await click(page, '3d');
  await click(page, '3c');
  await page.waitForFunction(() => document.querySelector('.board [data-square="3c"] .piece')?.dataset.piece === 'S');
  await page.click('[data-action="analyse"]');
  await page.waitForSelector('[data-best]', { timeout: 20000 });
  await page.screenshot({ path: join(shots, 'analysis.png') });
  await page.close();
});
