// Browser tests of the learn pages: the pieces' drills, the lessons of the path in English and Japanese,
// and progress kept with an account.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base, useServer, newPage, otherPersonPage, playByClicks, shot, click, signUp,
} from './support.js';

useServer();

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
      // The legend's every mark sits on the line of its own meaning, however the line wraps.
      const items = await page.locator('[data-lesson-piece] .legend .legend-item').all();
      assert.ok(items.length >= 2, 'the legend has a mark for a step and for a slide');
      for (const item of items) {
        const mark = await item.locator('.cell').boundingBox();
        const words = await item.locator('span:not(.cell)').boundingBox();
        assert.ok(mark.x < words.x && mark.y + mark.height / 2 > words.y && mark.y + mark.height / 2 < words.y + words.height,
          `a legend mark beside its words: ${JSON.stringify({ mark, words })}`);
      }
      // The card's words start at its top edge, as a step's heading does, with no empty band.
      const lead = await page.evaluate(() => {
        const card = document.querySelector('[data-lesson-piece]');
        return card.querySelector('p').getBoundingClientRect().top - card.getBoundingClientRect().top;
      });
      assert.ok(lead < 24, `${lead}px above the card's first words`);
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
      await page.click(`[data-dialog] button[title="${usi}"]`);
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
