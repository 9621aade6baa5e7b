// The learn path of each game: what the game is, each piece explained then drilled, capturing
// and drops, promotion, check and mate, the game's own rules, then first puzzles and a first
// game. A lesson is a few steps, one at a time: reading, a tap drill, or a move to find on a
// board. The lessons and their positions are data (`lessons.json`, checked by the server's
// tests: every exercise can be solved and missed); every answer is judged from the server's
// replay of the move, so the rules library decides.

import LESSONS from './lessons.json';
import { store, navigate, page } from './state';
import { title } from './util';
import { api, errorText } from './api';
import { el } from './dom';
import { app } from './prefs';
import { Board } from './board';
import { parseSfen } from './sfen.js';
import { ensurePieceStyles } from './pieces';
import { diagramLegend, diagramRadius, moveDiagram, pieceFace, powerNotes } from './pieceinfo';
import { notFoundPage } from './notfound';
import { playComputer } from './home';
import { buildDrill, drillNode, lessonRoles, progress, saveStars, stageName, stagesOf, syncProgress, tapBoard, type Drill, type Stage } from './drill';
import type { RoleInfo, VariantInfo } from './types';
import type { ReplayedGame } from './api-types';
import { gameTitle, pieceName, t } from './i18n';

/** What a move must do to solve an exercise. */
type Goal = { kind: 'capture' | 'capture-on' | 'check' | 'drop' | 'promote' | 'mate' | 'safe'; count?: number; on?: string; check?: boolean };

/** A step of a lesson: text to read, the player's royal to find, a piece's card, a tap drill
 * (`code stage`), a move to find, or the way to first puzzles and a first game. */
type Step = {
  read?: string; royal?: boolean; piece?: string; drill?: string;
  task?: string; sfen?: string; moves?: string[]; goal?: Goal; play?: boolean;
  /** The piece a task names (its SFEN code), as `{piece}` in its words. */
  subject?: string;
};
type LessonData = { id: string; chapter: string; steps?: Step[] };
type Lesson = { id: string; chapter: string; title: string; steps: Step[]; role?: RoleInfo };

const CHAPTERS = ['start', 'pieces', 'basics', 'special', 'play'];

/** A piece lesson's address part, as the server makes it: `piece-great-general`. */
function pieceSlug(name: string) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

function royalOf(variant: VariantInfo): RoleInfo | undefined {
  return variant.roles.find((r) => r.royal);
}

/** A piece's lesson: its card, then its drills, then its promoted form's moves. */
function pieceLesson(variant: VariantInfo, role: RoleInfo): Lesson {
  const promoted = role.promotes_to ? variant.roles.find((r) => r.sfen === role.promotes_to) : undefined;
  return {
    id: `piece-${pieceSlug(role.name)}`, chapter: 'pieces', role,
    title: t('lesson.title-piece', { piece: pieceName(role) }),
    steps: [{ piece: role.sfen },
      ...stagesOf(variant, role).map((stage) => ({ drill: `${role.sfen} ${stage}` })),
      ...(promoted ? [{ drill: `${promoted.sfen} alone` }] : [])],
  };
}

/** The game's path, in order: its lessons with one lesson per piece of its usual set. */
function lessonsOf(variant: VariantInfo): Lesson[] {
  const data: LessonData[] = (LESSONS as Record<string, LessonData[]>)[variant.name] || [];
  return data.flatMap((lesson) => {
    if (lesson.id === 'pieces') {
      return lessonRoles(variant).filter((r) => !r.promoted_from).map((role) => pieceLesson(variant, role));
    }
    const titleKey = lesson.id === 'capture' && !variant.drops ? 'title-capture-nodrops' : `title-${lesson.id}`;
    return [{ id: lesson.id, chapter: lesson.chapter, title: t(`lesson.${titleKey}`, { game: gameTitle(variant) }), steps: lesson.steps || [] }];
  });
}

/** The lesson an address names: one of the path's, or any unpromoted piece's (an option's
 * piece, such as Tori's owl, has a lesson though the usual set lacks it). */
function findLesson(variant: VariantInfo, id: string): Lesson | undefined {
  const found = lessonsOf(variant).find((l) => l.id === id);
  if (found) return found;
  const role = variant.roles.find((r) => !r.promoted_from && `piece-${pieceSlug(r.name)}` === id);
  return role ? pieceLesson(variant, role) : undefined;
}

const doneKey = (id: string) => `lesson ${id}`;

