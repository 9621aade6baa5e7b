// A finished game's analysis: the engine's evaluation at each ply, drawn as a graph.

import { api, errorText } from './api';
import { analyse } from './engine';
import { el } from './dom';
import { t } from './i18n';
import { notation } from './gameparts';
import type { GameAnalysis, ReplayedGame, StoredGameRecord } from './api-types';

export const EVAL_CAP = 2000;

/** A record as the analysis reads it: replayed (an imported record), or kept with its game,
 * which adds the game's result. */
export type AnalysedRecord = ReplayedGame & Partial<Pick<StoredGameRecord, 'result'>>;

/** A score for the side to move (`cp 35`, `mate -3`) as centipawns for sente, capped. */
export function senteCentipawns(score: string | null | undefined, senteToMove: boolean): number {
  const [kind, value] = String(score || 'cp 0').split(' ');
  const n = Number(value) || 0;
  const own = kind === 'mate' ? (n > 0 ? EVAL_CAP : -EVAL_CAP) : Math.max(-EVAL_CAP, Math.min(EVAL_CAP, n));
  return senteToMove ? own : -own;
}

/** The mover's chance of winning at `cp` centipawns for it, from -1 to 1 (the logistic curve the
 * play sites judge moves by). */
export function winningChances(cp: number): number {
  return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
}

/** The play sites' marks for a move by how much of the mover's winning chances it gave away:
 * `??` a blunder (0.3 or more), `?` a mistake (0.2), `?!` an inaccuracy (0.1). */
export function judgement(lost: number): string | null {
  return lost >= 0.3 ? '??' : lost >= 0.2 ? '?' : lost >= 0.1 ? '?!' : null;
}

/** A move the analysis marked: how much of the mover's winning chances it gave away (0 to 2),
 * and the engine's move instead, with its line (USI), where the engine had one. */
export interface MoveReview {
  ply: number;
  mark: string;
  lost: number;
  better: string | null;
  line: string[];
}

/** Whether sente moves in the position `sfen`. */
export function senteMoves(sfen: string): boolean {
  return / b /.test(` ${sfen.split(' ').slice(1).join(' ')} `);
}

/** The marked moves, in the game's order, from the evaluations of every position (centipawns
 * for sente) and the engine's best line in each: one measure, the mover's winning chances,
 * for the marks, the list and the graph. The engine's own choice is never marked: what it
 * loses is the noise of two short searches. */
export function reviews(record: AnalysedRecord, evals: number[], lines: string[][] = []): MoveReview[] {
  const found: MoveReview[] = [];
  record.usi.forEach((usi: string, i: number) => {
    if (evals.length <= i + 1) return;
    const better = lines[i]?.[0] || null;
    if (better === usi) return;
    const sign = senteMoves(record.positions[i]) ? 1 : -1;
    const lost = winningChances(sign * evals[i]) - winningChances(sign * evals[i + 1]);
    const mark = judgement(lost);
    if (mark) found.push({ ply: i + 1, mark, lost, better, line: lines[i] || [] });
  });
  return found;
}

/** Each move's mark (`??`, `?`, `?!`), keyed by ply (see `reviews`). */
export function judgements(record: AnalysedRecord, evals: number[], lines: string[][] = []): Map<number, string> {
  return new Map(reviews(record, evals, lines).map((r) => [r.ply, r.mark]));
}

/** What a game's analysis tells the page: each marked move's mark, and the better move at the
 * position before it (keyed by that position's ply), for an arrow on the board; the marked
 * moves themselves and the evaluation of every position (centipawns for sente). */
export interface Judged {
  marks: Map<number, string>;
  better: Map<number, string>;
  reviews: MoveReview[];
  evals: number[];
}

/** The evaluation (centipawns for sente) of a position where the game is over: the side to
 * move has lost, or nobody won. */
function endEval(record: AnalysedRecord, evals: number[]): number {
  const winner = record.outcome?.winner || record.result?.winner;
  return winner === 'sente' ? EVAL_CAP : winner === 'gote' ? -EVAL_CAP : evals[evals.length - 1] || 0;
}

/** The analysis of a finished game, then its graph and its marked moves with the better move
 * and line; `onJudged` hears the marks and better moves. With `gameId`, the server's analysis
 * kept with the game: shown at once when made, its progress while it is made, else a button
 * that asks for it. Without (an imported record), a button that has the page search each
 * position in turn. */
