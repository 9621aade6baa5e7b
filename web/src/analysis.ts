// The analysis board: set up a position, ask the engine.

import { page, store } from './state';
import { api, errorText, isAborted } from './api';
import { Board } from './board';
import { el } from './dom';
import { h, patch } from './view';
import type { VNode } from './view';
import { senteCentipawns } from './evalgraph';
import { checkMark } from './gameparts';
import { positionForm } from './import';
import { app } from './prefs';
import { t, tn } from './i18n';
import { analyse, browserCanRun, chooseEnginePlace, enginePlace, findMate, networkMissing } from './engine';
import type { PositionQuestion } from './engine';
import type { EngineReply, MateReply, MateRequest, PositionRequest, ReplayedGame } from './api-types';

export const ANALYSIS_DEPTHS = [4, 6, 8, 10, 12, 14, 16, 18, 20];

/** An evaluation bar: sente's share from the bottom, white for sente as on the play sites. */
export function evalBarNode() {
  const fill = el('div', { class: 'eval-fill' });
  const label = el('div', { class: 'eval-label', 'data-eval': '' });
  const root = el('div', { class: 'eval-bar', 'data-eval-bar': '', title: t('analysis.eval-title') }, fill, label);
  return {
    root,
    set(score: string | null, senteToMove?: boolean) {
      if (score === null) {
        root.classList.add('idle');
        label.textContent = '';
        fill.style.height = '50%';
        return;
      }
      root.classList.remove('idle');
      // A score comes with its side to move.
      const cp = senteCentipawns(score, senteToMove!);
      const [kind, value] = score.split(' ');
      const mate = kind === 'mate';
      // The share grows quickly near equality and flattens out, as a winning chance does.
      const share = mate ? (cp > 0 ? 100 : 0) : 50 + 50 * (2 / (1 + Math.exp(-0.0035 * cp)) - 1);
      fill.style.height = `${share}%`;
      const moves = Math.ceil(Math.abs(Number(value)) / 2);
      label.textContent = mate ? `${cp > 0 ? '+' : '-'}M${moves}` : `${cp > 0 ? '+' : ''}${(cp / 100).toFixed(1)}`;
      root.dataset.sente = String(cp);
    },
  };
}

/** A score as sente sees it, in pawns or moves to mate. */
export function scoreText(score: string, senteToMove: boolean): string {
  const [kind, value] = score.split(' ');
  const own = Number(value);
  const sente = senteToMove ? own : -own;
  if (kind === 'mate') return `${sente > 0 ? '+' : '-'}M${Math.ceil(Math.abs(sente) / 2)}`;
  return `${sente > 0 ? '+' : ''}${(sente / 100).toFixed(2)}`;
}

/** A position of the analysis board's tree: the move that reached it (none at the root) with its
 * text and whether it gives check, and the lines that go on from it, the main one first.
 * `fresh`: a move just made, taken back out when its position cannot be had. */
interface TreeNode {
  usi: string | null;
  text: string;
  check: boolean;
  children: TreeNode[];
  parent: TreeNode | null;
  fresh: boolean;
}

/** The analysis board: moves played on it grow a tree of lines (a move that differs from the
 * one played before starts a variation), and the engine, when on, analyses each position as it
 * is reached, deeper and deeper, showing its best lines and the evaluation bar. */