function isDone(variant: VariantInfo, lesson: Lesson) {
  return (progress(variant.name)[doneKey(lesson.id)] || 0) > 0;
}

/** A piece lesson's stars: the fewest of its drills', none until every drill is done. */
function pieceStars(variant: VariantInfo, lesson: Lesson): number {
  const stars = progress(variant.name);
  const drills = lesson.steps.filter((s) => s.drill).map((s) => stars[s.drill!] || 0);
  return drills.length ? Math.min(...drills) : 0;
}

function pageTitle(variant: VariantInfo, lesson?: Lesson) {
  const path = t('lesson.path-heading', { game: gameTitle(variant) });
  document.title = lesson ? `${lesson.title} · ${path} · Tsubame` : `${path} · Tsubame`;
}

export function learnPage(variantName?: string, lessonId?: string) {
  const variants = store.variants.filter((v) => v.available);
  const variant = variants.find((v) => v.name === variantName) || variants[0];
  ensurePieceStyles(variant);
  if (lessonId === undefined) {
    pathPage(variant, variants, false);
    // A logged-in player's progress comes from the account: the path is drawn again with it,
    // unless the visitor has gone on to another page meanwhile.
    const address = location.pathname;
    syncProgress(variant.name).then((kept) => {
      if (kept && location.pathname === address) pathPage(variant, variants, true);
    });
    return;
  }
  syncProgress(variant.name);
  const lesson = findLesson(variant, lessonId);
  if (!lesson) return notFoundPage();
  return lessonPage(variant, lesson);
}

/** The path: the game's lessons by chapter, each marked when done, and where to go on. */
function pathPage(variant: VariantInfo, variants: VariantInfo[], withAccount: boolean) {
  pageTitle(variant);
  const lessons = lessonsOf(variant);
  const done = lessons.filter((l) => isDone(variant, l)).length;
  const next = lessons.find((l) => !isDone(variant, l));
  const gamePicker = el('select', { 'data-learn-game': '', 'aria-label': t('learn.game') },
    variants.map((v) => el('option', { value: v.name, selected: v === variant }, gameTitle(v))));
  gamePicker.addEventListener('change', () => { navigate(`/learn/${gamePicker.value}`); });
  const chapters = CHAPTERS.map((chapter) => {
    const inChapter = lessons.filter((l) => l.chapter === chapter);
    if (!inChapter.length) return null;
    const items = inChapter.map((lesson) => {
      const finished = isDone(variant, lesson);
      const stars = lesson.role ? pieceStars(variant, lesson) : 0;
      return el('li', { class: `lesson-item${finished ? ' done' : ''}${lesson === next ? ' next' : ''}` },
        el('a', { href: `/learn/${variant.name}/${lesson.id}`, 'data-lesson-link': lesson.id },
          lesson.role ? pieceFace(variant, lesson.role) : null,
          el('span', { class: 'lesson-name' }, lesson.title),
          stars ? el('span', { class: 'lesson-stars', 'aria-label': `${stars}/3` }, '★'.repeat(stars)) : null,
          finished ? el('span', { class: 'lesson-done', 'data-lesson-done': '' }, `✓ ${t('lesson.done-mark')}`) : null));
    });
    return el('section', { class: `panel lesson-chapter chapter-${chapter}`, 'data-chapter': chapter },
      el('h2', {}, t(`lesson.chapter-${chapter}`, { game: gameTitle(variant) })),
      el('ol', { class: chapter === 'pieces' ? 'lesson-list lesson-pieces' : 'lesson-list' }, items));
  });
  app.replaceChildren(el('div', { class: 'learn-path', 'data-learn-path': variant.name, 'data-synced': String(withAccount) },
    el('div', { class: 'panel learn-head' },
      el('h1', {}, t('lesson.path-heading', { game: gameTitle(variant) })),
      el('p', { 'data-path-kept': withAccount ? 'account' : 'browser' }, t(withAccount ? 'lesson.path-intro-account' : 'lesson.path-intro')),
      el('div', { class: 'row' },
        el('label', {}, `${t('learn.game')} `, gamePicker),
        el('span', { class: 'help', 'data-path-done': String(done) }, t('lesson.path-done', { done, count: lessons.length }))),
      next ? el('a', { class: 'button', href: `/learn/${variant.name}/${next.id}`, 'data-path-next': next.id },
        done ? t('lesson.continue-path', { title: next.title }) : t('lesson.start'))
        : el('p', { 'data-path-complete': '' }, t('lesson.path-complete'))),
    ...chapters.filter(Boolean)));
}

