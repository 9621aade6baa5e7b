// The puzzle page: a position from the player's side, "find the best move", each move checked
// at once, the opponent's replies played, hint and solution, the next puzzle near the player's
// rating. Accounts are rated by the server; a guest's rating and progress stay in the browser.

import { page, store, navigate } from './state';
import { api, errorStatus, errorText } from './api';
import { analyse } from './engine';
import { Board } from './board';
import { el } from './dom';
import { h, patch } from './view';
import type { VNode } from './view';
import { miniBoard } from './pieces';
import { play as playSound } from './sound.js';
import { app } from './prefs';
import { notFoundPage } from './notfound';
import { gameTitle, pieceName, sideName, t, lang, tParts } from './i18n';
import { notation } from './gameparts';
import type { AttemptAnswer, PuzzleAnswer, ReplayedGame } from './api-types';

/** A theme's entry: its value, and its words read in the visitor's language when used. */
function themed(value: string, words: () => string): [string, string] {
  const entry: [string, string] = [value, ''];
  Object.defineProperty(entry, 1, { get: words, enumerable: true });
  return entry;
}

/** The themes the server knows, in words. */
export const PUZZLE_THEMES: [string, string][] = [
  themed('', () => t('puzzles.theme-any')),
  themed('beginner', () => t('puzzles.theme-beginner')),
  themed('tsume', () => t('puzzles.theme-tsume')),
  themed('mate', () => t('puzzles.theme-mate')),
  themed('mate-in-1', () => t('puzzles.theme-mate-in-1')),
  themed('mate-in-2', () => t('puzzles.theme-mate-in-2')),
  themed('mate-in-3', () => t('puzzles.theme-mate-in-3')),
  themed('mate-in-4', () => t('puzzles.theme-mate-in-4')),
  themed('mate-in-5', () => t('puzzles.theme-mate-in-5')),
  themed('mate-in-6', () => t('puzzles.theme-mate-in-6')),
  themed('advantage', () => t('puzzles.theme-advantage')),
  themed('material', () => t('puzzles.theme-material')),
  themed('promotion', () => t('puzzles.theme-promotion')),
  themed('drop', () => t('puzzles.theme-drop')),
  themed('defence', () => t('puzzles.theme-defence')),
  themed('endgame', () => t('puzzles.theme-endgame')),
  themed('short', () => t('puzzles.theme-short')),
  themed('long', () => t('puzzles.theme-long')),
];

/** A puzzle's themes as the visitor reads them: the server's names as words in English ("mate
 * in 2"), the themes' words in Japanese. */
function themeNames(themes: string[]): string {
  if (lang() === 'en') return themes.map((id) => id.replaceAll('-', ' ')).join(', ');
  return themes.map((id) => PUZZLE_THEMES.find(([value]) => value === id)?.[1] ?? id).join('、');
}

type Puzzle = {
  id: string; variant: string; options: string; sfen: string;
  moves: string[]; themes: string[]; rating: number; plays: number;
  /** Later answers as good as the solution's (the deep check's): one solves the puzzle there. */
  also?: { index: number; move: string }[];
};

type Local = { rating: number; seen: string[]; solved: number; failed: number };

/** A guest's progress in one game, kept in the browser. */
function localProgress(variant: string): Local {
  try {
    const saved = JSON.parse(localStorage.getItem(`tsubame.puzzles.${variant}`) || 'null');
    if (saved && typeof saved.rating === 'number' && Array.isArray(saved.seen)) return saved;
  } catch { /* a damaged entry starts afresh */ }
  return { rating: 1500, seen: [], solved: 0, failed: 0 };
}

function saveLocal(variant: string, local: Local) {
  localStorage.setItem(`tsubame.puzzles.${variant}`, JSON.stringify({ ...local, seen: local.seen.slice(-200) }));
}

/** The day's puzzle for the home page: a small board that opens it. */
export async function dailyPuzzleNode(variant = 'tori') {
  const puzzle: Puzzle = await api<PuzzleAnswer>(`/api/puzzles/daily?variant=${variant}`);
  const info = store.variants.find((v) => v.name === variant);
  const toMove = puzzle.sfen.split(' ')[1] === 'b' ? t('frame.Sente') : t('frame.Gote');
  return el('a', { class: 'panel daily-puzzle', href: `/puzzles/${variant}/${puzzle.id}`, 'data-daily-puzzle': puzzle.id },
    miniBoard(variant, puzzle.sfen, Math.round(128 / (info?.files || 7))),
    el('div', {},
      el('h2', {}, t('puzzles.daily')),
      el('p', {}, t('puzzles.daily-text', { game: gameTitle(info, variant), side: toMove, rating: puzzle.rating }))));
}

