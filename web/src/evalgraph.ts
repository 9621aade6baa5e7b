// A finished game's analysis: the engine's evaluation at each ply, drawn as a graph.

import { api } from './api';
import { el } from './dom';
import { t } from './i18n';

export const EVAL_CAP = 2000;

/** A score for the side to move (`cp 35`, `mate -3`) as centipawns for sente, capped. */
export function senteCentipawns(score, senteToMove) {
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

/** Each move's mark (`??`, `?`, `?!`) from the evaluations of the positions before and after it
 * (centipawns for sente), keyed by ply. */
export function judgements(record, evals: number[]): Map<number, string> {
  const marks = new Map<number, string>();
  record.usi.forEach((_, i) => {
    if (evals.length <= i + 1) return;
    const moverIsSente = / b /.test(` ${record.positions[i].split(' ').slice(1).join(' ')} `);
    const sign = moverIsSente ? 1 : -1;
    const lost = winningChances(sign * evals[i]) - winningChances(sign * evals[i + 1]);
    const mark = judgement(lost);
    if (mark) marks.set(i + 1, mark);
  });
  return marks;
}

/** The button that analyses a finished game, then its graph; `onJudged` hears each move's mark
 * (`??`, `?`, `?!`, by ply), for the move list. */
export function gameAnalysisNode(record, onPick, onJudged: (marks: Map<number, string>) => void = () => {}) {
  const box = el('div', { class: 'game-analysis' });
  const button = el('button', { type: 'button', class: 'secondary', 'data-action': 'analyse-game' }, t('analysis.analyse-game'));
  const status = el('small', { class: 'help', 'data-analysis-status': '' });
  box.append(button, status);
  button.addEventListener('click', async () => {
    button.disabled = true;
    const evals = [];
    const plies = record.usi.length;
    for (let ply = 0; ply <= plies; ply++) {
      status.textContent = t('analysis.analysing', { position: ply + 1, positions: plies + 1 });
      const senteToMove = / b /.test(` ${record.positions[ply].split(' ').slice(1).join(' ')} `);
      try {
        const reply = await api('/api/analyse', { variant: record.variant, options: record.options,
          sfen: record.start_sfen, moves: record.usi.slice(0, ply), depth: 12, movetime_ms: 150 });
        evals.push(senteCentipawns(reply.score, senteToMove));
      } catch (e) {
        // The game is over here: the side to move has lost, or nobody won.
        const winner = record.outcome?.winner || record.result?.winner;
        evals.push(winner === 'sente' ? EVAL_CAP : winner === 'gote' ? -EVAL_CAP : evals[evals.length - 1] || 0);
      }
    }
    status.textContent = '';
    box.replaceChildren(evalGraph(record, evals, onPick));
    onJudged(judgements(record, evals));
  });
  return box;
}

export function evalGraph(record, evals, onPick) {
  const width = 300;
  const height = 120;
  const x = (ply) => (evals.length > 1 ? (ply / (evals.length - 1)) * width : 0);
  const y = (cp) => height / 2 - (cp / EVAL_CAP) * (height / 2);
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('viewBox', `-4 -4 ${width + 8} ${height + 8}`);
  svg.setAttribute('class', 'eval-graph');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('analysis.graph-label'));
  const shape = (tag, attrs) => {
    const node = document.createElementNS(svgNs, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.append(node);
    return node;
  };
  shape('rect', { x: 0, y: 0, width, height: height / 2, class: 'eval-sente' });
  shape('rect', { x: 0, y: height / 2, width, height: height / 2, class: 'eval-gote' });
  shape('polyline', { points: evals.map((cp, ply) => `${x(ply)},${y(cp)}`).join(' '), class: 'eval-line' });
  // A mistake: the mover's evaluation drops by 200 or more; the three worst are marked.
  const losses = record.usi.map((usi, i) => {
    const moverIsSente = evals.length > i + 1 && / b /.test(` ${record.positions[i].split(' ').slice(1).join(' ')} `);
    const drop = moverIsSente ? evals[i] - evals[i + 1] : evals[i + 1] - evals[i];
    return { ply: i + 1, drop, text: record.hodges[i] };
  }).filter((m) => m.drop >= 200).sort((a, b) => b.drop - a.drop).slice(0, 3);
  evals.forEach((cp, ply) => {
    const mistake = losses.some((m) => m.ply === ply);
    const dot = shape('circle', { cx: x(ply), cy: y(cp), r: mistake ? 4 : 2.2, class: mistake ? 'eval-mistake' : 'eval-point',
      'data-eval-ply': ply });
    dot.addEventListener('click', () => onPick(ply));
  });
  return el('div', {}, svg, losses.length
    ? el('ol', { class: 'mistakes' }, losses.map((m) => el('li', { 'data-mistake': m.ply },
      el('a', { href: '#', onclick: (e) => { e.preventDefault(); onPick(m.ply); } },
        `${Math.ceil(m.ply / 2)}${m.ply % 2 ? '.' : '…'} ${m.text}`), t('analysis.loses', { pawns: (m.drop / 100).toFixed(1) }))))
    : el('p', { class: 'help' }, t('analysis.no-big-loss')));
}

// ---------------------------------------------------------------------------------------------
// Players: who is logged in, sign-up and login, names and ratings, player pages
