// Browser tests of how the pieces are drawn: the bundled font, the rules pages' diagrams, Tori's
// pictures and the Wa and Tenjiku move marks, each checked against the move generator.
// Each file runs against a server and a browser of its own (support.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base, useServer, newPage, shot, chooseSwitch,
} from './support.js';

useServer();

test('Every piece is drawn with the bundled font, whatever fonts the machine has', async () => {
  const page = await newPage(1280, 1000);
  await page.goto(`${base}/analysis`);
  await page.waitForSelector('.board sq[data-square]');
  // Tori's pieces are pictures unless kanji are chosen.
  await chooseSwitch(page, '#pieces', 'kanji');
  const variants = await (await fetch(`${base}/api/variants`)).json();
  const glyphs = new Map();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  for (const variant of variants) {
    await page.selectOption('select[name="variant"]', variant.name);
    await page.fill('input[name="sfen"]', variant.start_sfen);
    await page.click('[data-action="load"]');
    await page.waitForFunction((s) => document.querySelector('.board')?.dataset.sfen === s, variant.start_sfen);
    // The board names its position before its pieces are all drawn: wait for them.
    await page.waitForFunction(() => document.querySelectorAll('.board piece').length >= 20);
    await page.evaluate(() => document.fonts.ready);
    // Which font Chromium really drew each piece's kanji with: this machine has IPA Mincho too.
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
    const pieces = [];
    const walk = (node) => {
      if (node.localName === 'piece') pieces.push(...(node.pseudoElements || []).filter((p) => p.pseudoType === 'after'));
      for (const child of node.children || []) walk(child);
    };
    walk(root);
    assert.ok(pieces.length >= 20, `${variant.name}: ${pieces.length} pieces found`);
    for (const pseudo of pieces) {
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId: pseudo.nodeId });
      for (const font of fonts) glyphs.set(font.familyName, (glyphs.get(font.familyName) || 0) + font.glyphCount);
    }
  }
  assert.deepEqual([...glyphs.keys()], ['Noto Serif JP'], `fonts used: ${JSON.stringify([...glyphs])}`);
  const faces = await page.evaluate(() => [...document.fonts].map((f) => [f.family.replace(/"/g, ''), f.status]));
  assert.deepEqual(faces, [['Tsubame Pieces', 'loaded']]);
  const fontPath = await page.evaluate(() => document.querySelector('link[rel="preload"][as="font"]').getAttribute('href'));
  assert.match(fontPath, /^\/assets\/tsubame-pieces-[0-9a-f]{12}\.woff2$/);
  const font = await fetch(`${base}${fontPath}`);
  assert.equal(font.headers.get('content-type'), 'font/woff2');
  assert.ok((await font.arrayBuffer()).byteLength < 100_000);
  await page.close();
});

/** A position with the given pieces only: `placements` maps `file,rankIndex` to an SFEN code. */
function sfenWith(files, ranks, placements) {
  const rows = [];
  for (let rank = 0; rank < ranks; rank++) {
    let row = '';
    let empty = 0;
    for (let file = files; file >= 1; file--) {
      const code = placements.get(`${file},${rank}`);
      if (!code) { empty++; continue; }
      if (empty) row += empty;
      empty = 0;
      row += code;
    }
    rows.push(row + (empty ? empty : ''));
  }
  return `${rows.join('/')} b - 1`;
}

test('Rules pages: every piece\'s diagram marks exactly where the move generator lets it go', async () => {
  const page = await newPage(1366, 900);
  const variants = await (await fetch(`${base}/api/variants`)).json();
  for (const variant of variants) {
    await page.goto(`${base}/rules/${variant.name}`);
    await page.waitForSelector(`.rules [data-piece] .diagram`);
    await page.waitForSelector('.rules .board piece');
    await shot(page, `rules-${variant.name}.png`, { fullPage: variant.name === 'tori' });
    // The start position has no players' column beside it: the text stands next to the board.
    const gap = await page.evaluate(() => document.querySelector('.rules-top > .panel').getBoundingClientRect().left
      - document.querySelector('.rules-top .board-wrap').getBoundingClientRect().right);
    assert.ok(gap >= 0 && gap < 40, `${variant.name}: ${gap}px between the board and the text`);
    const radius = variant.name === 'tenjiku' ? 4 : 3;
    const centreFile = Math.ceil(variant.files / 2);
    const centreRank = Math.floor(variant.ranks / 2);
    const royal = variant.roles.find((r) => r.royal).sfen;
    // Both royals where no move of any piece from the centre can reach.
    const ownRoyal = `${centreFile - 3},${centreRank + 2}`;
    const enemyRoyal = `${centreFile + 3},${centreRank - 2}`;
    let compared = 0;
    for (const role of variant.roles) {
      // Tenjiku's powers (lion moves, burning, range jumps) depend on other pieces: their
      // diagrams are checked by shape in the rules data, not against a lone piece.
      if (role.powers) continue;
      const placements = new Map([[`${centreFile},${centreRank}`, role.sfen], [enemyRoyal, royal.toLowerCase()]]);
      if (!role.royal) placements.set(ownRoyal, royal);
      const sfen = sfenWith(variant.files, variant.ranks, placements);
      const replay = await fetch(`${base}/api/replay`, { method: 'POST',
        body: JSON.stringify({ variant: variant.name, sfen, moves: [] }) });
      assert.equal(replay.status, 200, `${variant.name} ${role.sfen}: ${sfen}`);
      const { legal_moves: legal } = await replay.json();
      const from = `${centreFile}${String.fromCharCode(97 + centreRank)}`;
      const expected = new Set(legal.filter((m) => m.startsWith(from)).map((m) => {
        const target = m.slice(from.length).replace(/\+$/, '');
        const file = Number(target.match(/^\d+/)[0]);
        const rank = target.charCodeAt(target.length - 1) - 97;
        return `${file - centreFile},${centreRank - rank}`;
      }).filter((key) => key.split(',').every((n) => Math.abs(Number(n)) <= radius)));
      const drawn = new Set(await page.$$eval(`.rules [data-piece="${role.sfen}"] .diagram .cell[data-marks]`,
        (cells) => cells.map((c) => `${c.dataset.left},${c.dataset.forward}`)));
      assert.deepEqual([...drawn].sort(), [...expected].sort(), `${variant.name} ${role.name} (${role.sfen})`);
      compared++;
    }
    assert.ok(compared >= Math.min(10, variant.roles.length), `${variant.name}: ${compared} pieces compared`);
  }
  await page.close();
});

/** Where a lone piece in the middle of an empty board may go, by way: for each direction
 * (left, forward) with no common factor, the squares along it it reaches (from the move
 * generator); a knight's leap is its own way's first square. */
async function reachFromCentre(variant, code) {
  const centreFile = Math.ceil(variant.files / 2);
  const centreRank = Math.floor(variant.ranks / 2);
  const royal = variant.roles.find((r) => r.royal).sfen;
  const placements = new Map([[`${centreFile},${centreRank}`, code],
    [`${centreFile + 3},${centreRank - 2}`, royal.toLowerCase()]]);
  if (code !== royal) placements.set(`${centreFile - 3},${centreRank + 2}`, royal);
  const replay = await fetch(`${base}/api/replay`, { method: 'POST',
    body: JSON.stringify({ variant: variant.name, sfen: sfenWith(variant.files, variant.ranks, placements), moves: [] }) });
  assert.equal(replay.status, 200, `${variant.name} ${code}`);
  const { legal_moves: legal } = await replay.json();
  const from = `${centreFile}${String.fromCharCode(97 + centreRank)}`;
  const gcd = (a, b) => (b === 0 ? Math.abs(a) : gcd(b, a % b));
  const reach = new Map();
  for (const move of legal.filter((m) => m.startsWith(from) && !m.includes(','))) {
    const target = move.slice(from.length).replace(/\+$/, '');
    const left = Number(target.match(/^\d+/)[0]) - centreFile;
    const forward = centreRank - (target.charCodeAt(target.length - 1) - 97);
    const distance = gcd(left, forward);
    const key = `${left / distance},${forward / distance}`;
    reach.set(key, [...new Set([...(reach.get(key) || []), distance])].sort((a, b) => a - b));
  }
  return reach;
}

test('Tori\'s picture pieces: each bird\'s head, wings, tail and feet point exactly where the move generator lets it go; sides and promotion told apart', async () => {
  const page = await newPage(1366, 900);
  await page.goto(`${base}/rules/tori`);
  await page.waitForSelector('.rules [data-piece] .rule-piece piece');
  // Pictures are the default for a new visitor.
  assert.equal(await page.evaluate(() => document.documentElement.dataset.pieces), 'pictures');
  assert.equal(await page.inputValue('#pieces'), 'pictures');
  const tori = (await (await fetch(`${base}/api/variants`)).json()).find((v) => v.name === 'tori');
  assert.equal(tori.roles.length, 11, 'every bird, the owl and shrike and both promoted ones included');
  const kinds = { '1': 'step', '1,2': 'second', '1,2,3': 'slide', '2': 'jump' };
  const luminance = [];
  for (const role of tori.roles) {
    // The picture the page draws for each side's piece, read back from the page's own style.
    const pictures = await page.evaluate((code) => {
      const face = document.querySelector(`.rules [data-piece="${code}"] .rule-piece piece`);
      const gote = face.cloneNode();
      gote.classList.replace('sente', 'gote');
      face.parentElement.append(gote);
      const read = (node) => decodeURIComponent(getComputedStyle(node, '::after').backgroundImage.replace(/^url\("data:image\/svg\+xml,|"\)$/g, ''));
      const result = { sente: read(face), gote: read(gote) };
      gote.remove();
      return result;
    }, role.sfen);
    const measured = {};
    for (const color of ['sente', 'gote']) {
      assert.match(pictures[color], /^<svg/, `${role.name} (${color}) is a picture`);
      measured[color] = await page.evaluate((text) => {
        const holder = document.createElement('div');
        holder.innerHTML = text;
        document.body.append(holder);
        const svg = holder.querySelector('svg');
        svg.setAttribute('width', '300');
        const [cx, cy] = svg.dataset.centre.split(' ').map(Number);
        const farthest = (shapes) => {
          let best = { r: -1 };
          for (const shape of shapes) {
            const length = shape.getTotalLength();
            for (let i = 0; i <= 600; i++) {
              const p = shape.getPointAtLength(length * i / 600);
              const r = Math.hypot(p.x - cx, p.y - cy);
              if (r > best.r) best = { r, x: p.x - cx, y: p.y - cy };
            }
          }
          return best;
        };
        const reaches = [...svg.querySelectorAll('.reach')].map((group) => {
          const tip = farthest(group.querySelectorAll('path'));
          return { kind: group.dataset.reach, r: tip.r, angle: Math.atan2(-tip.y, tip.x) * 180 / Math.PI };
        });
        // Everything else stays within the body: what reaches out is a move.
        const rest = [...svg.querySelectorAll('path, circle, ellipse')].filter((s) => !s.closest('.reach') && !s.classList.contains('seal'));
        const body = Math.max(...rest.map((s) => {
          const b = s.getBBox();
          return Math.max(...[[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
            .map(([x, y]) => Math.hypot(x - cx, y - cy)));
        }));
        const fill = getComputedStyle(svg.querySelector('.body')).fill.match(/\d+/g).map(Number);
        const seal = Boolean(svg.querySelector('.seal'));
        holder.remove();
        return { reaches, body, fill, seal };
      }, pictures[color]);
    }
    const { reaches, body } = measured.sente;
    // Read as a player reads it: each part's direction and kind.
    const drawn = new Map();
    for (const part of reaches) {
      const compass = Math.round(part.angle / 45) * 45;
      assert.ok(Math.abs(part.angle - compass) < 1.5, `${role.name}: a part points at ${part.angle.toFixed(1)}°, along no line`);
      const radians = compass * Math.PI / 180;
      // Screen right is sente's right: "left" is the other way.
      const key = `${-Math.round(Math.cos(radians))},${Math.round(Math.sin(radians))}`;
      assert.ok(!drawn.has(key), `${role.name}: two parts point along ${key}`);
      drawn.set(key, part.kind);
      const [least, most] = { step: [30, 38], second: [40, 47], jump: [40, 47], slide: [43, 50] }[part.kind];
      assert.ok(part.r >= least && part.r <= most, `${role.name} ${key} ${part.kind}: reaches ${part.r.toFixed(1)}`);
      assert.ok(part.r > body + 4, `${role.name} ${key}: the part stands out of the body (${part.r.toFixed(1)} > ${body.toFixed(1)})`);
    }
    const expected = new Map([...await reachFromCentre(tori, role.sfen)]
      .map(([key, distances]) => [key, kinds[distances.filter((d) => d <= 3).join(',')]]));
    assert.deepEqual(Object.fromEntries([...drawn].sort()), Object.fromEntries([...expected].sort()), `${role.name} (${role.sfen}): ${role.betza}`);
    // Sente's birds dark, gote's light; a promoted bird sealed in red.
    const lum = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    luminance.push([lum(measured.sente.fill), lum(measured.gote.fill)]);
    assert.ok(lum(measured.sente.fill) < 0.3 && lum(measured.gote.fill) > 0.85, `${role.name}: sente ${measured.sente.fill}, gote ${measured.gote.fill}`);
    assert.equal(measured.sente.seal, role.sfen.startsWith('+'), `${role.name}: sealed as promoted`);
    assert.equal(measured.gote.seal, role.sfen.startsWith('+'), `${role.name}: sealed as promoted`);
  }
  assert.equal(luminance.length, 11);
  await shot(page, 'rules-tori-pictures.png', { fullPage: true });

  // On the board: pictures on both sides, gote's turned round; kanji and Latin are the same
  // switch's other choices, remembered.
  for (const [width, height, name] of [[1366, 850, 'laptop'], [390, 844, 'phone']]) {
    const board = await newPage(width, height);
    await board.goto(`${base}/analysis`);
    await board.waitForSelector('.board piece.gote');
    const face = (selector) => board.evaluate((s) => {
      const node = document.querySelector(s);
      const after = getComputedStyle(node, '::after');
      return { image: after.backgroundImage.slice(0, 30), content: after.content, transform: after.transform };
    }, selector);
    assert.match((await face('.board piece.sente')).image, /^url\("data:image\/svg\+xml/);
    const gote = await face('.board piece.gote');
    assert.match(gote.image, /^url\("data:image\/svg\+xml/);
    assert.equal(gote.transform, 'matrix(-1, 0, 0, -1, 0, 0)');
    await shot(board, `tori-pictures-${name}.png`);
    await chooseSwitch(board, '#pieces', 'kanji');
    assert.equal((await face('.board [data-square="4g"] piece, .board piece.sente')).image, 'none');
    assert.match((await face('.board piece.sente')).content, /^"[\u3400-\u9fff]/);
    await board.reload();
    await board.waitForSelector('.board piece.gote');
    assert.equal(await board.inputValue('#pieces'), 'kanji');
    assert.match((await face('.board piece.sente')).content, /^"[\u3400-\u9fff]/);
    await board.close();
  }
  await page.close();
});

test('Wa and Tenjiku move marks: every dot, ring and line on a piece is where the move generator lets it go', async () => {
  const page = await newPage(1366, 900);
  const variants = (await (await fetch(`${base}/api/variants`)).json()).filter((v) => v.name !== 'tori');
  for (const variant of variants) {
    await page.goto(`${base}/rules/${variant.name}`);
    await page.waitForSelector('.rules [data-piece] .rule-piece piece');
    let compared = 0;
    for (const role of variant.roles) {
      const svg = await page.evaluate((code) => {
        const face = document.querySelector(`.rules [data-piece="${code}"] .rule-piece piece`);
        const layers = getComputedStyle(face, '::before').backgroundImage;
        const marks = layers.match(/^url\("data:image\/svg\+xml,([^"]*)"\)/);
        return marks ? decodeURIComponent(marks[1]) : null;
      }, role.sfen);
      assert.ok(svg, `${variant.name} ${role.name} carries marks`);
      // Tenjiku's powers depend on other pieces: they are marked in red and spelled out on the
      // piece card; the ordinary moves are compared here.
      if (role.powers) {
        assert.match(svg, /class="[^"]*power/, `${role.name}: its power is marked`);
        continue;
      }
      const marks = await page.evaluate((text) => {
        const holder = document.createElement('div');
        holder.innerHTML = text;
        document.body.append(holder);
        const node = holder.querySelector('svg');
        const [cx, cy] = node.dataset.centre.split(' ').map(Number);
        const found = [...node.querySelectorAll('.mark')].map((mark) => {
          let x; let y;
          if (mark.localName === 'circle') [x, y] = [mark.cx.baseVal.value - cx, mark.cy.baseVal.value - cy];
          else {
            const end = mark.getPointAtLength(mark.getTotalLength());
            [x, y] = [end.x - cx, end.y - cy];
          }
          return { kind: mark.classList[1], r: Math.hypot(x, y), angle: Math.atan2(-y, x) * 180 / Math.PI };
        });
        holder.remove();
        return found;
      }, svg);
      // Marks read back into ways and squares: by direction (the eight lines and the knight's
      // eight), then from the rim inwards, 7 units a square; a ring is a square jumped to.
      const ways = new Map();
      for (const mark of marks) {
        const radians = mark.angle * Math.PI / 180;
        const candidates = [[1, 0], [1, 1], [0, 1], [2, 1], [1, 2]].flatMap(([a, b]) =>
          [[a, b], [-a, b], [a, -b], [-a, -b], [b, a], [-b, a], [b, -a], [-b, -a]]);
        const [dx, dy] = candidates.find(([a, b]) => Math.abs(Math.atan2(b, a) - radians) < 0.03
          || Math.abs(Math.abs(Math.atan2(b, a) - radians) - 2 * Math.PI) < 0.03) || [];
        assert.ok(dx !== undefined, `${role.name}: a mark at ${mark.angle.toFixed(1)}° is on no way`);
        const key = `${-dx},${dy}`;
        ways.set(key, [...(ways.get(key) || []), mark]);
      }
      const drawn = new Map();
      for (const [key, list] of ways) {
        if (list.some((m) => m.kind === 'line')) {
          assert.equal(list.length, 1, `${role.name} ${key}: a line alone`);
          drawn.set(key, 'slides');
          continue;
        }
        const positions = list.map((m) => ({ ...m, from: Math.round((40 - m.r) / 7) }));
        for (const m of positions) assert.ok(Math.abs(40 - m.r - m.from * 7) < 0.6, `${role.name} ${key}: a mark off its square (${m.r})`);
        const innermost = positions.reduce((a, b) => (a.from > b.from ? a : b));
        const last = innermost.from + 1 + (innermost.kind === 'ring' ? 1 : 0);
        drawn.set(key, positions.map((m) => last - m.from).sort((a, b) => a - b).join(','));
      }
      const reach = await reachFromCentre(variant, role.sfen);
      const expected = new Map([...reach].map(([key, distances]) => [key, distances.length >= 4 ? 'slides' : distances.join(',')]));
      assert.deepEqual(Object.fromEntries([...drawn].sort()), Object.fromEntries([...expected].sort()), `${variant.name} ${role.name} (${role.sfen}): ${role.betza}`);
      compared++;
    }
    assert.ok(compared >= Math.min(30, variant.roles.length - 21), `${variant.name}: ${compared} pieces compared`);
    await shot(page, `rules-${variant.name}-marks.png`);
  }
  await page.close();
  // On a phone the Tenjiku board shows the marks at its fitted size and one zoom step in.
  const phone = await newPage(390, 844);
  await phone.goto(`${base}/analysis`);
  await phone.waitForSelector('.board sq[data-square]');
  await phone.selectOption('select[name="variant"]', 'tenjiku');
  await phone.click('[data-action="load"]');
  await phone.waitForSelector('.board.pieces-tenjiku piece');
  assert.match(await phone.evaluate(() => getComputedStyle(document.querySelector('.board piece'), '::before').backgroundImage), /^url\("data:image\/svg\+xml/);
  await shot(phone, 'tenjiku-marks-phone.png');
  await phone.locator('input.zoom').fill('36');
  await phone.waitForFunction(() => document.querySelector('.board [data-square="1a"]').getBoundingClientRect().width >= 35);
  await shot(phone, 'tenjiku-marks-phone-zoomed.png');
  await phone.close();
});
