// The game page: board, clocks, moves, offers, chat and the game's socket; joining by invite.
// The page's state and its changes are the controller's (gamectrl.ts), the panel and clocks
// views of it (gameview.ts); here the page is put together and drawn.

import { myName, refreshAccount } from './account';
import { api, errorText } from './api';
import type { SeatGrant, StoredGameRecord } from './api-types';
import { Board } from './board';
import { el } from './dom';
import { gameAnalysisNode } from './evalgraph';
import type { Judged, MoveReview } from './evalgraph';
import { GameCtrl } from './gamectrl';
import type { GameMessage, Step } from './gamectrl';
import { chatPanel, exportNode, keepInView, moveListNode, REPLAY_BUTTONS, showTurnIcon } from './gameparts';
import { clockView, gameTitle, panelView } from './gameview';
import { t } from './i18n';
import { MistakeTrainer, mistakesOf } from './mistakes';
import { app, sound } from './prefs';
import { navigate, page } from './state';
import type { Side } from './types';
import { tokenFor } from './util';
import { patch } from './view';
import type { VNode } from './view';

export async function gamePage(id: string) {
  const token = tokenFor(id);
  const board = new Board({
    onMove: (usi) => (ctrl.trainer ? ctrl.trainer.move(usi) : ctrl.send({ type: 'move', move: usi })),
    onFlip: () => show(),
  });
  const moveBox = el('div', { class: 'panel moves-panel' });
  const extra = el('div');
  const chat = chatPanel(id, (text) => ctrl.send({ type: 'chat', text, id: 'chat' }));
  // The panel of status, clocks, result and actions is a view of the controller
  // (gameview.ts), patched in place on every change and clock tick.
  const panelHost = el('div');
  let panel: VNode | HTMLElement = panelHost;
  // The players' names and clocks, above and below the board.
  let topClock: VNode | HTMLElement = board.topBar.appendChild(el('div'));
  let bottomClock: VNode | HTMLElement = board.bottomBar.appendChild(el('div'));
  const sideArea = el('div', { class: 'side-area' }, panelHost, moveBox, chat.root, extra);
  app.replaceChildren(el('div', { class: 'play' }, board.root, sideArea));
  const learnBox = el('div', { class: 'learn-offer' });
  // The finished game's judged moves, and the seat the learning offer was made for: a stored
  // analysis can be judged before the socket's answer to the token names this page's seat,
  // so the offer is made again once the seat is known.
  let judgedGame: Judged | null = null;
  let offeredFor: Side | null = null;

  const ctrl: GameCtrl = new GameCtrl(id, token, {
    show: () => show(),
    render: () => render(),
    missing: () => showMissing(),
    announced,
    chat: (message) => {
      if (message.type === 'chat_history') chat.history(message.room, message.lines);
      else chat.add(message.line);
    },
    sessionEnded: () => refreshAccount(),
    recordLoaded,
    navigate: (path) => navigate(path),
  });

  function render() {
    panel = patch(panel, panelView(ctrl));
    const game = ctrl.game;
    if (!game) return;
    const top = board.flipped ? 'sente' : 'gote';
    topClock = patch(topClock, clockView(ctrl, game, top));
    bottomClock = patch(bottomClock, clockView(ctrl, game, top === 'sente' ? 'gote' : 'sente'));
  }

  /** What a change of the game does once: the account's count of games waiting, the sounds,
   * the way back to the arena. */
  function announced(message: GameMessage) {
    const next = message.game;
    // A move changes how many games wait for this player.
    if (myName() && (message.type === 'move' || message.type === 'end')) refreshAccount();
    // A tournament's player goes back to the arena, where the next game is paired.
    if (message.type === 'end' && next.tournament_id && ctrl.seat) {
      const arena = `/tournament/${next.tournament_id}`;
      const here = location.pathname;
      window.setTimeout(() => { if (location.pathname === here) navigate(arena); }, 2500);
    }
    if (message.type === 'end') sound('end');
    else if (message.type === 'move' && next.last) {
      sound(next.check_square ? 'check' : next.last.removed?.length ? 'capture' : 'move');
    }
  }

  /** Says that the game does not exist, in place of the board. */
  function showMissing() {
    clearInterval(timer);
    document.title = t('game.no-game-title');
    app.replaceChildren(el('div', { class: 'panel', 'data-missing-game': '' },
      el('h2', {}, t('game.no-game')),
      el('p', {}, t('game.no-game-text', { id })),
      el('p', {}, el('a', { href: '/' }, t('game.back-to-lobby')))));
  }

  /** A finished game can be analysed; one in play is not (the engine would help a player). */
  function recordLoaded(record: StoredGameRecord) {
    extra.replaceChildren(ctrl.game?.status === 'finished'
      ? el('div', { class: 'panel' }, el('h2', {}, t('game.analysis')),
        gameAnalysisNode(record, (ply: number) => { ctrl.viewPly = ply; show(); },
          (judged: Judged) => { ctrl.marks = judged.marks; ctrl.better = judged.better; offerLearning(judged); show(); }, id),
        learnBox)
      : '', exportNode(record, id));
  }

  /** Offers the player of the game to learn from their own marked moves. */
  function offerLearning(judged: Judged) {
    judgedGame = judged;
    offeredFor = ctrl.seat;
    const record = ctrl.record;
    if (!ctrl.seat || !record) return;
    const items = mistakesOf(record, judged.reviews, ctrl.seat);
    learnBox.replaceChildren(items.length
      ? el('button', { type: 'button', 'data-action': 'learn-mistakes', onclick: () => startLearning(record, items, judged.evals) },
        t('analysis.learn'))
      : el('p', { class: 'help', 'data-learn-none': '' }, t('analysis.learn-none')));
  }

  function startLearning(record: StoredGameRecord, items: MoveReview[], evals: number[]) {
    ctrl.trainer?.root.remove();
    const stop = () => { ctrl.trainer?.root.remove(); ctrl.trainer = null; show(); };
    // The move list follows the position shown.
    const follow = () => { const drill = ctrl.trainer?.view(); if (drill) ctrl.viewPly = drill.ply; show(); };
    ctrl.trainer = new MistakeTrainer(record, items, evals, follow, stop);
    // First in the side area: below the board on a phone, beside it on a laptop.
    sideArea.prepend(ctrl.trainer.root);
    ctrl.trainer.root.scrollIntoView?.({ block: 'nearest' });
  }

  // Keys as on the play sites: arrows through the moves, Home/End, `f` to flip.
  const STEP_KEYS: Record<string, Step> = { Home: 0, ArrowLeft: 1, ArrowRight: 2, End: 3 };
  function onKey(event: KeyboardEvent) {
    const target = event.target as Element | null;
    if (target?.closest?.('input, textarea, select') || event.ctrlKey || event.metaKey || event.altKey) return;
    const where = STEP_KEYS[event.key];
    if (where !== undefined) {
      event.preventDefault();
      ctrl.step(where);
    } else if (event.key === 'f') {
      board.flipped = !board.flipped;
      show();
    }
  }
  document.addEventListener('keydown', onKey);

  function show() {
    const game = ctrl.game;
    if (!game) return;
    if (judgedGame && ctrl.seat !== offeredFor) offerLearning(judgedGame);
    const record = ctrl.record;
    const seat = ctrl.seat;
    const moves = game.moves ?? [];
    const live = ctrl.viewPly === null || ctrl.viewPly === game.ply;
    const replaying = !live && record;
    const myTurn = ctrl.myTurn;
    if (seat === 'gote' && board.flippedFor !== id) { board.flipped = true; board.flippedFor = id; }
    const ply = live ? game.ply : ctrl.viewPly!;
    // The bars first: the board's size leaves room for them.
    chat.setGame(game, seat);
    render();
    const drill = ctrl.trainer?.view();
    if (drill && record) {
      board.setState({ variant: game.variant, sfen: record.positions[drill.ply], legal: drill.legal,
        lastMove: drill.ply > 0 ? record.usi[drill.ply - 1] : null, check: record.checks[drill.ply],
        interactive: drill.interactive });
      board.setArrow(drill.arrow);
    } else {
      board.setState({
        variant: game.variant,
        sfen: replaying ? record.positions[ply] : game.sfen,
        legal: live && myTurn ? game.legal_moves : [],
        lastMove: ply > 0 ? moves[ply - 1]?.usi : null,
        check: live ? game.check_square ?? null : replaying ? record.checks[ply] : null,
        interactive: live && myTurn,
        premoveFor: live && seat && game.status === 'playing' && !myTurn ? seat : null,
      });
      board.setArrow(replaying || game.status === 'finished' ? ctrl.better.get(ply) : null);
    }
    const title = gameTitle(game);
    const replayControls = el('div', { class: 'actions' },
      REPLAY_BUTTONS.map(([label, words], i) =>
        el('button', { class: 'secondary', 'data-replay': i, 'aria-label': words, title: words, onclick: () => ctrl.step(i as Step) }, label)));
    document.title = myTurn ? t('game.page-title-your-move', { game: title }) : t('game.page-title', { game: title });
    showTurnIcon(myTurn);
    moveBox.replaceChildren(el('h2', {}, t('game.moves')),
      moveListNode(moves.map((m) => ({ ...m, judgement: ctrl.marks.get(m.ply) })), ply,
        (p: number) => ctrl.showPly(p), () => show()),
      replayControls);
    keepInView(moveBox);
  }

  ctrl.connect();
  const timer = setInterval(() => { if (ctrl.tick()) sound('low-time'); }, 200);
  page.playing = () => (ctrl.seat && ctrl.game?.status === 'playing' ? id : null);
  page.cleanup = () => {
    ctrl.close(); clearInterval(timer); board.destroy();
    document.removeEventListener('keydown', onKey);
    document.title = t('game.site-title');
    showTurnIcon(false);
  };
  page.rerender = show;
}

export async function joinPage(id: string, invite: string) {
  try {
    const grant = await api<SeatGrant>(`/api/games/${id}/join`, { invite });
    localStorage.setItem(`tsubame.token.${id}`, grant.token);
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, errorText(e)));
    return;
  }
  navigate(`/game/${id}`, true);
}
