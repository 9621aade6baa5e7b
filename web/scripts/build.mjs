// Builds the web UI into dist/: the TypeScript bundled by esbuild, the engine's Web Worker and
// its WebAssembly module, the network files the module leaves out (fetched only by a page
// that analyses their game), the style sheet and the piece font, each under a name that carries the first 12 hex digits of its content's SHA-256, and
// index.html (never cached) naming them. A browser keeps an asset for a year (the server says
// immutable) and still sees every upgrade at once: changed content is a new name.

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const web = resolve(dirname(new URL(import.meta.url).pathname), '..');
const src = join(web, 'src');
const dist = join(web, 'dist');
const assets = join(dist, 'assets');

/** `name-<hash>.ext` for the content. */
function hashedName(name, content) {
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}-${hash}${name.slice(dot)}`;
}

/** Writes `content` into dist/assets under its hashed name; that name. */
function emit(name, content) {
  const hashed = hashedName(name, content);
  writeFileSync(join(assets, hashed), content);
  return hashed;
}

// The engine compiled to WebAssembly by scripts/build-web-engine (which sets TSUBAME_ENGINE_WASM).
// Without a new build (no WebAssembly toolchain here), the committed one is kept.
const builtEngine = process.env.TSUBAME_ENGINE_WASM;
const keptEngine = existsSync(assets) && readdirSync(assets).find((name) => /^tsubame-engine-[0-9a-f]{12}\.wasm$/.test(name));
let engineWasm;
if (builtEngine) engineWasm = readFileSync(builtEngine);
else if (keptEngine) engineWasm = readFileSync(join(assets, keptEngine));
else throw new Error('no engine: run scripts/build-web-engine, which builds it and then the UI');

rmSync(dist, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const wasm = emit('tsubame-engine.wasm', engineWasm);
// The networks crates/tsubame-engine leaves out of its WebAssembly build (see its
// nnue::BuiltInNetwork), from the same files the native engine carries.
const networks = Object.fromEntries(['wa', 'wa-nodrops'].map((name) => [name,
  `/assets/${emit(`${name}.nnue`, readFileSync(join(web, '..', 'crates', 'tsubame-engine', 'nets', `${name}.nnue`)))}`]));
const workerBundle = await build({
  entryPoints: [join(src, 'engine-worker.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  write: false,
  outfile: 'engine-worker.js',
  logLevel: 'warning',
});
const worker = emit('engine-worker.js', workerBundle.outputFiles[0].contents);
const bundled = await build({
  entryPoints: [join(src, 'main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  write: false,
  outfile: 'app.js',
  logLevel: 'warning',
  define: {
    ENGINE_WORKER_URL: JSON.stringify(`/assets/${worker}`),
    ENGINE_WASM_URL: JSON.stringify(`/assets/${wasm}`),
    ENGINE_NETWORK_URLS: JSON.stringify(networks),
  },
});
const script = emit('app.js', bundled.outputFiles[0].contents);
const font = emit('tsubame-pieces.woff2', readFileSync(join(src, 'fonts', 'tsubame-pieces.woff2')));
const style = emit('style.css', readFileSync(join(src, 'style.css'), 'utf8')
  .replaceAll('/assets/tsubame-pieces.woff2', `/assets/${font}`));
// The font's licence, linked by name from the style sheet's comment: never cached for long.
copyFileSync(join(src, 'fonts', 'OFL.txt'), join(assets, 'tsubame-pieces-OFL.txt'));
for (const file of ['favicon.svg', 'favicon-turn.svg']) copyFileSync(join(src, file), join(dist, file));

const page = readFileSync(join(src, 'index.html'), 'utf8')
  .replace('/assets/style.css', `/assets/${style}`)
  .replace('/assets/tsubame-pieces.woff2', `/assets/${font}`)
  .replace('/assets/app.js', `/assets/${script}`);
for (const name of [script, style, font]) {
  if (!page.includes(`/assets/${name}`)) throw new Error(`index.html does not name ${name}`);
}
writeFileSync(join(dist, 'index.html'), page);
console.log(`  dist/assets/${script}  ${(bundled.outputFiles[0].contents.length / 1024).toFixed(1)}kb`);
console.log(`  dist/assets/${wasm}  ${(engineWasm.length / 1024).toFixed(1)}kb`);
