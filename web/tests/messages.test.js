// The message catalogue: every part has the same keys in English and Japanese, with the same
// {parameters}, no empty text; every key the code asks for by name exists.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const areas = Object.fromEntries(readdirSync(join(src, 'messages')).filter((f) => f.endsWith('.json'))
  .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(src, 'messages', f), 'utf8'))]));
const params = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('every key is in both languages, with the same parameters and some text', () => {
  assert.ok(Object.keys(areas).length >= 1);
  for (const [area, { en, ja, ...rest }] of Object.entries(areas)) {
    assert.deepEqual(Object.keys(rest), [], `${area}: only en and ja`);
    const enKeys = Object.keys(en).sort();
    const jaKeys = Object.keys(ja).sort();
    // Japanese has one form for every count: a `.one` text may be left to its `.other`.
    assert.deepEqual(enKeys.filter((k) => !ja[k] && !k.endsWith('.one')), [], `${area}: missing in Japanese`);
    assert.deepEqual(jaKeys.filter((k) => !en[k]), [], `${area}: missing in English`);
    for (const key of enKeys.filter((k) => ja[k])) {
      assert.ok(en[key].trim() && ja[key].trim(), `${area}.${key}: empty`);
      // A count-dependent text has its .other form; Japanese needs no other.
      if (key.endsWith('.one')) assert.ok(en[key.replace(/\.one$/, '.other')], `${area}.${key}: no .other`);
      const wanted = key.endsWith('.one') ? params(en[key]).filter((p) => p !== 'count') : params(en[key]);
      const got = key.endsWith('.one') ? params(ja[key]).filter((p) => p !== 'count') : params(ja[key]);
      assert.deepEqual(got, wanted, `${area}.${key}: parameters`);
    }
  }
});

test('every key the code and the page ask for is in the catalogue', () => {
  const files = readdirSync(src).filter((f) => /\.(ts|js|html)$/.test(f));
  const asked = new Set();
  for (const file of files) {
    const text = readFileSync(join(src, file), 'utf8');
    for (const m of text.matchAll(/\bt\(\s*'([a-z0-9-]+)\.([^'$`{}]+)'/g)) asked.add(`${m[1]}.${m[2]}`);
    for (const m of text.matchAll(/\btn\(\s*'([a-z0-9-]+)\.([^'$`{}]+)'/g)) asked.add(`${m[1]}.${m[2]}.other`);
    for (const m of text.matchAll(/\btParts\(\s*'([a-z0-9-]+)\.([^'$`{}]+)'/g)) asked.add(`${m[1]}.${m[2]}`);
    for (const m of text.matchAll(/data-i18n(?:-title|-label)?="([a-z0-9-]+)\.([^"]+)"/g)) asked.add(`${m[1]}.${m[2]}`);
  }
  const missing = [...asked].filter((key) => {
    const [area, ...rest] = key.split('.');
    return !areas[area]?.en?.[rest.join('.')];
  });
  assert.deepEqual(missing, [], 'keys asked for that the catalogue lacks');
  assert.ok(asked.size >= 20, `${asked.size} keys asked for`);
});

test('every position problem the rules name by code has its text in the catalogue, and the API document lists each', () => {
  // The codes are those SetupError::problem gives in the rules crate; the doc comment of the
  // server's PositionProblem lists them for the API document.
  const crates = join(src, '..', '..', 'crates');
  const runtime = readFileSync(join(crates, 'tsubame-rules', 'src', 'runtime.rs'), 'utf8');
  const body = runtime.match(/pub fn problem\(&self\) -> SetupProblem \{([\s\S]*?)\n {4}\}\n\}/);
  assert.ok(body, 'SetupError::problem');
  const codes = [...new Set([...body[1].matchAll(/of\("([a-z-]+)"\)/g)].map((m) => m[1]))].sort();
  assert.ok(codes.length >= 10, `${codes.length} codes`);
  const responses = readFileSync(join(crates, 'tsubame-server', 'src', 'responses.rs'), 'utf8');
  const doc = responses.match(/((?:\/\/\/.*\n)+)#\[derive[^\n]*\]\npub struct PositionProblem/);
  assert.ok(doc, 'PositionProblem and its doc comment');
  const documented = [...new Set([...doc[1].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]))].sort();
  assert.deepEqual(documented, codes, 'the codes PositionProblem documents');
  const missing = codes.filter((code) => !areas.editor.en[`problem-${code}`] || !areas.editor.ja[`problem-${code}`]);
  assert.deepEqual(missing, [], 'problem codes without a text');
});

test('every report reason the server takes has its words in the catalogue', () => {
  const moderation = readFileSync(join(src, '..', '..', 'crates', 'tsubame-server', 'src', 'moderation.rs'), 'utf8');
  const list = moderation.match(/REPORT_REASONS: \[&str; \d+\] = \[([^\]]*)\]/);
  assert.ok(list, 'REPORT_REASONS');
  const reasons = [...list[1].matchAll(/"([a-z-]+)"/g)].map((m) => m[1]);
  assert.ok(reasons.length >= 3, `${reasons.length} reasons`);
  const missing = reasons.filter((r) => !areas.moderation.en[`reason-${r}`] || !areas.moderation.ja[`reason-${r}`]);
  assert.deepEqual(missing, [], 'reasons without words');
});

test('every refusal the server names by code has its words in both languages, and the catalogue has no code the server never sends', () => {
  const server = join(src, '..', '..', 'crates', 'tsubame-server', 'src');
  const sources = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory()
    ? sources(join(dir, entry.name)) : entry.name.endsWith('.rs') ? [readFileSync(join(dir, entry.name), 'utf8')] : []));
  const codes = new Set(sources(server).flatMap((text) => [...text.matchAll(/\.code\("([a-z.-]+)"\)/g)].map((m) => m[1])));
  // A server fault is named `internal` by the error's answer itself.
  codes.add('internal');
  assert.ok(codes.size >= 80, `${codes.size} codes`);
  const catalogue = new Set(Object.keys(areas.errors.en));
  assert.deepEqual([...codes].filter((c) => !catalogue.has(c) || !areas.errors.ja[c]).sort(), [], 'codes without words');
  assert.deepEqual([...catalogue].filter((c) => !codes.has(c)).sort(), [], 'words for codes the server never sends');
});
