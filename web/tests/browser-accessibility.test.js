// Browser test of accessibility: axe-core on every page, on a laptop and a phone, light and dark
// (other files check the pages they open with the same accessibilityFaults).
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base, useServer, newPage, apiGame, accessibilityFaults,
} from './support.js';

useServer();

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
