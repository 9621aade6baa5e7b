// Browser tests of accounts and players: signing up, the settings, a rated game between two accounts,
// players' pages, named challenges, an arena, blocking and reporting, the administrators' page.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  base, work, bin, useServer, newPage, otherPersonPage, playByClicks, playLine, waitForPly, shot,
  waitPly, TORI_MATE, accessibilityFaults, accountPage, signUpFrom, postAs, signUp,
} from './support.js';

useServer();

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
  // The rule options stand a little apart, as the form's other rows do, not select on select.
  const gaps = await page.evaluate(() => {
    const fields = [...document.querySelectorAll('[data-challenge-form] .field')].map((f) => f.getBoundingClientRect());
    return fields.slice(1).map((box, i) => box.top - fields[i].bottom);
  });
  assert.ok(gaps.length >= 3 && gaps.every((gap) => gap >= 4), `gaps between the option rows: ${gaps}`);
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
  // Each bar shows its player's name and rating whole on a phone, not cut short.
  const cut = await benPage.evaluate(() => [...document.querySelectorAll('.player-bar .who')]
    .filter((who) => who.scrollWidth > who.clientWidth + 1).map((who) => who.textContent));
  assert.deepEqual(cut, [], 'bars whose words are cut short');
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
  // A game's score ("2–0") reads on one line, never broken after its dash.
  for (const score of await spectator.locator('[data-arena-games] td.num').all()) {
    if (!(await score.innerText()).trim()) continue;
    const lines = await score.evaluate((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    });
    assert.equal(lines, 1, `the score "${await score.innerText()}" on one line`);
  }
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
  // Each game's own ladder: Tori's first level is rated about 670, Wa's about 825 and its full
  // strength about 2720, where Tori's is 3000 and Tenjiku's 2110.
  assert.equal(await guest.locator('[data-computer-level="tori"] option').nth(0).innerText(), 'Level 1: first game (about 670)');
  assert.equal(await guest.locator('[data-computer-level="wa"] option').nth(0).innerText(), 'Level 1: first game (about 825)');
  assert.match(await guest.locator('[data-computer-level="wa"] option').nth(7).innerText(), /^Level 8: .* \(about 2720\)$/);
  assert.match(await guest.locator('[data-computer-level="tori"] option').nth(7).innerText(), /^Level 8: .* \(about 3000\)$/);
  assert.equal(await guest.locator('[data-computer-level="tenjiku"] option').nth(0).innerText(), 'Level 1: first game (about 965)');
  await guest.selectOption('[data-computer-level="tori"]', '3');
  assert.equal(await guest.inputValue('[data-computer-level="wa"]'), '3');
  await guest.reload();
  assert.equal(await guest.inputValue('[data-computer-level="tori"]'), '3');
  await guest.click('[data-computer="tori"]');
  await guest.waitForSelector('[data-clock="sente"] [data-player-name^="Guest-"]');
  await guest.waitForSelector('[data-clock="gote"] [data-player-name="Computer level 3"]');
  for (const page of [alice, bob, phone, guest]) await page.close();
});
