// What the browser tests share. Each test file calls useServer() once: it starts the file's own
// `tsubame serve` on a fresh SQLite file in a temporary directory of its own, and its own
// headless Debian Chromium driven by playwright-core, and ends both after the file's last test.
// Screenshots go to target/ui-screenshots/. Playwright gives each launch a fresh temporary profile.
// TSUBAME_BIN names the tsubame binary (default ../target/ci/tsubame); CHROMIUM the browser.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const root = resolve(import.meta.dirname, '..', '..');
export const bin = process.env.TSUBAME_BIN || join(root, 'target', 'ci', 'tsubame');
export const shots = join(root, 'target', 'ui-screenshots');
// The file's server address, its browser and its temporary directory (which holds the server's
// database, ui.db): set by useServer()'s `before`. Imported, they are live bindings: a test reads
// them once the server runs.
export let base;
export let browser;
export let work;
let server;
// Anything the page's Content-Security-Policy refused: the UI must need nothing it forbids.
const refusedByPolicy = [];
let serving = false;

/** Registers the test file's `before` and `after` hooks: its own server and browser. Called once
 * per file (each test file runs in a process of its own); answers the same values as getters.
 * `serverArgs` are `tsubame serve`'s options besides the address and the database. */
export function useServer({ serverArgs = ['--games-per-minute', '1000'] } = {}) {
  assert.equal(serving, false, 'useServer() is called once per test file');
  serving = true;
  before(async () => {
    mkdirSync(shots, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'tsubame-ui-'));
    // By default: every page of the tests comes from one address and creates games faster than
    // a player.
    server = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--database', `sqlite://${join(work, 'ui.db')}`,
      ...serverArgs],
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
    try {
      assert.deepEqual(refusedByPolicy, [], 'the Content-Security-Policy refused something the UI needs');
    } finally {
      await browser?.close();
      server?.kill('SIGKILL');
      if (work) rmSync(work, { recursive: true, force: true });
    }
  });

  return {
    get base() { return base; },
    get browser() { return browser; },
    get work() { return work; },
  };
}

export function watchPolicy(page) {
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
  });
}

export async function newPage(width = 1200, height = 900) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('pageerror', (e) => { throw e; });
  watchPolicy(page);
  return page;
}

/** A page in a browser context of its own: another person, with their own stored tokens. */
export async function otherPersonPage(width = 1200, height = 900) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  watchPolicy(page);
  // The browser may already be closing (after the last test): nothing is left to close then.
  page.on('close', () => context.close().catch(() => {}));
  return page;
}

/** Plays one USI move by clicking: the piece (or the hand piece), then the destination. */
export async function playByClicks(page, usi, side = null) {
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
  if (await page.locator('[data-dialog]').count()) await page.click(`[data-dialog] button[title="${usi}"]`);
}

/** Two people take turns: sente's page plays the even plies, gote's the odd ones; each waits
 * to see the other's move arrive before answering. */
export async function playLine(sente, gote, line, from = 0) {
  for (const [index, usi] of line.split(' ').entries()) {
    const ply = from + index;
    await waitPly(ply % 2 === 0 ? sente : gote, ply);
    await playByClicks(ply % 2 === 0 ? sente : gote, usi);
    await waitPly(sente, ply + 1);
    await waitPly(gote, ply + 1);
  }
}

/** Creates a game through the API (for set positions the form does not offer). */
export async function apiGame(body) {
  const response = await fetch(`${base}/api/games`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(response.status, 201);
  return response.json();
}

export async function apiMove(grant, usi) {
  const response = await fetch(`${base}/api/games/${grant.game_id}/moves`,
    { method: 'POST', body: JSON.stringify({ token: grant.token, move: usi }) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

export async function waitForPly(id, ply) {
  for (let tries = 0; tries < 300; tries++) {
    const view = await (await fetch(`${base}/api/games/${id}`)).json();
    if (view.ply >= ply) return view;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`game ${id} did not reach ply ${ply}`);
}

export async function openWithToken(page, grant) {
  await page.goto(`${base}/`);
  await page.evaluate(([id, token]) => localStorage.setItem(`tsubame.token.${id}`, token), [grant.game_id, grant.token]);
  await page.goto(`${base}/game/${grant.game_id}`);
  await page.waitForSelector('.board sq');
  // The board shows the game before the server has said which side this page plays (its
  // hello over the socket); a click before that is a spectator's and would be lost.
  await page.waitForSelector('[data-clock]:has-text("— you")');
}

/** Saves a screenshot once the board's pieces have stopped moving and fading. */
export async function shot(page, name, options = {}) {
  await page.waitForFunction(() => !document.querySelector('.board piece.anim, .board piece.fading'));
  await page.waitForTimeout(50);
  await page.screenshot({ path: join(shots, name), ...options });
}

export async function click(page, square) {
  // Shogiground takes clicks on its piece layer above the squares: click where the square is.
  await page.locator(`.board [data-square="${square}"]`).click({ force: true });
}

export async function waitPly(page, ply) {
  await page.waitForFunction((n) => document.querySelector('[data-moves]')?.dataset.moves >= n, ply, { timeout: 20000 });
}

/** Tori's start position, as the board's `data-sfen` shows it. */
export const TORI_START = 'rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1';

// A Tori game from the start position that sente mates on the 13th move: a swallow promotes on
// capturing (3c3b+), falcon and crane are dropped from the hand, the promoted falcon (eagle)
// makes a two-square jump, and the dropped crane mates.
export const TORI_MATE = '3d3c 4b3b 3c3b+ 3a4b F*2b 4a5b 2b1a+ 4b3c 1a3c 5a6b 3b3d 5b4a C*3b';

/** The serious and critical accessibility faults axe-core finds on the page as it stands. */
export async function accessibilityFaults(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) {
    // Run through the debugging protocol, which the page's Content-Security-Policy leaves alone.
    await page.evaluate(readFileSync(join(root, 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  }
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.html.slice(0, 160)) })));
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A new account, signed up from an address of its own (sign-ups are limited per address),
 * and a page in a browser context of its own logged in as it. */
export async function accountPage(name, address, width = 1366, height = 850) {
  const [cookie, value] = (await signUpFrom(name, address)).split('=');
  const page = await otherPersonPage(width, height);
  await page.context().addCookies([{ name: cookie, value, url: base }]);
  return page;
}

/** Signs `name` up from `address` (sign-ups are limited per address); the session cookie. */
export async function signUpFrom(name, address) {
  const response = await fetch(`${base}/api/account/signup`, { method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ username: name, password: 'a long enough password' }) });
  assert.equal(response.status, 201, await response.text());
  return response.headers.get('set-cookie').split(';')[0];
}

/** Chooses a value of one of the top bar's switches, opening what holds them (the Display
 * menu on a laptop, the menu on a phone) and closing it again. */
export async function chooseSwitch(page, selector, value) {
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
export async function postAs(cookie, path, body) {
  const response = await fetch(`${base}${path}`, { method: 'POST',
    headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body) });
  const text = await response.text();
  assert.ok(response.ok, `${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** Signs up from the header's link in this page's own browser context. */
export async function signUp(page, name) {
  await page.goto(`${base}/`);
  await page.click('[data-action="signup"]');
  await page.fill('input[name="username"]', name);
  await page.fill('input[name="password"]', 'a long enough password');
  await page.click('[data-action="signup-submit"]');
  await page.waitForSelector(`[data-me="${name}"]`);
}