/** Paragraphs of a text; a line starting with `•` is an item of a list. */
function paragraphs(text: string) {
  return text.split('\n\n').map((part) => {
    const lines = part.split('\n');
    return lines.every((line) => line.startsWith('•'))
      ? el('ul', {}, lines.map((line) => el('li', {}, line.replace(/^•\s*/, ''))))
      : el('p', {}, part);
  });
}

/** A lesson: its steps one at a time, each (but reading) solved before the next; done when the
 * last is. */
function lessonPage(variant: VariantInfo, lesson: Lesson) {
  pageTitle(variant, lesson);
  const lessons = lessonsOf(variant);
  const index = lessons.findIndex((l) => l.id === lesson.id);
  const following = index >= 0 ? lessons[index + 1] : undefined;
  const royal = royalOf(variant);
  const royalName = royal ? pieceName(royal) : '';
  let board: Board | null = null;
  let stepIndex = 0;
  // Which step the page shows: work begun for an earlier one stops when it comes back.
  let shown = 0;
  const body = el('div', { class: 'lesson-body' });
  const counter = el('p', { class: 'help', 'data-lesson-step': '' });
  const allLessons = el('a', { href: `/learn/${variant.name}`, 'data-all-lessons': '' }, `← ${t('lesson.all-lessons')}`);

  // Above the step; beside the board of a move to find, so that the board has the window's
  // height (and on a phone, above it with the task).
  const head = el('div', { class: 'lesson-head' }, allLessons,
    el('h1', {}, lesson.role ? pieceFace(variant, lesson.role) : null, lesson.title),
    index >= 0 ? el('p', { class: 'help' }, t('lesson.lesson-of', { n: index + 1, count: lessons.length })) : null,
    counter);

  function dropBoard() {
    board?.destroy();
    board = null;
  }

  function actions(...buttons: (HTMLElement | null)[]) {
    return el('div', { class: 'actions' }, ...buttons.filter(Boolean));
  }

  function continueButton() {
    return el('button', { type: 'button', 'data-lesson-continue': '', onclick: () => showStep(stepIndex + 1) }, t('lesson.continue'));
  }

  function finish() {
    saveStars(variant.name, doneKey(lesson.id), 1);
    dropBoard();
    counter.textContent = '';
    body.replaceChildren(el('section', { class: 'panel lesson-step lesson-finished', 'data-lesson-finished': '' },
      el('p', { class: 'lesson-right' }, t('lesson.lesson-done')),
      actions(
        following ? el('a', { class: 'button', href: `/learn/${variant.name}/${following.id}`, 'data-next-lesson': following.id },
          t('lesson.next-lesson', { title: following.title })) : null,
        el('a', { class: 'button secondary', href: `/learn/${variant.name}` }, t('lesson.all-lessons')))));
  }

  function showStep(n: number) {
    shown += 1;
    dropBoard();
    if (head.parentElement !== body.parentElement) body.before(head);
    stepIndex = n;
    if (n >= lesson.steps.length) { finish(); return; }
    counter.textContent = t('lesson.step-of', { n: n + 1, count: lesson.steps.length });
    const step = lesson.steps[n];
    if (step.read) readStep(step.read);
    else if (step.piece) pieceStep(step.piece);
    else if (step.royal) royalStep();
    else if (step.drill) drillStep(step.drill);
    else if (step.task) taskStep(step);
    else if (step.play) playStep();
    // On a phone the step stands under the lesson's heading: bring it into view.
    if (window.innerWidth < 700 && n > 0) body.scrollIntoView({ block: 'start' });
  }

  function readStep(key: string) {
    body.replaceChildren(el('section', { class: 'panel lesson-step lesson-read', 'data-lesson-read': key },
      ...paragraphs(t(`lesson.read-${key}`, { royal: royalName, game: gameTitle(variant) })),
      actions(continueButton())));
  }

  function pieceStep(code: string) {
    const role = variant.roles.find((r) => r.sfen === code);
    if (!role) { showStep(stepIndex + 1); return; }
    const radius = diagramRadius(variant);
    const promoted = role.promotes_to ? variant.roles.find((r) => r.sfen === role.promotes_to) : undefined;
    const card = (r: RoleInfo) => el('div', { class: 'piece-rule', 'data-piece': r.sfen },
      moveDiagram(variant, r, radius), ...powerNotes(r).map((note) => el('p', { class: 'note' }, note)));
    body.replaceChildren(el('section', { class: 'panel lesson-step lesson-piece', 'data-lesson-piece': code },
      el('p', {}, t('lesson.piece-read')),
      diagramLegend(variant),
      card(role),
      promoted ? [el('p', {}, t('lesson.piece-promotes', { piece: pieceName(promoted) })), card(promoted)] : null,
      actions(continueButton())));
  }

  function royalStep() {
    const sfen = variant.start_sfen;
    const position = parseSfen(sfen);
    const royals = new Set(variant.roles.filter((r) => r.royal).map((r) => r.sfen));
    const message = el('p', { class: 'lesson-message', role: 'status', 'data-lesson-message': '' }, t('lesson.task-royal', { royal: royalName }));
    const next = actions();
    let solved = false;
    const grid = tapBoard(variant, sfen, (square, button) => {
      if (solved) return;
      const { file, rank } = { file: Number(square.match(/^\d+/)?.[0]), rank: square.charCodeAt(square.length - 1) - 97 };
      const piece = position.squares[rank]?.[variant.files - file];
      if (piece && piece.color === 'sente' && royals.has(piece.code)) {
        solved = true;
        button.classList.add('right');
        message.className = 'lesson-message right';
        message.textContent = t('lesson.right-royal', { royal: royalName });
        next.replaceChildren(continueButton());
      } else {
        button.classList.add('wrong');
        setTimeout(() => button.classList.remove('wrong'), 500);
        message.className = 'lesson-message wrong';
        message.textContent = t('lesson.wrong-royal', { royal: royalName });
      }
    });
    body.replaceChildren(el('section', { class: 'panel lesson-step lesson-royal', 'data-lesson-royal': '' }, message, grid, next));
  }

  async function drillStep(key: string) {
    const mine = shown;
    const [code, stage] = key.split(' ') as [string, Stage];
    const role = variant.roles.find((r) => r.sfen === code);
    body.replaceChildren(el('section', { class: 'panel lesson-step' }, el('p', { class: 'help' }, t('learn.setting-up'))));
    let drill: Drill | null;
    try {
      drill = role ? await buildDrill(variant, role, stage) : null;
    } catch (e) {
      // The drill could not be set up now: said, and offered again; the lesson does not go on.
      if (mine !== shown) return;
      body.replaceChildren(el('section', { class: 'panel lesson-step' },
        el('p', { class: 'error', 'data-lesson-error': '' }, t('lesson.no-position', { error: errorText(e) })),
        actions(el('button', { type: 'button', 'data-lesson-retry': '', onclick: () => showStep(stepIndex) }, t('lesson.try-again')))));
      return;
    }
    if (mine !== shown) return;
    // A drill the piece does not have (no square a rule bars): the lesson goes on without it.
    if (!drill || !role) { showStep(stepIndex + 1); return; }
    const next = actions();
    const again = el('button', { type: 'button', class: 'secondary', 'data-learn-again': '', onclick: () => showStep(stepIndex) }, t('learn.again'));
    body.replaceChildren(el('section', { class: 'panel lesson-step lesson-drill' },
      el('h2', {}, `${title(pieceName(role))} · ${stageName(stage)}`),
      drillNode(variant, drill, () => next.replaceChildren(continueButton(), again)), next));
  }

  async function taskStep(step: Step) {
    const mine = shown;
    const before = step.moves || [];
    const subject = step.subject ? variant.roles.find((r) => r.sfen === step.subject) : undefined;
    const taskWords = () => t(`lesson.task-${step.task}`, { royal: royalName, piece: subject ? pieceName(subject) : '' });
    const message = el('p', { class: 'lesson-message', role: 'status', 'data-lesson-message': '' }, taskWords());
    const next = actions();
    let record: ReplayedGame;
    try {
      record = await api<ReplayedGame>('/api/replay', { variant: variant.name, options: '', sfen: step.sfen, moves: before });
    } catch (e) {
      if (mine !== shown) return;
      body.replaceChildren(el('section', { class: 'panel lesson-step' },
        el('p', { class: 'error' }, t('lesson.no-position', { error: errorText(e) }))));
      return;
    }
    if (mine !== shown) return;
    const mover = record.sfen.split(' ')[1] === 'w' ? 'gote' : 'sente';
    let busy = false;
    const taskBoard = new Board({ onMove: (usi) => tryMove(usi) });
    board = taskBoard;
    taskBoard.flipped = mover === 'gote';
    const reset = () => {
      taskBoard.setState({ variant: variant.name, sfen: record.sfen, legal: record.legal_moves,
        lastMove: before[before.length - 1] || null, check: record.checks[record.checks.length - 1], interactive: true });
      message.className = 'lesson-message';
      delete message.dataset.verdict;
      message.textContent = taskWords();
      next.replaceChildren();
    };
    async function tryMove(usi: string) {
      if (busy) return;
      busy = true;
      let after: ReplayedGame;
      try {
        after = await api<ReplayedGame>('/api/replay',
          { variant: variant.name, options: '', sfen: step.sfen, moves: [...before, usi] });
      } catch (e) {
        busy = false;
        if (mine !== shown) return;
        // The move could not be judged: the position as it was, and why.
        reset();
        message.className = 'lesson-message wrong';
        message.textContent = errorText(e);
        return;
      }
      busy = false;
      if (mine !== shown) return;
      taskBoard.setState({ variant: variant.name, sfen: after.sfen, legal: [], lastMove: usi,
        check: after.checks[after.checks.length - 1], interactive: false });
      // A task names its goal (lessons.json, checked by the server's tests).
      const verdict = judge(step.goal!, usi, after, mover);
      message.className = `lesson-message ${verdict.right ? 'right' : 'wrong'}`;
      message.dataset.verdict = verdict.right ? 'right' : 'wrong';
      message.textContent = verdict.words;
      next.replaceChildren(verdict.right ? continueButton()
        : el('button', { type: 'button', 'data-lesson-retry': '', onclick: reset }, t('lesson.try-again')));
    }
    body.replaceChildren(el('div', { class: 'play lesson-play', 'data-lesson-task': step.task }, taskBoard.root,
      el('div', { class: 'side-area' }, head, el('section', { class: 'panel lesson-step' }, message, next))));
    reset();
  }

  /** Whether a move does what the exercise asks, and the words for it. */
  function judge(goal: Goal, usi: string, after: ReplayedGame, mover: string): { right: boolean, words: string } {
    const removed: string[] = after.removed[after.removed.length - 1] || [];
    const check = Boolean(after.gives_check[after.gives_check.length - 1]);
    const outcome = after.outcome;
    const right = (ok: boolean, wrong: string, params = {}) => ({
      right: ok, words: ok ? t(goal.kind === 'mate' ? 'lesson.right-mate' : goal.kind === 'safe' ? 'lesson.right-safe' : 'lesson.right')
        : t(`lesson.${wrong}`, { royal: royalName, ...params }) });
    switch (goal.kind) {
      case 'capture': {
        const count = goal.count || 1;
        return right(removed.length >= count, count > 1 ? 'wrong-capture-count' : 'wrong-capture', { removed: removed.length, count });
      }
      // A goal to capture on a square names it.
      case 'capture-on': return right(removed.includes(goal.on!), 'wrong-capture-on', { square: goal.on! });
      case 'check': return right(check, 'wrong-check');
      case 'drop': return usi.includes('*') ? right(!goal.check || check, 'wrong-drop-check') : right(false, 'wrong-drop');
      case 'promote': return right(usi.endsWith('+'), 'wrong-promote');
      case 'mate': return right(outcome?.winner === mover && outcome?.reason === 'checkmate', 'wrong-mate');
      default: return right(!outcome || outcome.winner === mover, 'wrong-safe');
    }
  }

  function playStep() {
    // Nothing here to solve: having come this far is the lesson.
    saveStars(variant.name, doneKey(lesson.id), 1);
    const error = el('p', { class: 'error', 'data-lesson-error': '' });
    body.replaceChildren(el('section', { class: 'panel lesson-step lesson-play-links' },
      actions(
        el('a', { class: 'button', href: `/puzzles/${variant.name}?theme=beginner`, 'data-lesson-puzzles': '' }, t('lesson.puzzles-link')),
        el('button', { type: 'button', class: 'secondary', 'data-lesson-computer': '', onclick: async () => {
          error.textContent = '';
          try { await playComputer(variant.name, 1); } catch (e) { error.textContent = errorText(e); }
        } }, t('lesson.computer-link'))),
      error));
  }

  app.replaceChildren(el('div', { class: 'lesson', 'data-lesson': lesson.id }, head, body));
  // Leaving the page stops what its steps were waiting for.
  page.cleanup = () => { shown += 1; dropBoard(); };
  page.rerender = () => board?.render();
  showStep(0);
}
