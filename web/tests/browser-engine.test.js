// The engine in the browser: our engine compiled to WebAssembly, run by the web UI in Web
// Workers, against a real `tsubame serve` that leaves its engine's work to workers and has none:
// a search asked of it waits until it gives up. TSUBAME_BIN names the binary, whose
// `analyse --json` answers the same questions natively.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { bin, shots, useServer, watchPolicy } from './support.js';

const served = useServer({ serverArgs: ['--engine-workers'] });

/** A page that fails the test on a script error or anything the page's policy refuses, and
 * records every engine request that reaches the server. */
async function enginePage(width = 1366, height = 850) {
  const page = await served.browser.newPage({ viewport: { width, height } });
  const problems = [];
  const serverSearches = [];
  const networkFetches = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  watchPolicy(page);
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (/\/api\/(analyse|mate)$/.test(path)) serverSearches.push(request.url());
    if (path.endsWith('.nnue')) networkFetches.push(path);
  });
  return { page, problems, serverSearches, networkFetches };
}

/** The native engine's answer to a question, from the same code (`tsubame analyse --json`). */
function nativeAnswer(question) {
  const lines = execFileSync(bin, ['analyse', '--json', JSON.stringify(question)], { encoding: 'utf8' }).trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/** The URLs of the engine's worker script and module and of the network the module leaves
 * out, as the page's bundle names them. */
async function engineAssets() {
  const index = await (await fetch(`${served.base}/`)).text();
  const app = index.match(/\/assets\/app-[0-9a-f]{12}\.js/)[0];
  const bundle = await (await fetch(`${served.base}${app}`)).text();
  return {
    worker: bundle.match(/\/assets\/engine-worker-[0-9a-f]{12}\.js/)[0],
    wasm: bundle.match(/\/assets\/tsubame-engine-[0-9a-f]{12}\.wasm/)[0],
    networks: {
      wa: bundle.match(/\/assets\/wa-[0-9a-f]{12}\.nnue/)[0],
      'wa-nodrops': bundle.match(/\/assets\/wa-nodrops-[0-9a-f]{12}\.nnue/)[0],
    },
  };
}

const POSITIONS = [
  // Tori after 1. Swx3c Fax3c: recaptures and drops in the air.
  { game: 'tori', question: { variant: 'tori', moves: ['3d3c', '4b3c'] }, depth: 9 },
  // Wa with drops, a few moves in.
  { game: 'wa', question: { variant: 'wa', moves: ['4i5h', '8c7d', '10i10h'] }, depth: 6 },
  // Wa without drops.
  { game: 'wa', question: { variant: 'wa', options: 'drops=off', moves: ['10i10h'] }, depth: 6 },
  // Tenjiku after a first move: a board of 16x16 with fire demons and lions.
  { game: 'tenjiku', question: { variant: 'tenjiku', moves: ['4p5o'] }, depth: 3 },
];

test('The engine in a Web Worker gives the native engine\'s move, score and line at a fixed depth, in every game', async () => {
  const { page, problems, serverSearches } = await enginePage();
  await page.goto(`${served.base}/`);
  const assets = await engineAssets();
  for (const { question, depth } of POSITIONS) {
    const asked = { type: 'analyse', ...question, depth, lines: 2 };
    const inBrowser = await page.evaluate(async ({ assets, asked }) => {
      const module = await WebAssembly.compile(await (await fetch(assets.wasm)).arrayBuffer());
      const worker = new Worker(assets.worker);
      const iterations = [];
      const networksGiven = [];
      const answer = await new Promise((done, fail) => {
        worker.onerror = (e) => fail(new Error(e.message));
        worker.onmessage = async (event) => {
          const message = event.data;
          if (message.ready || message.provided) worker.postMessage({ question: JSON.stringify(asked) });
          else if (message.failed || message.provided === false) fail(new Error(message.failed ?? message.answer));
          else if (message.iteration) iterations.push(JSON.parse(message.iteration).depth);
          else if (message.ok) done(JSON.parse(message.answer));
          else if (JSON.parse(message.answer).network && networksGiven.length === 0) {
            // The module leaves this network out: given the file, it takes the question again.
            const name = JSON.parse(message.answer).network;
            networksGiven.push(name);
            worker.postMessage({ network: name, bytes: await (await fetch(assets.networks[name])).arrayBuffer() });
          } else fail(new Error(message.answer));
        };
        worker.postMessage({ module });
      });
      worker.terminate();
      return { answer, iterations, networksGiven };
    }, { assets, asked });
    const native = nativeAnswer(asked);
    const { answer } = inBrowser;
    // Only Wa plays networks the module leaves out, one for each rule set.
    const needed = question.variant !== 'wa' ? [] : question.options === 'drops=off' ? ['wa-nodrops'] : ['wa'];
    assert.deepEqual(inBrowser.networksGiven, needed, JSON.stringify(question));
    assert.equal(answer.depth, depth, JSON.stringify(question));
    assert.deepEqual(inBrowser.iterations, Array.from({ length: depth }, (_, i) => i + 1));
    assert.equal(answer.best, native.best, JSON.stringify(question));
    assert.equal(answer.score, native.score, JSON.stringify(question));
    assert.deepEqual(answer.pv, native.pv, JSON.stringify(question));
    assert.deepEqual(answer.lines.map((l) => l.move), native.lines.map((l) => l.move));
    assert.equal(answer.nodes, native.nodes, `${JSON.stringify(question)}: the same search, node for node`);
    assert.ok(answer.lines[0].hodges.length > 0);
  }
  // A question the rules refuse is answered with the server's refusal and status.
  const refused = await page.evaluate(async (assets) => {
    const module = await WebAssembly.compile(await (await fetch(assets.wasm)).arrayBuffer());
    const worker = new Worker(assets.worker);
    return new Promise((done) => {
      worker.onmessage = (event) => {
        if (event.data.ready) worker.postMessage({ question: JSON.stringify({ type: 'analyse', variant: 'tori', moves: ['9z9y'] }) });
        else if (event.data.answer) done({ ok: event.data.ok, answer: JSON.parse(event.data.answer) });
      };
      worker.postMessage({ module });
    });
  }, assets);
  assert.equal(refused.ok, false);
  assert.equal(refused.answer.status, 422);
  assert.match(refused.answer.error, /move 1 \(9z9y\)/);
  // A network file that is not one, one the module carries itself and Wa's other network
  // (the same form and size) are refused with the reason; the engine still answers afterwards.
  const provisions = await page.evaluate(async (assets) => {
    const module = await WebAssembly.compile(await (await fetch(assets.wasm)).arrayBuffer());
    const worker = new Worker(assets.worker);
    const next = () => new Promise((done) => { worker.onmessage = (event) => done(event.data); });
    let reply = next();
    worker.postMessage({ module });
    await reply;
    const replies = [];
    const withoutDrops = await (await fetch(assets.networks['wa-nodrops'])).arrayBuffer();
    for (const [network, bytes] of [['wa-nodrops', new Uint8Array(100).buffer], ['tori', new ArrayBuffer(0)], ['chess', new ArrayBuffer(0)], ['wa', withoutDrops]]) {
      reply = next();
      worker.postMessage({ network, bytes });
      replies.push(await reply);
    }
    reply = next();
    worker.postMessage({ question: JSON.stringify({ type: 'analyse', variant: 'wa', options: 'drops=off', depth: 1 }) });
    replies.push(await reply);
    worker.terminate();
    return replies;
  }, assets);
  assert.deepEqual(provisions.slice(0, 4).map((r) => r.provided), [false, false, false, false]);
  const reasons = provisions.slice(0, 4).map((r) => JSON.parse(r.answer).error);
  assert.match(reasons[0], /wa-nodrops network: not a Tsubame network file/);
  assert.match(reasons[1], /carries the tori network itself/);
  assert.match(reasons[2], /no built-in network is named "chess"/);
  assert.match(reasons[3], /given as the wa network are another network/);
  assert.equal(provisions[4].ok, false);
  assert.equal(JSON.parse(provisions[4].answer).network, 'wa-nodrops');
  assert.deepEqual(serverSearches, []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('The analysis board analyses Tori, Wa and Tenjiku in the browser, deeper and deeper, with no engine on the server', async () => {
  const boards = [
    ['tori', '', 7, 8, 1366, 850],
    ['wa', '', 11, 6, 390, 844],
    ['wa', 'drops=off', 11, 6, 1366, 850],
    ['tenjiku', '', 16, 2, 1366, 850],
  ];
  for (const [game, options, sfenRows, depth, width, height] of boards) {
    const { page, problems, serverSearches, networkFetches } = await enginePage(width, height);
    await page.goto(`${served.base}/analysis`);
    await page.waitForSelector('[data-action="load"]');
    await page.selectOption('select[name="variant"]', game);
    await page.fill('[name="options"]', options);
    await page.click('[data-action="load"]');
    await page.waitForFunction((rows) => document.querySelector('.board')?.dataset.sfen?.split(' ')[0].split('/').length === rows, sfenRows);
    assert.equal(await page.inputValue('[data-engine-place]'), 'browser');
    await page.selectOption('[data-lines]', '2');
    await page.check('[data-engine-toggle]');
    // Deeper and deeper without asking again: the depth shown climbs past the one waited for.
    await page.waitForFunction((d) => Number(document.querySelector('[data-engine-status]')?.dataset.depth) >= d, depth, { timeout: 60000 });
    assert.equal(await page.locator('[data-line]').count(), 2);
    assert.match(await page.textContent('[data-engine-status]'), /Depth \d+ · \d+ kN\/s/);
    assert.notEqual(await page.locator('[data-eval-bar]').getAttribute('data-sente'), null);
    await page.locator('[data-analysis]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `engine-in-browser-${game}${options ? '-' + options.replace('=', '-') : ''}.png`) });
    // A move played: the search of the old position ends and the new one's begins.
    await page.click('[data-line="1"]');
    await page.waitForSelector('[data-tree-move]');
    await page.waitForFunction(() => Number(document.querySelector('[data-engine-status]')?.dataset.depth) >= 1, null, { timeout: 60000 });
    assert.deepEqual(serverSearches, [], `${game}: nothing asked of the server's engine`);
    // Wa's networks, left out of the module, are fetched only by a page that plays Wa, only
    // the one for its rules, and once, however many workers search.
    const fetched = game !== 'wa' ? [] : options === 'drops=off' ? ['/assets/wa-nodrops.nnue'] : ['/assets/wa.nnue'];
    assert.deepEqual(networkFetches.map((path) => path.replace(/-[0-9a-f]{12}/, '')), fetched, `${game} ${options}`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('Without Wa\'s network (its fetch failing) the server analyses the position, and the next one fetches it again', async () => {
  const { page, problems, serverSearches, networkFetches } = await enginePage();
  await page.route('**/*.nnue', (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  await page.goto(`${served.base}/analysis`);
  await page.waitForSelector('[data-action="load"]');
  await page.selectOption('select[name="variant"]', 'wa');
  await page.fill('[name="options"]', 'drops=off');
  await page.click('[data-action="load"]');
  await page.waitForFunction(() => document.querySelector('.board')?.dataset.sfen?.split(' ')[0].split('/').length === 11);
  await page.check('[data-engine-toggle]');
  // The server is asked instead (its engine, which has no worker here, keeps it waiting).
  await page.waitForSelector('[data-engine-status]:has-text("Thinking to depth")', { timeout: 30000 });
  assert.ok(serverSearches.length > 0);
  assert.equal(networkFetches.length, 1);
  await page.unroute('**/*.nnue');
  // The next search fetches the network again, and this time the browser analyses.
  await page.uncheck('[data-engine-toggle]');
  await page.check('[data-engine-toggle]');
  await page.waitForFunction(() => Number(document.querySelector('[data-engine-status]')?.dataset.depth) >= 4, null, { timeout: 60000 });
  assert.match(await page.textContent('[data-engine-status]'), /Depth \d+ · \d+ kN\/s/);
  assert.equal(networkFetches.length, 2);
  assert.deepEqual(problems, []);
  await page.close();
});

test('The analysis board finds a mate by checks in the browser, and the server is asked only when the player chooses it', async () => {
  const { page, problems, serverSearches } = await enginePage();
  await page.goto(`${served.base}/analysis`);
  await page.waitForSelector('[data-action="load"]');
  const sfen = 'F6/1c+S1f1l/ks1s1ps/P1S4/3S2S/2C1S2/4K1R b CPR4Scpl4s 73';
  await page.fill('input[name="sfen"]', sfen);
  await page.click('[data-action="load"]');
  await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, sfen);
  await page.check('[data-engine-toggle]');
  await page.waitForSelector('[data-mate-line]', { timeout: 30000 });
  assert.equal(await page.getAttribute('[data-mate-line]', 'data-mate-line'), '3');
  assert.deepEqual(serverSearches, []);
  // The server chosen (and kept for the next page): it is asked, and its engine, which has no
  // worker here, keeps the page waiting.
  await page.selectOption('[data-engine-place]', 'server');
  await page.waitForSelector('[data-engine-status]:has-text("Thinking to depth 4")');
  await page.waitForFunction(() => !document.querySelector('[data-mate-line]'));
  assert.ok(serverSearches.length > 0);
  await page.reload();
  await page.waitForSelector('[data-engine-place]');
  assert.equal(await page.inputValue('[data-engine-place]'), 'server');
  await page.selectOption('[data-engine-place]', 'browser');
  assert.deepEqual(problems, []);
  await page.close();
});
