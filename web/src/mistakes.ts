// Learning from one's own mistakes in an analysed game, as the play sites offer it: each
// marked move of the player's in turn, shown as the position before it, in which to find a
// better move; the engine's move, or any move that keeps the winning chances as well, is right.

import { api, errorStatus, errorText } from './api';
import { analyse } from './engine';
import { el } from './dom';
import { senteCentipawns, senteMoves, winningChances } from './evalgraph';
import type { MoveReview } from './evalgraph';
import { notation } from './gameparts';
import { sideName, t } from './i18n';
import type { ReplayedGame } from './api-types';

/** A move that gives away less than this share of the mover's winning chances (on the -1 to 1
 * scale) than the engine's move is as good: the threshold of the mildest mark, `?!`. */
const AS_GOOD = 0.1;

/** What the board shows while learning: the position before the mistake (by ply), the moves
 * that may be played there, and the better move's arrow once it is found or shown. */
export interface DrillView {
  ply: number;
  legal: string[];
  interactive: boolean;
  arrow: string | null;
}

/** The marked moves of `side` with a better move known: what there is to learn from. */
export function mistakesOf(record: ReplayedGame, reviews: MoveReview[], side: string): MoveReview[] {
  return reviews.filter((r) => r.better && (senteMoves(record.positions[r.ply - 1]) ? 'sente' : 'gote') === side);
}

/** The move number of a ply, as the lists write it: `12.` for sente, `12…` for gote. */
function moveNumber(ply: number): string {
  return `${Math.ceil(ply / 2)}${ply % 2 ? '.' : '…'}`;
}

/** The lessons of one analysed game: its player's marked moves in turn, each a position in
 * which to find a better move, with the panel that says what to do and how it went. */
export class MistakeTrainer {
  readonly root = el('div', { class: 'panel learn-mistakes', 'data-learn-mistakes': '' });
  private index = 0;
  private found = 0;
  private state: 'loading' | 'failed' | 'find' | 'checking' | 'solved' | 'shown' | 'done' = 'loading';
  /** Counts the positions shown: an answer that comes after the player moved on is dropped. */
  private shownCount = 0;
  private legal: string[] = [];
  private message = '';
  /** How the message reads: right (green), wrong (red) or plain. */
  private tone: '' | 'right' | 'wrong' = '';
  private betterText = '';

  /** `onChange`: the board should show `view()` again; `onStop`: the player is done. */
  constructor(private record: ReplayedGame, private items: MoveReview[], private evals: number[],
    private onChange: () => void, private onStop: () => void) {
    this.load();
  }

  /** What the board shows; none once every mistake has been seen. */
  view(): DrillView | null {
    const item = this.items[this.index];
    if (this.state === 'done' || !item) return null;
    const finding = this.state === 'find';
    return { ply: item.ply - 1, legal: finding ? this.legal : [], interactive: finding,
      arrow: this.state === 'solved' || this.state === 'shown' ? item.better : null };
  }

  /** A move played on the board in the position shown. */
  async move(usi: string) {
    const item = this.items[this.index];
    if (this.state !== 'find' || !item) return;
    // One move checked at a time, and its answer only for the position it was played in.
    this.state = 'checking';
    const shown = this.shownCount;
    const current = () => shown === this.shownCount;
    const tried = await this.textOf(item, usi);
    if (!current()) return;
    if (usi === item.better) {
      this.solved(t('analysis.learn-best', { move: tried }));
      return;
    }
    if (usi === this.record.usi[item.ply - 1]) {
      this.state = 'find';
      this.say(t('analysis.learn-played'));
      return;
    }
    this.say(t('analysis.learn-checking', { move: tried }));
    const moverIsSente = senteMoves(this.record.positions[item.ply - 1]);
    const sign = moverIsSente ? 1 : -1;
    const position = { variant: this.record.variant, options: this.record.options,
      sfen: this.record.start_sfen, moves: [...this.before(item), usi] };
    let after: number;
    try {
      const reply = await analyse({ ...position, depth: 16, movetime_ms: 300 });
      after = sign * senteCentipawns(reply.score, !moverIsSente);
    } catch (e) {
      // The game is over after the move: right only when the move mated (a drop that mates
      // with a swallow, a repetition or the move limit are not).
      const over = errorStatus(e) === 409
        ? await api<ReplayedGame>('/api/replay', position).catch(() => null) : null;
      if (!current()) return;
      const mated = over?.outcome?.reason === 'checkmate' && over.outcome.winner === (moverIsSente ? 'sente' : 'gote');
      if (!over) {
        this.state = 'find';
        this.say(errorText(e));
        return;
      }
      after = mated ? Infinity : -Infinity;
    }
    if (!current()) return;
    const best = sign * this.evals[item.ply - 1];
    if (after === Infinity || winningChances(best) - winningChances(after) < AS_GOOD) {
      this.solved(t('analysis.learn-good', { move: tried, best: this.betterText }));
    } else {
      this.state = 'find';
      this.say(t('analysis.learn-wrong', { move: tried }), 'wrong');
    }
  }