export function puzzlePage(variantName?: string, wantedId?: string) {
  const variants = store.variants.filter((v) => v.available);
  const variant = variants.find((v) => v.name === variantName)?.name || 'tori';
  // A link may name the theme to start with (the learn path's `?theme=beginner`).
  const asked = new URLSearchParams(location.search).get('theme') || '';
  let theme = PUZZLE_THEMES.some(([value]) => value === asked) ? asked : '';
  let puzzle: Puzzle | null = null;
  // Moves of the solution played so far; `mistake` once a wrong move was tried, `helped`
  // once a hint or the solution was asked for: either makes the attempt a failure.
  let step = 0;
  let mistake = false;
  let helped = false;
  let sent = false;
  let busy = false;
  /** Whether the page asks before a hint that would fail the attempt. */
  let confirmingHint = false;
  /** Whether a wrong move is shown, to be taken back. */
  let retryable = false;
  // Which puzzle the page is on: work begun for an earlier one stops when it comes back.
  let shown = 0;
  const view: {
    status: string; tone: 'play' | 'good' | 'wrong' | 'done' | 'failed';
    hint: string; result: string; mine: string; allows: string;
  } = { status: t('puzzles.loading'), tone: 'play', hint: '', result: '', mine: '', allows: '' };
  const board = new Board({ onMove: (usi) => tryMove(usi) });

  const panelHost = el('div');
  let panelNode: VNode | HTMLElement = panelHost;
  function panelView(): VNode {
    const over = view.tone === 'done' || view.tone === 'failed';
    return h('div.panel.puzzle-panel', { attrs: { 'data-puzzle': puzzle?.id || '' } }, [
      h('h2', t('puzzles.heading')),
      h(`p.puzzle-status.${view.tone}`, { attrs: { 'data-puzzle-status': view.tone, role: 'status' } }, view.status),
      view.allows ? h('p', { attrs: { 'data-puzzle-allows': '' } }, view.allows) : null,
      view.hint ? h('p.help', { attrs: { 'data-puzzle-hint': '' } }, view.hint) : null,
      view.result ? h('p', { attrs: { 'data-puzzle-result': '' } }, view.result) : null,
      h('div.actions', [
        !over && confirmingHint ? h('span.confirm', { attrs: { 'data-confirm': 'hint' } }, [t('puzzles.hint-costs'), ' ',
          h('button', { attrs: { 'data-puzzle-action': 'hint-yes', type: 'button' }, on: { click: () => { confirmingHint = false; hint(true); } } }, t('puzzles.hint-yes')),
          h('button.secondary', { attrs: { 'data-puzzle-action': 'hint-no', type: 'button' }, on: { click: () => { confirmingHint = false; show({}); } } }, t('puzzles.hint-no'))])
          : !over ? h('button.secondary', { attrs: { 'data-puzzle-action': 'hint', type: 'button' }, on: { click: () => hint(false) } }, t('puzzles.hint')) : null,
        view.tone === 'wrong' && retryable ? h('button', { attrs: { 'data-puzzle-action': 'retry', type: 'button' }, on: { click: () => retry() } }, t('puzzles.try-again')) : null,
        !over ? h('button.secondary', { attrs: { 'data-puzzle-action': 'solution', type: 'button' }, on: { click: showSolution } }, t('puzzles.solution')) : null,
        over ? h('button', { attrs: { 'data-puzzle-action': 'next', type: 'button' }, on: { click: () => next() } }, t('puzzles.next')) : null,
      ]),
      // The puzzle's id stands as written, in the sentence of either language.
      puzzle ? h('p.help', { attrs: { 'data-puzzle-info': '' } }, [
        ...tParts('puzzles.info', { id: h('code', puzzle.id) }, { rating: puzzle.rating }),
        puzzle.themes.length ? ` · ${themeNames(puzzle.themes)}` : '']) : null,
      h('p.help', { attrs: { 'data-puzzle-mine': '' } }, view.mine),
    ]);
  }
  function show(change: Partial<typeof view>) {
    Object.assign(view, change);
    panelNode = patch(panelNode, panelView());
  }

  const themePicker = el('select', { 'data-puzzle-theme': '', 'aria-label': t('puzzles.theme') },
    PUZZLE_THEMES.map(([value, label]) => el('option', { value, selected: value === theme }, label)));
  themePicker.addEventListener('change', () => { theme = themePicker.value; next(); });
  const gamePicker = el('select', { 'data-puzzle-game': '', 'aria-label': t('puzzles.game') },
    variants.map((v) => el('option', { value: v.name, selected: v.name === variant }, gameTitle(v))));
  gamePicker.addEventListener('change', () => { navigate(`/puzzles/${gamePicker.value}`); });
  const pickers = el('div', { class: 'panel puzzle-pickers' }, el('label', {}, `${t('puzzles.game')} `, gamePicker), el('label', {}, `${t('puzzles.theme')} `, themePicker));

  function sideToMove() {
    return puzzle?.sfen.split(' ')[1] === 'w' ? 'gote' : 'sente';
  }

  /** The position after the first `count` moves of `moves`, from the server's rules. */
  async function showPosition(moves: string[], interactive: boolean) {
    // Asked only once a puzzle is loaded.
    const record = await api<ReplayedGame>('/api/replay',
      { variant: puzzle!.variant, options: puzzle!.options, sfen: puzzle!.sfen, moves });
    board.setState({ variant: record.variant, sfen: record.sfen, legal: interactive ? record.legal_moves : [],
      lastMove: moves[moves.length - 1] || null, interactive, check: record.checks[record.checks.length - 1] });
    return record;
  }

  async function load(wanted?: string) {
    shown += 1;
    const mine = shown;
    busy = true;
    mistake = false; helped = false; sent = false; step = 0; confirmingHint = false; retryable = false;
    show({ status: t('puzzles.loading'), tone: 'play', hint: '', result: '', allows: '' });
    const local = localProgress(variant);
    try {
      if (wanted) {
        puzzle = await api<PuzzleAnswer>(`/api/puzzles/${encodeURIComponent(wanted)}`);
      } else {
        const query = new URLSearchParams({ variant });
        if (theme) query.set('theme', theme);
        if (!store.me.account) {
          query.set('rating', String(Math.round(local.rating)));
          query.set('seen', local.seen.slice(-100).join(','));
          query.set('attempts', String(local.solved + local.failed));
        }
        puzzle = await api<PuzzleAnswer>(`/api/puzzles/next?${query}`);
      }
    } catch (e) {
      busy = false;
      // A puzzle's address that names none: the site's "not found" page, as the server's
      // 404 says.
      if (wanted && errorStatus(e) === 404) {
        notFoundPage();
        return;
      }
      show({ status: errorText(e), tone: 'failed' });
      return;
    }
    if (mine !== shown) return;
    // Its own copy of the line: a move that mates as fast takes the puzzle along another.
    puzzle = { ...puzzle, moves: [...puzzle.moves] };
    board.flipped = sideToMove() === 'gote';
    await showPosition([], true);
    if (mine !== shown) return;
    busy = false;
    show({ status: t('puzzles.find-best', { side: sideName(sideToMove()) }), tone: 'play' });
    showMine();
  }

  function showMine() {
    if (store.me.account) {
      show({ mine: t('puzzles.mine-account', { name: store.me.account.username }) });
    } else {
      const local = localProgress(variant);
      show({ mine: t('puzzles.mine-guest', { rating: Math.round(local.rating), solved: local.solved, failed: local.failed }) });
    }
  }

  async function tryMove(usi: string) {
    if (!puzzle || busy || view.tone === 'done' || view.tone === 'failed') return;
    busy = true;
    const mine = shown;
    const expected = puzzle.moves[step];
    const played = puzzle.moves.slice(0, step);
    let right = usi === expected;
    if (!right && puzzle.also?.some((other) => other.index === step && other.move === usi)) {
      // As good as the solution's move: the puzzle is solved with it.
      right = true;
      puzzle.moves = [...played, usi];
    }
    if (!right && puzzle.themes.includes('mate')) {
      const fast = await matesAsFast(played, usi);
      if (mine !== shown) return;
      if (fast === null) {
        // The engine could not say now (busy, or the connection): not counted, try again.
        await showPosition(played, true);
        show({ status: t('puzzles.could-not-check'), tone: 'play', hint: '' });
        busy = false;
        return;
      }
      right = fast;
    }
    if (!right) {
      // Not the move: said so, with what it allows where the engine can tell, and the player
      // chooses to try again or to see the solution.
      mistake = true;
      playSound('check');
      await showPosition([...played, usi], false);
      retryable = true;
      show({ status: t('puzzles.not-the-move'), tone: 'wrong', hint: '', allows: '' });
      busy = false;
      await finish(false);
      const allows = await whatItAllows([...played, usi]);
      if (mine === shown && view.tone === 'wrong' && allows) show({ allows });
      return;
    }
    step += 1;
    playSound('move');
    const solutionMoves = puzzle.moves.slice(0, step - 1).concat([usi]);
    if (step >= puzzle.moves.length) {
      await showPosition(solutionMoves, false);
      await finish(!mistake && !helped);
      show({ status: mistake || helped ? t('puzzles.solved-helped') : t('puzzles.solved'), tone: mistake || helped ? 'failed' : 'done', hint: '' });
      busy = false;
      return;
    }
    await showPosition(solutionMoves, false);
    show({ status: t('puzzles.good-move'), tone: 'good', hint: '' });
    await new Promise((done) => setTimeout(done, 600));
    if (mine !== shown) return;
    step += 1;
    await showPosition(puzzle.moves.slice(0, step), true);
    show({ status: t('puzzles.good-next', { side: sideName(sideToMove()) }), tone: 'good' });
    busy = false;
  }

  /** In a puzzle that ends in mate, whether `usi` (played after `played`) mates as fast as the
   * line does, as the play sites take it: it mates at once, or the engine finds the defender
   * mated within the plies the line has left. The rest of the puzzle then follows the
   * engine's line from it (the defender's best replies), and that line is the solution the
   * server is shown. `null` when the server could not tell now. */
  async function matesAsFast(played: string[], usi: string): Promise<boolean | null> {
    // Asked while a puzzle is being solved; once loaded, the page always has one.
    const position = { variant: puzzle!.variant, options: puzzle!.options, sfen: puzzle!.sfen, moves: [...played, usi] };
    try {
      const after = await api<ReplayedGame>('/api/replay', position);
      if (after.outcome) {
        const mates = after.outcome.reason === 'checkmate' && after.outcome.winner === sideToMove();
        if (mates) puzzle!.moves = position.moves;
        return mates;
      }
      const left = puzzle!.moves.length - played.length - 1;
      if (left <= 0) return false;
      const reply = await analyse({ ...position, depth: Math.min(30, left + 4), movetime_ms: 1500 });
      const mated = /^mate -(\d+)$/.exec(reply.score || '');
      const plies = mated ? Number(mated[1]) : Infinity;
      if (plies > left || reply.pv.length < plies) return false;
      puzzle!.moves = [...position.moves, ...reply.pv.slice(0, plies)];
      return true;
    } catch (e) {
      // A move the rules refuse is simply wrong; anything else leaves it undecided.
      const status = errorStatus(e);
      return status === 422 || status === 400 ? false : null;
    }
  }

  /** Sends the attempt once: the first mistake or help fails it, reaching the end solves it. */
  async function finish(solved: boolean) {
    if (sent || !puzzle) return;
    sent = true;
    const local = localProgress(variant);
    try {
      const answer = await api<AttemptAnswer>(`/api/puzzles/${puzzle.id}/attempt`,
        { solved, moves: solved ? puzzle.moves : puzzle.moves.slice(0, step) });
      if (answer.rated && answer.rating) {
        const { before, after } = answer.rating;
        const change = after - before;
        show({ result: t('puzzles.rating-change', { rating: after, change: `${change >= 0 ? '+' : ''}${change}` }) });
      } else if (answer.unrated) {
        // Why an account's attempt did not count, in the player's language.
        show({ result: t(`puzzles.unrated-${answer.unrated}`) });
      }
    } catch (e) {
      show({ result: errorText(e) });
    }
    if (!store.me.account) {
      // An Elo step against the puzzle's rating, for a guest's own count.
      const expected = 1 / (1 + 10 ** ((puzzle.rating - local.rating) / 400));
      local.rating += 32 * ((solved ? 1 : 0) - expected);
      local.seen.push(puzzle.id);
      if (solved) local.solved += 1; else local.failed += 1;
      saveLocal(variant, local);
      showMine();
    }
  }

  /** What a wrong move allows: the opponent's best reply as the engine finds it, and the mate
   * it leads to when there is one; nothing when the engine cannot say now. */
  async function whatItAllows(moves: string[]): Promise<string> {
    try {
      // Asked once a wrong move is shown, so a puzzle is loaded.
      const position = { variant: puzzle!.variant, options: puzzle!.options, sfen: puzzle!.sfen, moves };
      const reply = await analyse({ ...position, depth: 8, movetime_ms: 700 });
      if (!reply.best) return '';
      const after = await api<ReplayedGame>('/api/replay', { ...position, moves: [...moves, reply.best] });
      const texts = after[notation()] || after.hodges;
      const move = texts?.[texts.length - 1] || reply.best;
      const mate = /^mate (\d+)$/.exec(reply.score || '');
      if (!mate) return t('puzzles.allows', { move });
      // A mate is counted in moves in English, in plies in Japanese (三手詰め).
      const plies = Number(mate[1]);
      return t('puzzles.allows-mate', { move, count: lang() === 'ja' ? plies : Math.ceil(plies / 2) });
    } catch {
      return '';
    }
  }

  /** Back to the position before the wrong move, to find the right one. */
  async function retry() {
    if (!puzzle || view.tone !== 'wrong') return;
    retryable = false;
    await showPosition(puzzle.moves.slice(0, step), true);
    show({ status: t('puzzles.find-best', { side: sideName(sideToMove()) }), tone: 'play', allows: '' });
  }

  /** A hint; while the attempt still counts, only once the player has agreed that it fails
   * the attempt (`agreed`). */
  async function hint(agreed: boolean) {
    // While a move is being answered the next one is not yet the player's.
    if (!puzzle || busy || view.tone === 'done' || view.tone === 'failed') return;
    if (!agreed && !sent) {
      confirmingHint = true;
      show({});
      return;
    }
    helped = true;
    const usi = puzzle.moves[step];
    const roles = store.variants.find((v) => v.name === puzzle!.variant)?.roles || [];
    const dropped = usi.includes('*') ? roles.find((r) => r.sfen === usi.split('*')[0]) : null;
    const from = usi.match(/^\d+[a-z]/)?.[0];
    // A move that is no drop starts with the square it leaves.
    const text = !usi.includes('*') ? t('puzzles.hint-move', { square: from! })
      : dropped ? t('puzzles.hint-drop', { piece: pieceName(dropped).toLowerCase() }) : t('puzzles.hint-drop-any');
    show({ hint: text });
    await finish(false);
  }

  async function showSolution() {
    // A move being answered (a wrong one shown for a moment) finishes first.
    while (busy) await new Promise((done) => setTimeout(done, 50));
    if (!puzzle || view.tone === 'done' || view.tone === 'failed') return;
    busy = true;
    const mine = shown;
    helped = true;
    await finish(false);
    show({ status: t('puzzles.the-solution'), tone: 'failed', hint: '' });
    for (let i = step + 1; i <= puzzle.moves.length; i++) {
      await showPosition(puzzle.moves.slice(0, i), false);
      await new Promise((done) => setTimeout(done, 500));
      if (mine !== shown) return;
    }
    step = puzzle.moves.length;
    show({ status: t('puzzles.was-solution'), tone: 'failed' });
    busy = false;
  }

  function next() {
    if (location.pathname !== `/puzzles/${variant}`) {
      history.replaceState(null, '', `/puzzles/${variant}`);
    }
    load();
  }

  app.replaceChildren(el('div', { class: 'play puzzles' }, board.root,
    el('div', { class: 'side-area' }, panelHost, pickers)));
  show({});
  load(wantedId);
  page.cleanup = () => board.destroy();
  page.holdsWork = () => step > 0 && view.tone !== 'done' && view.tone !== 'failed';
}