export function gameAnalysisNode(record: AnalysedRecord, onPick: (ply: number) => void,
  onJudged: (judged: Judged) => void = () => {}, gameId: string | null = null) {
  const box = el('div', { class: 'game-analysis' });
  const button = el('button', { type: 'button', class: 'secondary', 'data-action': 'analyse-game' }, t('analysis.analyse-game'));
  const status = el('small', { class: 'help', 'data-analysis-status': '' });
  box.append(button, status);

  async function finish(evals: number[], lines: string[][]) {
    status.textContent = '';
    const found = reviews(record, evals, lines);
    box.replaceChildren(evalGraph(record, evals, found, onPick));
    onJudged({ marks: new Map(found.map((r) => [r.ply, r.mark])),
      better: new Map(found.filter((r) => r.better).map((r) => [r.ply - 1, r.better!])), reviews: found, evals });
    box.append(await reviewList(record, found, onPick));
  }

  /** The server's analysis, once done: each position's evaluation and line. */
  function fromServer(analysis: GameAnalysis) {
    const evals: number[] = [];
    const lines: string[][] = [];
    // A done analysis has every position.
    analysis.positions!.forEach((position, ply) => {
      evals.push(position.score == null ? endEval(record, evals) : senteCentipawns(position.score, senteMoves(record.positions[ply])));
      lines.push(position.pv || []);
    });
    return finish(evals, lines);
  }

  /** Follows the server's analysis until it is done, showing its progress. */
  async function follow(analysis: GameAnalysis) {
    button.disabled = true;
    // A running analysis tells its progress: `done` of `total`.
    while (analysis.status === 'running' && box.isConnected) {
      status.textContent = t('analysis.analysing', { position: Math.min(analysis.done! + 1, analysis.total!),
        positions: analysis.total! });
      await new Promise((done) => setTimeout(done, 1000));
      analysis = await api<GameAnalysis>(`/api/games/${gameId}/analysis`);
    }
    if (analysis.status === 'done') return fromServer(analysis);
    // It stopped without being kept (the server restarted): it can be asked for again.
    button.disabled = false;
    status.textContent = '';
  }

  async function onServer(asking: boolean) {
    try {
      const analysis = await api<GameAnalysis>(`/api/games/${gameId}/analysis`, asking ? {} : undefined);
      if (analysis.status !== 'none') await follow(analysis);
    } catch (e) {
      button.disabled = false;
      status.textContent = errorText(e);
    }
  }

  async function inThePage() {
    button.disabled = true;
    const evals: number[] = [];
    const lines: string[][] = [];
    const plies = record.usi.length;
    for (let ply = 0; ply <= plies; ply++) {
      status.textContent = t('analysis.analysing', { position: ply + 1, positions: plies + 1 });
      const senteToMove = senteMoves(record.positions[ply]);
      try {
        // Long enough that a good opening move is not marked by the noise of a short search.
        const reply = await analyse({ variant: record.variant, options: record.options,
          sfen: record.start_sfen, moves: record.usi.slice(0, ply), depth: 16, movetime_ms: 300 });
        evals.push(senteCentipawns(reply.score, senteToMove));
        lines.push(reply.pv?.length ? reply.pv : reply.best ? [reply.best] : []);
      } catch (e) {
        evals.push(endEval(record, evals));
        lines.push([]);
      }
    }
    await finish(evals, lines);
  }

  if (gameId) {
    button.addEventListener('click', () => onServer(true));
    onServer(false);
  } else {
    button.addEventListener('click', inThePage);
  }
  return box;
}

/** The marked moves as a list: each with its mark and what it gave away, and the better move
 * with its line, each a click from its position on the board. */
async function reviewList(record: AnalysedRecord, found: MoveReview[], onPick: (ply: number) => void) {
  if (!found.length) return el('p', { class: 'help', 'data-no-mistakes': '' }, t('analysis.no-marked-move'));
  const number = (ply: number) => `${Math.ceil(ply / 2)}${ply % 2 ? '.' : '…'}`;
  const items = await Promise.all(found.map(async (r) => {
    let line = '';
    let better = r.better || '';
    if (r.better) {
      // The line in the page's notation, replayed from the position before the move.
      try {
        const before = record.usi.slice(0, r.ply - 1);
        const replayed = await api<ReplayedGame>('/api/replay', { variant: record.variant, options: record.options,
          sfen: record.start_sfen, moves: [...before, ...r.line.slice(0, 6)] });
        const texts = (replayed[notation()] || replayed.hodges).slice(before.length);
        better = texts[0] || better;
        line = texts.slice(1).join(' ');
      } catch { /* the engine's line did not replay: the move alone */ }
    }
    const link = (ply: number, text: string, attrs = {}) => el('a', { href: '#', ...attrs,
      onclick: (e: Event) => { e.preventDefault(); onPick(ply); } }, text);
    const moveText = record[notation()]?.[r.ply - 1] || record.hodges[r.ply - 1];
    return el('li', { 'data-mistake': r.ply, 'data-mark': r.mark },
      link(r.ply, `${number(r.ply)} ${moveText}${r.mark}`), ' ',
      t('analysis.lost-chances', { percent: Math.round(r.lost * 50) }),
      r.better ? [' ', t('analysis.better'), ' ', link(r.ply - 1, better, { 'data-better': r.ply - 1 }),
        line ? el('span', { class: 'better-line' }, ` ${line}`) : null] : null);
  }));
  return el('ol', { class: 'mistakes' }, items);
}

export function evalGraph(record: AnalysedRecord, evals: number[], found: MoveReview[], onPick: (ply: number) => void) {
  const width = 300;
  const height = 120;
  const x = (ply: number) => (evals.length > 1 ? (ply / (evals.length - 1)) * width : 0);
  const y = (cp: number) => height / 2 - (cp / EVAL_CAP) * (height / 2);
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('viewBox', `-4 -4 ${width + 8} ${height + 8}`);
  svg.setAttribute('class', 'eval-graph');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('analysis.graph-label'));
  const shape = (tag: string, attrs: Record<string, string | number>) => {
    const node = document.createElementNS(svgNs, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    svg.append(node);
    return node;
  };
  shape('rect', { x: 0, y: 0, width, height: height / 2, class: 'eval-sente' });
  shape('rect', { x: 0, y: height / 2, width, height: height / 2, class: 'eval-gote' });
  shape('polyline', { points: evals.map((cp, ply) => `${x(ply)},${y(cp)}`).join(' '), class: 'eval-line' });
  // The mistakes and blunders of the list, larger on the graph.
  const marked = new Set(found.filter((r) => r.mark !== '?!').map((r) => r.ply));
  evals.forEach((cp, ply) => {
    const mistake = marked.has(ply);
    const dot = shape('circle', { cx: x(ply), cy: y(cp), r: mistake ? 4 : 2.2, class: mistake ? 'eval-mistake' : 'eval-point',
      'data-eval-ply': ply });
    dot.addEventListener('click', () => onPick(ply));
  });
  return el('div', {}, svg);
}

// ---------------------------------------------------------------------------------------------
// Players: who is logged in, sign-up and login, names and ratings, player pages