  private before(item: MoveReview): string[] {
    return this.record.usi.slice(0, item.ply - 1);
  }

  /** A move from the position before `item`, in the page's notation (USI when it does not
   * replay). */
  private async textOf(item: MoveReview, usi: string): Promise<string> {
    try {
      const before = this.before(item);
      const replayed = await api<ReplayedGame>('/api/replay', { variant: this.record.variant, options: this.record.options,
        sfen: this.record.start_sfen, moves: [...before, usi] });
      return (replayed[notation()] || replayed.hodges)[before.length] || usi;
    } catch {
      return usi;
    }
  }

  private async load() {
    const item = this.items[this.index];
    this.shownCount += 1;
    const shown = this.shownCount;
    if (!item) {
      this.state = 'done';
      this.say(t('analysis.learn-done', { found: this.found, total: this.items.length }));
      return;
    }
    this.state = 'loading';
    this.render();
    try {
      const position = await api<ReplayedGame>('/api/replay', { variant: this.record.variant, options: this.record.options,
        sfen: this.record.start_sfen, moves: this.before(item) });
      this.legal = position.legal_moves;
      // The items are moves with a better move known.
      this.betterText = await this.textOf(item, item.better!);
    } catch (e) {
      if (shown !== this.shownCount) return;
      // The position could not be had (the server is busy or gone): try it again, or skip it.
      this.state = 'failed';
      this.say(errorText(e), 'wrong');
      return;
    }
    if (shown !== this.shownCount) return;
    const played = this.record[notation()]?.[item.ply - 1] || this.record.hodges[item.ply - 1];
    const side = senteMoves(this.record.positions[item.ply - 1]) ? 'sente' : 'gote';
    this.state = 'find';
    this.say(t('analysis.learn-find', { number: moveNumber(item.ply), played, side: sideName(side) }));
  }

  private solved(message: string) {
    this.found += 1;
    this.state = 'solved';
    this.say(message, 'right');
  }

  private next() {
    this.index += 1;
    this.load();
  }

  private say(message: string, tone: '' | 'right' | 'wrong' = '') {
    this.message = message;
    this.tone = tone;
    this.render();
    this.onChange();
  }

  private render() {
    const button = (action: string, label: string, onclick: () => void, primary = false) =>
      el('button', { type: 'button', class: primary ? '' : 'secondary', 'data-learn': action, onclick }, label);
    const actions = [];
    if (this.state === 'find' || this.state === 'checking') {
      actions.push(button('show', t('analysis.learn-show'), () => {
        if (this.state !== 'find') return;
        this.state = 'shown';
        this.say(t('analysis.learn-shown', { best: this.betterText }));
      }), button('skip', t('analysis.learn-skip'), () => this.next()));
    }
    if (this.state === 'failed') {
      actions.push(button('retry', t('analysis.learn-retry'), () => this.load(), true),
        button('skip', t('analysis.learn-skip'), () => this.next()));
    }
    if (this.state === 'solved' || this.state === 'shown') actions.push(button('next', t('analysis.learn-next'), () => this.next(), true));
    actions.push(button('stop', t('analysis.learn-stop'), () => this.onStop()));
    const count = this.state === 'done' ? '' : t('analysis.learn-count', { index: this.index + 1, total: this.items.length });
    this.root.dataset.state = this.state;
    this.root.replaceChildren(
      el('h2', {}, t('analysis.learn'), count ? el('small', { class: 'learn-count' }, ` ${count}`) : null),
      el('p', { 'data-learn-message': '', 'data-tone': this.tone, class: `learn-message ${this.tone}` }, this.message),
      el('div', { class: 'actions' }, actions));
  }
}
