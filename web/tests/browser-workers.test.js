// Computer moves by workers: a real `tsubame serve --engine-workers`, a key made by
// `tsubame admin worker-key add` and a real `tsubame worker` process. While nobody takes the
// computer's moves, the home page (and the lobby above its form) says the computer is slow;
// a worker started then plays the move that waited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { apiGame, bin, newPage, shot, useServer, waitForPly } from './support.js';

const served = useServer({ serverArgs: ['--games-per-minute', '1000', '--engine-workers'] });

test('With no worker running the computer is called slow at laptop and phone size; a worker started plays its move', async () => {
  // Nothing waits: no note once the page has heard how long the computer's moves wait.
  const quiet = await newPage(1366, 850);
  const heard = quiet.waitForResponse((response) => response.url().endsWith('/api/engine/queue'));
  await quiet.goto(`${served.base}/`);
  assert.equal((await (await heard).json()).long, false);
  await quiet.waitForSelector('[data-game="tori"]');
  assert.equal(await quiet.locator('[data-engine-queue]').isVisible(), false, 'no note while nothing waits');
  await quiet.close();
  // The computer plays first, and nobody takes its move.
  const grant = await apiGame({ variant: 'tori', opponent: 'engine', side: 'gote', level: 2 });
  await new Promise((resolve) => setTimeout(resolve, 3300));
  for (const [width, height, name] of [[1366, 850, 'laptop'], [390, 844, 'phone']]) {
    const page = await newPage(width, height);
    await page.goto(`${served.base}/`);
    const note = page.locator('[data-engine-queue]');
    await note.waitFor({ state: 'visible' });
    assert.match(await note.textContent(), /busy just now: its moves wait about \d+ s/);
    await note.scrollIntoViewIfNeeded();
    await shot(page, `engine-queue-${name}.png`);
    await page.close();
  }
  const key = execFileSync(bin, ['admin', '--database', `sqlite://${join(served.work, 'ui.db')}`,
    'worker-key', 'add', 'browser-test'], { encoding: 'utf8' }).trim();
  const worker = spawn(bin, ['worker', '--server', served.base],
    { env: { ...process.env, TSUBAME_WORKER_KEY: key }, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const view = await waitForPly(grant.game_id, 1);
    assert.equal(view.ply, 1);
  } finally {
    worker.kill('SIGKILL');
  }
});
