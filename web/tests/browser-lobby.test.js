// Browser tests of the home page and the lobby: games made from the form and joined by an invite
// link, from the lobby's list, by a dot of the seek graph and by quick pairing; the new-game form; TV.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base, browser, useServer, newPage, otherPersonPage, playLine, apiGame, shot, TORI_MATE, TORI_START,
  accessibilityFaults, accountPage, signUpFrom, postAs,
} from './support.js';

useServer();

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
  assert.equal(await sente.locator('.board').getAttribute('data-sfen'), TORI_START);
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
  const sockets = [];
  page.on('websocket', (ws) => sockets.push(ws));
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
  // The page of the game that ended was left: its socket is closed (with its clock timer and
  // keys), not kept open beside the next game's.
  const open = (ended) => sockets.filter((ws) => ws.url().includes(rated.game_id) === ended && !ws.isClosed()).length;
  assert.ok(sockets.some((ws) => ws.url().includes(rated.game_id)));
  for (let waited = 0; open(true) > 0 || open(false) === 0; waited += 100) {
    assert.ok(waited < 10000, `sockets open after the switch: ${open(true)} of the ended game, ${open(false)} of the next`);
    await new Promise((done) => setTimeout(done, 100));
  }
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
  // On a phone the seeks come right after the games' cards, and nothing is wider than it: every
  // part of a seek, its clock, its rating range and its join button, lies inside the panel.
  const phoneSeek = await apiGame({ variant: 'tenjiku', opponent: 'human', public: true,
    clock: { kind: 'fischer', main_ms: 3600000, increment_ms: 60000 } });
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/`);
  await phone.waitForSelector('[data-seek-panel] [data-seek-graph]');
  await phone.waitForSelector(`[data-seek="${phoneSeek.game_id}"] [data-join]`);
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  const seekBox = await phone.locator('[data-seek-panel]').boundingBox();
  for (const cell of await phone.locator('[data-seek-panel] [data-seek] td').all()) {
    const box = await cell.boundingBox();
    assert.ok(box.x >= seekBox.x && box.x + box.width <= seekBox.x + seekBox.width + 0.5,
      `a seek's cell "${await cell.innerText()}" spans x=${box.x}..${box.x + box.width}, the panel ${seekBox.x}..${seekBox.x + seekBox.width}`);
  }
  const join = await phone.locator(`[data-seek="${phoneSeek.game_id}"] [data-join]`).boundingBox();
  assert.ok(join.x + join.width <= seekBox.x + seekBox.width, `the join button ends at x=${join.x + join.width}`);
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

test('Home: quick pairing joins the next player who picks the same game and clock', async () => {
  const first = await otherPersonPage(1366, 900);
  await first.goto(`${base}/`);
  await first.waitForSelector('[data-quick="tori 3+10"]');
  assert.equal(await first.locator('.game-card').count(), 3);
  await shot(first, 'home.png');
  // However narrow the cards (three across, two, one), each game's computer level is read whole:
  // the list is as wide as its longest level's words.
  for (const width of [1366, 1200, 1100, 760, 390]) {
    await first.setViewportSize({ width, height: 900 });
    // A list sized to its words is as wide with no limit as it is on the page.
    const cut = await first.evaluate(() => [...document.querySelectorAll('[data-computer-level]')].flatMap((select) => {
      const shown = select.getBoundingClientRect().width;
      select.style.maxWidth = 'none';
      const whole = select.getBoundingClientRect().width;
      select.style.maxWidth = '';
      return whole > shown + 0.5 ? [`${select.dataset.computerLevel}: ${shown} px of ${whole}`] : [];
    }));
    assert.deepEqual(cut, [], `levels cut short at ${width} px`);
  }
  await first.setViewportSize({ width: 1366, height: 900 });
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