export function analysisPage() {
  let request: PositionQuestion | null = null;
  let record: ReplayedGame | null = null;
  const tree: TreeNode = { usi: null, text: '', check: false, children: [], parent: null, fresh: false };
  let current = tree;
  let generation = 0;
  const board = new Board({ onMove: (usi) => go(usi) });
  const bar = evalBarNode();
  const engineOn = el('input', { type: 'checkbox', 'data-engine-toggle': '' });
  const lineCount = el('select', { 'data-lines': '', 'aria-label': t('analysis.best-lines') },
    [1, 2, 3, 5].map((n) => el('option', { value: n, selected: n === 3 }, tn('analysis.lines', n))));
  // What the engine says about the position shown, as a view patched on each change: its
  // status, the deepest depth it reached, and its best lines with their scores.
  // The mate solver's answer is kept apart: a forced mate by checks, read out in full.
  const engine: {
    status: string;
    depth: number | null;
    lines: { score: string; moves: string; move: string }[];
    mate: { moves: number; text: string; move: string } | null;
  } = { status: '', depth: null, lines: [], mate: null };
  const engineHost = el('div');
  let engineNode: VNode | HTMLElement = engineHost;
  function engineView(): VNode {
    return h('div.engine-out', [
      h('small.help', { attrs: { 'data-engine-status': '', ...(engine.depth === null ? {} : { 'data-depth': engine.depth }) } }, engine.status),
      engine.mate ? h('div.engine-line.mate-line', {
        attrs: { 'data-mate-line': engine.mate.moves, title: t('analysis.mate-title') },
        on: { click: () => go(engine.mate!.move) } }, [
        h('span.line-score', t('analysis.mate', { moves: engine.mate.moves })), ' ',
        h('span.line-moves', engine.mate.text)]) : null,
      h('div.engine-lines', { attrs: { 'data-engine-lines': '' } }, engine.lines.map((line, i) =>
        h('div.engine-line', { attrs: { 'data-line': i + 1, title: t('analysis.line-title') }, on: { click: () => go(line.move) } }, [
          h('span.line-score', { attrs: { 'data-line-score': '' } }, line.score), ' ',
          h('span.line-moves', line.moves)]))),
    ]);
  }
  function showEngine(change: Partial<typeof engine>) {
    Object.assign(engine, change);
    engineNode = patch(engineNode, engineView());
  }
  // Where the engine runs: in this browser (the default where it can) or on the server.
  const placeChoice = browserCanRun() ? el('select', { 'data-engine-place': '', 'aria-label': t('analysis.place-title'), title: t('analysis.place-title') },
    el('option', { value: 'browser', selected: enginePlace() === 'browser' }, t('analysis.place-browser')),
    el('option', { value: 'server', selected: enginePlace() === 'server' }, t('analysis.place-server'))) : null;
  const output = el('div', { class: 'panel', 'data-analysis': '' },
    el('div', { class: 'engine-head' }, el('h2', {}, t('analysis.engine')),
      el('label', { class: 'switch' }, engineOn, t('analysis.analyse')), lineCount, placeChoice),
    engineHost);
  showEngine({});
  const treeBox = el('div', { class: 'move-tree', 'data-move-tree': '' });
  const nav = el('div', { class: 'actions' },
    el('button', { class: 'secondary', 'data-tree': 'start', 'aria-label': t('analysis.first-position'), title: t('analysis.first-position'), onclick: () => jump(tree) }, '|◀'),
    el('button', { class: 'secondary', 'data-tree': 'back', 'aria-label': t('analysis.previous-move'), title: t('analysis.previous-move'), onclick: () => current.parent && jump(current.parent) }, '◀'),
    el('button', { class: 'secondary', 'data-tree': 'forward', 'aria-label': t('analysis.next-move'), title: t('analysis.next-move'), onclick: () => current.children[0] && jump(current.children[0]) }, '▶'),
    el('button', { class: 'secondary', 'data-tree': 'delete', title: t('analysis.delete-title'),
      onclick: () => deleteCurrent() }, t('analysis.delete')));
  const treePanel = el('div', { class: 'panel' }, el('h2', {}, t('analysis.moves')), treeBox, nav);

  function pathOf(node: TreeNode): string[] {
    const moves: string[] = [];
    // A node with a parent was reached by a move.
    for (let n = node; n.parent; n = n.parent) moves.unshift(n.usi!);
    return moves;
  }

  async function go(usi: string) {
    let child = current.children.find((c) => c.usi === usi);
    if (!child) {
      child = { usi, text: usi, check: false, children: [], parent: current, fresh: true };
      current.children.push(child);
    }
    await jump(child);
  }

  /** Shows `node`; when its position cannot be had (the server refused or is gone), the
   * position shown stays, a new move is taken back out of the tree, and the status says why. */
  let jumps = 0;
  async function jump(node: TreeNode) {
    const before = current;
    const mine = ++jumps;
    current = node;
    try {
      await load(mine);
    } catch (e) {
      // A later jump has taken over: what it shows stands.
      if (mine !== jumps) return;
      current = before;
      if (node.fresh) node.parent!.children = node.parent!.children.filter((c) => c !== node);
      // A move made on the board goes back where it came from.
      board.render();
      drawTree();
      showEngine({ status: errorText(e) });
    }
  }

  async function deleteCurrent() {
    if (!current.parent) return;
    const parent = current.parent;
    parent.children = parent.children.filter((c) => c !== current);
    await jump(parent);
  }

  function drawTree() {
    // The main line of each node is its first child; the others are variations, in brackets.
    // Sente's moves carry their number, and so does a variation's first move of gote.
    const moveNode = (node: TreeNode, ply: number, first: boolean) => el('span', {
      class: `tree-move${node === current ? ' current' : ''}`, 'data-tree-move': pathOf(node).join(' '),
      onclick: () => jump(node) },
    `${ply % 2 === 1 ? `${(ply + 1) / 2}. ` : first ? `${ply / 2}… ` : ''}${node.text}`,
    node.check ? checkMark() : null);
    // A node and its main continuation; after each main move, its sibling variations.
    function line(first: TreeNode, ply: number): (HTMLElement | string)[] {
      const parts: (HTMLElement | string)[] = [];
      for (let node = first, depth = ply; node; node = node.children[0], depth += 1) {
        parts.push(moveNode(node, depth, depth === ply), ' ');
        if (node.parent!.children[0] === node) {
          for (const variation of node.parent!.children.slice(1)) {
            parts.push(el('span', { class: 'variation', 'data-variation': '' }, '(', line(variation, depth), ')'), ' ');
          }
        }
      }
      return parts;
    }
    treeBox.replaceChildren(...(tree.children.length ? line(tree.children[0], 1)
      : [el('span', { class: 'help' }, t('analysis.tree-help'))]));
  }

  /** Shows the position of the current node: its replay, the board, the tree and the engine's
   * look; a replay that comes back after a later jump is dropped. */
  async function load(mine = ++jumps) {
    const node = current;
    const moves = pathOf(node);
    const replayed = await api<ReplayedGame>('/api/replay', { ...request, moves });
    if (mine !== jumps) return;
    record = replayed;
    request!.moves = moves;
    node.fresh = false;
    if (current.parent) {
      current.text = record.hodges[record.hodges.length - 1] || current.usi!;
      current.check = record.gives_check[record.gives_check.length - 1];
    }
    board.setState({ variant: record.variant, sfen: record.sfen, legal: record.legal_moves,
      lastMove: record.usi[record.usi.length - 1] || null, interactive: true,
      check: record.checks[record.checks.length - 1] });
    fitBar();
    drawTree();
    think();
  }

  // One search at a time from this page: the search of a position left behind is called off
  // (the server stops it when its request goes away) before the next one is asked for, so the
  // page never holds more than its share of the engine.
  let inFlight: Promise<unknown> = Promise.resolve();
  let calledOff: AbortController | null = null;
  /** `Answer`: what `path` answers (`EngineReply` for `/api/analyse`, `MateReply` for `/api/mate`). */
  function analyseOneAtATime<Answer>(body: PositionRequest | MateRequest, path = '/api/analyse'): Promise<Answer> {
    calledOff?.abort();
    const controller = new AbortController();
    calledOff = controller;
    const run = inFlight.then(() => api<Answer>(path, body, controller.signal));
    inFlight = run.catch(() => {});
    return run;
  }


  /** Asks the mate solver once for the position shown: a mate by checks of up to 15 moves. */
  async function lookForMate(asked: PositionQuestion, mine: number, signal?: AbortSignal) {
    let reply: MateReply | null = null;
    const question = { ...asked, max_moves: 15, movetime_ms: 1500 };
    try {
      reply = signal ? await findMate(question, { signal, place: 'browser' })
        : await analyseOneAtATime<MateReply>(question, '/api/mate');
    } catch {
      return;
    }
    if (mine !== generation || reply.result !== 'mate') return;
    // A mate found has its length.
    showEngine({ mate: { moves: reply.moves!, text: reply.hodges.join(' '), move: reply.pv[0] } });
  }

  /** Shows an answer of the engine, the bar with it. */
  function showReply(reply: EngineReply, senteToMove: boolean, status: string) {
    bar.set(reply.score, senteToMove);
    showEngine({
      lines: reply.lines.map((l) => ({ score: scoreText(l.score, senteToMove), moves: l.hodges.join(' '), move: l.move })),
      status,
      depth: reply.depth,
    });
  }

  /** Analyses the position now shown until another position is shown: in this browser one
   * search, deeper and deeper, each depth shown as it completes; on the server one request
   * per depth. */
  async function think() {
    const mine = ++generation;
    calledOff?.abort();
    showEngine({ lines: [], mate: null });
    bar.set(null);
    if (!engineOn.checked || !record) {
      showEngine({ status: engineOn.checked ? '' : t('analysis.engine-off') });
      return;
    }
    const senteToMove = record.sfen.split(' ')[1] === 'b';
    if (!record.legal_moves?.length) {
      showEngine({ status: t('analysis.no-legal-move') });
      return;
    }
    const asked = { variant: request!.variant, options: request!.options, sfen: request!.sfen, moves: request!.moves };
    const lines = Number(lineCount.value);
    if (enginePlace() === 'browser') {
      const controller = new AbortController();
      calledOff = controller;
      showEngine({ status: t('analysis.starting') });
      let mateAsked = false;
      try {
        await analyse({ ...asked, infinite: true, lines }, { signal: controller.signal, place: 'browser', onIteration: (reply) => {
          if (mine !== generation) return;
          const speed = Math.round(reply.nodes / Math.max(1, reply.time_ms));
          showReply(reply, senteToMove, t('analysis.depth-speed', { depth: reply.depth, speed }));
          // The mate solver's turn comes once the first lines are shown, in a worker of its own.
          if (!mateAsked && reply.depth >= ANALYSIS_DEPTHS[0]) {
            mateAsked = true;
            lookForMate(asked, mine, controller.signal);
          }
        } });
        return;
      } catch (e) {
        if (mine !== generation || isAborted(e)) return;
        // The engine could not start here: the server answers from now on. Without the
        // network it fetches for this game, the server answers this position.
        if (enginePlace() === 'browser' && !networkMissing(e)) {
          showEngine({ status: errorText(e) });
          return;
        }
      }
    }
    for (const depth of ANALYSIS_DEPTHS) {
      showEngine({ status: t('analysis.thinking', { depth }) });
      // A busy engine (other players, or a search of a position left a moment ago that is
      // still stopping) is waited for by `api`, a few times.
      let reply: EngineReply | null = null;
      try {
        reply = await analyseOneAtATime<EngineReply>({ ...asked, depth, movetime_ms: 3000, lines });
      } catch (e) {
        if (mine === generation && !isAborted(e)) showEngine({ status: errorText(e) });
        return;
      }
      if (mine !== generation) return;
      showReply(reply, senteToMove, t('analysis.depth', { depth: reply.depth }));
      // The mate solver's turn comes once the first lines are shown.
      if (depth === ANALYSIS_DEPTHS[0]) {
        await lookForMate(asked, mine);
        if (mine !== generation) return;
      }
      // The time cap ended this search before its depth: deeper would take longer still.
      if (reply.depth < depth) break;
    }
  }

  /** The bar stands beside the board itself, as tall as it. */
  function fitBar() {
    const wrap = board.root.querySelector<HTMLElement>('.board-wrap');
    if (!wrap) return;
    bar.root.style.marginTop = `${wrap.offsetTop - board.root.offsetTop}px`;
    bar.root.style.height = `${wrap.offsetHeight}px`;
  }

  engineOn.addEventListener('change', () => think());
  placeChoice?.addEventListener('change', () => {
    chooseEnginePlace((placeChoice as HTMLSelectElement).value === 'server' ? 'server' : 'browser');
    think();
  });
  lineCount.addEventListener('change', () => think());
  function onKey(event: KeyboardEvent) {
    if ((event.target as Element).closest?.('input, textarea, select')) return;
    if (event.key === 'ArrowLeft' && current.parent) { event.preventDefault(); jump(current.parent); }
    if (event.key === 'ArrowRight' && current.children[0]) { event.preventDefault(); jump(current.children[0]); }
  }
  document.addEventListener('keydown', onKey);

  const form = positionForm({ title: t('analysis.board'), withMoves: true, submit: async (r) => {
    // A new start: the moves given become the main line.
    request = { ...r, moves: [] };
    tree.children = [];
    let node = tree;
    for (const usi of r.moves) {
      const child = { usi, text: usi, check: false, children: [], parent: node, fresh: false };
      node.children.push(child);
      node = child;
    }
    current = node;
    const replay = await api<ReplayedGame>('/api/replay', { ...request, moves: r.moves });
    let walk = tree.children[0];
    for (const text of replay.hodges) { if (walk) { walk.text = text; walk = walk.children[0]; } }
    await load();
  } });
  app.replaceChildren(el('div', { class: 'play' }, el('div', { class: 'analysis-board' }, bar.root, board.root),
    el('div', { class: 'side-area' }, output, treePanel, form)));
  // Zoom and the size of the game change the board's height: the bar follows.
  const resize = new ResizeObserver(() => fitBar());
  resize.observe(board.root.querySelector('.board-wrap')!);
  request = { variant: store.variants.find((v) => v.available)!.name, options: '', moves: [] };
  // A position sent here (from the board editor): `?variant=…&sfen=…&options=…`.
  const sent = new URLSearchParams(location.search);
  if (sent.get('sfen') && store.variants.some((v) => v.name === sent.get('variant'))) {
    (form.querySelector('[name="variant"]') as HTMLSelectElement).value = sent.get('variant')!;
    (form.querySelector('[name="options"]') as HTMLInputElement).value = sent.get('options') || '';
    (form.querySelector('[name="sfen"]') as HTMLInputElement).value = sent.get('sfen')!;
    form.requestSubmit();
  } else {
    load();
  }
  page.cleanup = () => {
    generation += 1;
    calledOff?.abort();
    resize.disconnect();
    board.destroy();
    document.removeEventListener('keydown', onKey);
  };
  page.rerender = () => { if (record) { board.render(); fitBar(); } };
  page.holdsWork = () => tree.children.length > 0;
}

