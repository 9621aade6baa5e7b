// The UI's API types (src/api-types.ts) are what `npm run api-types` generates from
// openapi.json, the server's API document (the play server's tests check that copy is the
// document it serves). So an answer that changes shape changes these types, and the type check
// of the test run fails wherever the UI does not follow it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');

test('the UI\'s API types are generated from the API document as it stands', () => {
  const script = JSON.parse(readFileSync(join(web, 'package.json'), 'utf8')).scripts['api-types'];
  const [command, ...args] = script.split(/\s+/);
  assert.equal(command, 'openapi-typescript');
  const run = spawnSync(process.execPath, [join(web, 'node_modules/openapi-typescript/bin/cli.js'), ...args, '--check'],
    { cwd: web, encoding: 'utf8' });
  assert.equal(run.status, 0, `src/api-types.ts is not what openapi.json generates: run \`npm run api-types\` in web/\n${run.stdout}${run.stderr}`);
});

test('the UI reads the API\'s answers through the generated types', () => {
  const types = readFileSync(join(web, 'src', 'types.ts'), 'utf8');
  // The answers' shapes are the generated ones, named here, not written again by hand.
  assert.match(types, /from '\.\/api-types'/);
  assert.doesNotMatch(types, /\binterface\b/, 'types.ts writes an answer\'s shape by hand');
  const aliases = [...types.matchAll(/export type (\w+) =([^;]*);/g)];
  for (const [, name, body] of aliases) {
    assert.doesNotMatch(body, /[{:]/, `types.ts writes ${name}'s shape by hand: ${body.trim()}`);
  }
  for (const answer of ['GameView', 'VariantInfo', 'MoveRecord', 'ChatLine', 'WhoAmI', 'Side']) {
    assert.match(types, new RegExp(`\\b${answer}\\b`), `types.ts names ${answer}`);
  }
});
