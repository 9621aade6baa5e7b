// The game page: board, clocks, moves, offers, chat and the game's socket; joining by invite.

import { reasonText } from './player';
import { clockAt, formatClock, TENTHS_BELOW_MS } from './clock.js';
import { page, navigate } from './state';
import { isAccountName, myName, playerNode, refreshAccount } from './account';
import { api, refusalText } from './api';
import { Board } from './board';
import { el } from './dom';
import { h, patch, toVNode } from './view';
import type { VNode } from './view';
import { gameAnalysisNode } from './evalgraph';
import type { Judged } from './evalgraph';
import { MistakeTrainer, mistakesOf } from './mistakes';
import { chatPanel, clockText, exportNode, formatDays, keepInView, moveListNode, REPLAY_BUTTONS, showTurnIcon } from './gameparts';
import { app, sound } from './prefs';
import { tokenFor, variantInfo } from './util';
import { gameTitle as variantTitle, sideName, t } from './i18n';


/** Why a game ended, in words: the server's word for it (`checkmate`, `time`...), in Japanese
 * the catalogue's; a word the catalogue lacks as the server sent it. */

export async function gamePage(id) {
  const token = tokenFor(id);
  const board = new Board({ onMove: (usi) => (trainer ? trainer.move(usi) : send({ type: 'move', move: usi })), onFlip: () => show() });
  const moveBox = el('div', { class: 'panel moves-panel' });
  const extra = el('div');
  const chat = chatPanel(id, (text) => send({ type: 'chat', text, id: 'chat' }));
  // The panel of status, clocks, result and actions is a view of the game (`panelView`),
  // patched in place on every change and clock tick.
  const panelHost = el('div');
  let panel: VNode | HTMLElement = panelHost;
  // The players' names and clocks, above and below the board.
  let topClock: VNode | HTMLElement = board.topBar.appendChild(el('div'));
  let bottomClock: VNode | HTMLElement = board.bottomBar.appendChild(el('div'));
  const sideArea = el('div', { class: 'side-area' }, panelHost, moveBox, chat.root, extra);
  app.replaceChildren(el('div', { class: 'play' }, board.root, sideArea));

  let game = null;
  let seat = null;
  let received = 0;
  let viewPly = null;
  let record = null;
  let socket = null;
  let closed = false;
  let timer = null;

  /** The analysis's mark of each move, by ply, once the finished game has been analysed. */
  let marks = new Map<number, string>();
  /** The analysis's better move at each position before a marked move, by ply. */
  let better = new Map<number, string>();
  /** Learning from one's mistakes in the analysed game, while the player does. */
  let trainer: MistakeTrainer | null = null;
  let lost = false;
  let restoredTimer = null;
  let confirmingResign = false;
  /** The socket's state as shown: nothing, lost, or restored (for three seconds). */
  let connectionState: '' | 'lost' | 'restored' = '';
  /** The last refusal, until the next message is sent. */
  let errorText = '';

  function render() {
    panel = patch(panel, panelView());
    if (!game) return;
    const top = board.flipped ? 'sente' : 'gote';
    topClock = patch(topClock, clockView(top));
    bottomClock = patch(bottomClock, clockView(top === 'sente' ? 'gote' : 'sente'));
  }

  function send(message) {
    errorText = '';
    render();
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    else showLost();
  }

  function showLost() {
    lost = true;
    clearTimeout(restoredTimer);
    connectionState = 'lost';
    render();
  }

  function showRestored() {
    if (!lost) return;
    lost = false;
    connectionState = 'restored';
    render();
    restoredTimer = setTimeout(() => { connectionState = ''; render(); }, 3000);
  }

  /** Says that the game does not exist, in place of the board, and stops reconnecting. */
  function showMissing() {
    closed = true;
    clearInterval(timer);
    document.title = t('game.no-game-title');
    app.replaceChildren(el('div', { class: 'panel', 'data-missing-game': '' },
      el('h2', {}, t('game.no-game')),
      el('p', {}, t('game.no-game-text', { id })),
      el('p', {}, el('a', { href: '/' }, t('game.back-to-lobby')))));
  }

  function connect() {
    if (closed) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/api/games/${id}/ws`);
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'hello') { seat = message.seat; show(); }
      else if (message.type === 'chat_history') chat.history(message.room, message.lines);
      else if (message.type === 'chat') chat.add(message.line);
      else if (message.type === 'error') {
        errorText = refusalText(message);
        // The board showed the refused move already: put the position back.
        show();
      }
      else if (message.game) {
        // A move changes how many games wait for this player.
        if (myName() && (message.type === 'move' || message.type === 'end')) refreshAccount();
        // A tournament's player goes back to the arena, where the next game is paired.
        if (message.type === 'end' && message.game.tournament_id && seat) {
          const arena = `/tournament/${message.game.tournament_id}`;
          const here = location.pathname;
          window.setTimeout(() => { if (location.pathname === here) navigate(arena); }, 2500);
        }
        if (message.type === 'end') sound('end');
        else if (message.type === 'move' && message.game.last) {
          sound(message.game.check_square ? 'check' : message.game.last.removed?.length ? 'capture' : 'move');
        }
        // Both players agreed to a rematch while this page was open: go to it, with this
        // seat's token, which holds the swapped seat there.
        if (message.game.rematch_id && game && !game.rematch_id && seat) {
          if (token) localStorage.setItem(`tsubame.token.${message.game.rematch_id}`, token);
          navigate(`/game/${message.game.rematch_id}`);
          return;
        }
        const moves = message.game.moves || [...(game?.moves || []), ...(message.game.last ? [message.game.last] : [])];
        game = { ...message.game, moves: moves.filter((m, i, all) => all.findIndex((x) => x.ply === m.ply) === i) };
        received = performance.now();
        if (game.status === 'finished' && !record) loadRecord();
        show();
      }
    };
    // The seat's token goes in a message, never in the URL, where proxies log it.
    socket.onopen = () => {
      if (token) socket.send(JSON.stringify({ type: 'auth', token, id: 'auth' }));
      showRestored();
    };
    socket.onclose = async (event) => {
      if (closed) return;
      // The session ended (logged out, here or elsewhere): the socket reconnects as whoever
      // the browser is now, and the top bar says so.
      if (event.code === 4001) refreshAccount();
      // A socket refused because the game does not exist is not a lost connection.
      const response = await fetch(`/api/games/${id}`).catch(() => null);
      if (closed) return;
      if (response?.status === 404) { showMissing(); return; }
      showLost();
      setTimeout(connect, 1000);
    };
  }

  const learnBox = el('div', { class: 'learn-offer' });
  /** Offers the player of the game to learn from their own marked moves. */
  function offerLearning(judged: Judged) {
    if (!seat) return;
    const items = mistakesOf(record, judged.reviews, seat);
    learnBox.replaceChildren(items.length
      ? el('button', { type: 'button', 'data-action': 'learn-mistakes', onclick: () => startLearning(items, judged.evals) }, t('analysis.learn'))
      : el('p', { class: 'help', 'data-learn-none': '' }, t('analysis.learn-none')));
  }

  function startLearning(items, evals: number[]) {
    trainer?.root.remove();
    const stop = () => { trainer?.root.remove(); trainer = null; show(); };
    // The move list follows the position shown.
    const follow = () => { const drill = trainer?.view(); if (drill) viewPly = drill.ply; show(); };
    trainer = new MistakeTrainer(record, items, evals, follow, stop);
    // First in the side area: below the board on a phone, beside it on a laptop.
    sideArea.prepend(trainer.root);
    trainer.root.scrollIntoView?.({ block: 'nearest' });
  }

  async function loadRecord() {
    try {
      record = await api(`/api/games/${id}/record`);
      // A finished game can be analysed; one in play is not (the engine would help a player).
      extra.replaceChildren(game?.status === 'finished'
        ? el('div', { class: 'panel' }, el('h2', {}, t('game.analysis')), gameAnalysisNode(record, (p) => { viewPly = p; show(); },
          (judged) => { marks = judged.marks; better = judged.better; offerLearning(judged); show(); }, id), learnBox)
        : '', exportNode(record, id));
      show();
    } catch (e) {
      errorText = e.message;
      render();
    }
  }

  function clockView(side): VNode {
    const view = game[`${side}_clock`];
    const running = game.clock_running === side;
    const control = game.time_control;
    const { remaining, period, periodsLeft } =
      clockAt(view, control, running ? performance.now() - received : 0);
    let main = control.kind === 'unlimited' ? '∞'
      : control.kind === 'correspondence' ? formatDays(remaining) : formatClock(remaining);
    let sub = '';
    // What this player has before the flag falls on this move.
    let shown = remaining;
    if (control.kind === 'byoyomi') {
      if (remaining <= 0 && periodsLeft > 0) {
        main = t('game.clock-seconds', { seconds: period < TENTHS_BELOW_MS ? formatClock(period).slice(3) : Math.ceil(period / 1000) });
        shown = period;
      }
      sub = t('game.clock-byoyomi', { periods: periodsLeft, seconds: control.period_ms / 1000 });
    } else if (control.kind === 'fischer') sub = t('game.clock-increment', { seconds: control.increment_ms / 1000 });
    else if (control.kind === 'correspondence') sub = `${clockText(control)}`;
    const low = control.kind !== 'unlimited' && shown < TENTHS_BELOW_MS;
    return h('div', { class: { clock: true, running, low }, attrs: { 'data-clock': side } }, [
      h('div.p.who', [`${side === 'sente' ? '☗' : '☖'} `, toVNode(playerNode(game, side)), seat === side ? t('game.clock-you') : '']),
      h('div.p.sub', sub), h('div.t', main)]);
  }

  // Between people, before each side's first move: no clock runs, but the game is aborted when
  // the side to move lets its first-move time pass.
  function firstMoveText(): string {
    if (!game || game.first_move_ms_left == null || game.status !== 'playing') return '';
    const left = Math.max(0, game.first_move_ms_left - (performance.now() - received));
    const seconds = Math.ceil(left / 1000);
    // In an arena the first move not made loses the game instead of aborting it.
    const area = game.tournament_id ? 'arena' : 'game';
    if (seat === game.side_to_move) return t(`${area}.first-move-you`, { seconds });
    return t(`${area}.first-move-side`, { side: game.side_to_move === 'gote' ? t('frame.Gote') : t('frame.Sente'), seconds });
  }

  /** The game's title: its name, and whether it is rated. */
  function gameTitle(): string {
    const name = variantTitle(variantInfo(game.variant), game.variant);
    return game.rated ? t('game.title-rated', { game: name }) : name;
  }

  function statusText(): string {
    if (!game) return '';
    const title = gameTitle();
    const myTurn = game.status === 'playing' && seat === game.side_to_move;
    if (game.status === 'waiting' && game.challenge_to) {
      return seat ? t('game.challenge-waiting', { game: title, name: game.challenge_to })
        : t('game.challenge-to', { game: title, name: game.challenge_to });
    }
    return game.status === 'waiting' ? t('game.status-waiting', { game: title })
      : game.status === 'finished' ? t('game.status-over', { game: title })
        : `${t('game.status-to-move', { game: title, side: sideName(game.side_to_move) })}${myTurn ? t('game.status-your-move') : ''}${game.check_square ? t('game.status-check') : ''}`;
  }

  /** The result, and the rematch and draw offers with their answers. */
  function resultViews(): VNode[] {
    const out: VNode[] = [];
    if (!game) return out;
    if (game.result) {
      // The winner by name as well as side.
      const winner = game.result.winner;
      const winnerName = winner ? game[`${winner}_name`] : null;
      const who = !winner ? t('game.no-winner')
        : winnerName ? t('game.wins-named', { name: winnerName, side: sideName(winner) }) : t('game.wins', { side: sideName(winner) });
      out.push(h('div.result', { attrs: { 'data-result': game.result.reason } }, t('game.result', { who, reason: reasonText(game.result.reason) })));
      // A player of a game between people reads their own result too, as against the computer.
      const people = game.sente_player === 'human' && game.gote_player === 'human';
      if (people && seat && !['aborted', 'declined'].includes(game.result.reason)) {
        const mine = !winner ? 'draw' : winner === seat ? 'won' : 'lost';
        out.push(h('strong.personal-end', { attrs: { 'data-personal-end': mine } },
          t(mine === 'won' ? 'game.you-won' : mine === 'lost' ? 'game.you-lost' : 'game.you-drew')));
      }
    }
    // A game against the computer ends with the player's own result in words, and the way to
    // the next game: the same again, or a new one from the home page.
    const computerSide = game.sente_player === 'engine' ? 'sente' : game.gote_player === 'engine' ? 'gote' : null;
    if (game.status === 'finished' && game.result && game.result.reason !== 'aborted'
      && seat && computerSide && computerSide !== seat) {
      const words = !game.result.winner ? t('game.computer-draw') : game.result.winner === seat ? t('game.computer-won') : t('game.computer-lost');
      out.push(h('div.computer-end', { attrs: { 'data-computer-end': !game.result.winner ? 'draw' : game.result.winner === seat ? 'won' : 'lost' } }, [
        h('strong.computer-end-words', words),
        h('div.actions', [
          h('button', { attrs: { type: 'button', 'data-action': 'play-again' }, on: { click: () => playAgain() } }, t('game.play-again')),
          h('a.button.secondary', { attrs: { href: '/', 'data-action': 'new-game' } }, t('game.new-game')),
        ]),
      ]));
    }
    const betweenPeople = game.sente_player === 'human' && game.gote_player === 'human';
    if (game.status === 'finished' && betweenPeople) {
      if (game.rematch_id) {
        out.push(h('div', { attrs: { 'data-rematch-link': game.rematch_id } }, [t('game.rematch-label'), h('a', { attrs: { href: `/game/${game.rematch_id}` } }, t('game.rematch-open'))]));
      } else if (game.rematch_offer && game.rematch_offer !== seat) {
        out.push(h('div', { attrs: { 'data-rematch-offer': game.rematch_offer } }, [
          t('game.rematch-wants', { name: game[`${game.rematch_offer}_name`] || sideName(game.rematch_offer) }),
          seat ? h('button', { attrs: { 'data-action': 'rematch-accept' }, on: { click: () => send({ type: 'rematch', action: 'accept' }) } }, t('game.accept')) : null,
          seat ? h('button.secondary', { attrs: { 'data-action': 'rematch-decline' }, on: { click: () => send({ type: 'rematch', action: 'decline' }) } }, t('game.decline')) : null]));
      } else if (seat) {
        out.push(game.rematch_offer === seat
          ? h('div', { attrs: { 'data-rematch-offered': '' } }, t('game.rematch-offered'))
          : h('button', { attrs: { 'data-action': 'rematch' }, on: { click: () => send({ type: 'rematch', action: 'offer' }) } }, t('game.rematch')));
      }
    }
    // After a game between two players with accounts, either may challenge the other again,
    // with other settings than a rematch's.
    const opponentSide = seat === 'sente' ? 'gote' : 'sente';
    const opponentName = seat && game[`${opponentSide}_name`];
    if (game.status === 'finished' && betweenPeople && seat && opponentName && myName()
      && isAccountName(opponentName, game[`${opponentSide}_player`])
      && game.result?.reason !== 'declined' && game.result?.reason !== 'aborted') {
      out.push(h('a.challenge-link', { attrs: { href: `/@/${encodeURIComponent(opponentName)}?challenge`, 'data-action': 'challenge-opponent' } },
        t('game.challenge-opponent', { name: opponentName })));
    }
    if (game.tournament_id) {
      out.push(h('a.arena-back', { attrs: { href: `/tournament/${game.tournament_id}`, 'data-arena-link': game.tournament_id } },
        game.status === 'finished' ? `← ${t('arena.back')}` : t('arena.this-arena')));
    }
    for (const side of ['sente', 'gote']) {
      if (game[`${side}_berserk`]) out.push(h('div.berserk-mark', { attrs: { 'data-berserk': side } }, `⚡ ${t('arena.berserked')} (${sideName(side)})`));
    }
    if (game.draw_offer && game.draw_offer !== seat) {
      out.push(h('div', [t('game.draw-offer', { side: sideName(game.draw_offer) }),
        seat ? h('button', { on: { click: () => send({ type: 'draw', action: 'accept' }) } }, t('game.accept')) : null,
        seat ? h('button.secondary', { on: { click: () => send({ type: 'draw', action: 'decline' }) } }, t('game.decline')) : null]));
    }
    return out;
  }

  /** Halves this player's main time in a tournament's game, for a point more if they win. */
  async function berserk() {
    try {
      await api(`/api/games/${id}/berserk`, { token: token || undefined });
    } catch (e) {
      errorText = e.message;
      render();
    }
  }

  /** A new game against the computer with this one's game, rules, level, clock and side. */
  async function playAgain() {
    if (!game || !seat) return;
    try {
      const grant = await api('/api/games', {
        variant: game.variant, options: game.options, opponent: 'engine', level: game.engine_level,
        side: seat, clock: game.time_control,
      });
      localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
      navigate(`/game/${grant.game_id}`);
    } catch (e) {
      errorText = e.message;
      render();
    }
  }

  /** What the seat may do now: abort, offer a draw, resign (asked again first); in a
   * tournament, berserk before one's first move instead of abort. */
  function actionViews(): VNode[] {
    const out: VNode[] = [];
    if (!game || !seat || game.status === 'finished') return out;
    const ownMoves = game.ply === 0 ? 0 : game.ply === 1 ? Number(game.side_to_move !== seat) : 1;
    if (game.tournament_id && game.status === 'playing' && ownMoves === 0 && !game[`${seat}_berserk`]
      && (game.time_control as any).main_ms >= 2000) {
      out.push(h('button', { attrs: { 'data-action': 'berserk', title: t('arena.berserk-help') }, on: { click: () => berserk() } }, `⚡ ${t('arena.berserk')}`));
    }
    if (game.ply < 2 && !game.tournament_id) out.push(h('button.secondary', { attrs: { 'data-action': 'abort' }, on: { click: () => send({ type: 'abort' }) } }, t('game.abort')));
    if (game.status === 'playing') {
      // A draw is agreed once each side has moved; before that the game is aborted.
      if (game.ply >= 2) out.push(h('button.secondary', { attrs: { 'data-action': 'draw' }, on: { click: () => send({ type: 'draw', action: 'offer' }) } }, t('game.offer-draw')));
      out.push(confirmingResign
        ? h('span.confirm', { attrs: { 'data-confirm': 'resign' } }, [t('game.resign-confirm'),
          h('button', { attrs: { 'data-action': 'resign-yes' }, on: { click: () => { confirmingResign = false; send({ type: 'resign' }); } } }, t('game.resign-yes')),
          h('button.secondary', { attrs: { 'data-action': 'resign-no' }, on: { click: () => { confirmingResign = false; show(); } } }, t('game.resign-no'))])
        : h('button', { attrs: { 'data-action': 'resign' }, on: { click: () => { confirmingResign = true; show(); } } }, t('game.resign')));
    }
    return out;
  }

  function inviteViews(): (VNode | string)[] {
    const invite = localStorage.getItem(`tsubame.invite.${id}`);
    if (!game || game.status !== 'waiting' || !invite) return [];
    return [t('game.invite-link'), h('code', `${location.origin}/join/${id}/${invite}`)];
  }

  /** The panel: status, connection, the first-move time, the result and offers, the
   * actions, the last refusal, the invite. The clocks are the board's bars. */
  function panelView(): VNode {
    const connectionText = connectionState === 'lost' ? t('game.connection-lost')
      : connectionState === 'restored' ? t('game.connection-restored') : '';
    return h('div.panel', [
      h('div.status', { attrs: { 'data-status': '' } }, statusText()),
      h('div', { class: { connection: true, lost: connectionState === 'lost', restored: connectionState === 'restored' }, attrs: { 'data-connection': '' } }, connectionText),
      h('div.first-move', { attrs: { 'data-first-move': '' } }, firstMoveText()),
      h('div', resultViews()),
      h('div.actions', actionViews()),
      h('div.error', { attrs: { 'data-error': '' } }, errorText),
      h('div.invite', inviteViews()),
    ]);
  }

  let lowTimeWarned = false;

  function tick() {
    if (!game) return;
    // Once a game, when the player's own running clock goes under ten seconds.
    if (!lowTimeWarned && seat && game.clock_running === seat && game.time_control.kind !== 'unlimited') {
      const { remaining, period, periodsLeft } = clockAt(game[`${seat}_clock`], game.time_control, performance.now() - received);
      const left = remaining > 0 || periodsLeft === 0 ? remaining : period;
      if (left < TENTHS_BELOW_MS) {
        lowTimeWarned = true;
        sound('low-time');
      }
    }
    if (game.clock_running || game.first_move_ms_left != null) render();
  }

  // Replay: 0 the start, 1 back a ply, 2 forward a ply, 3 the position now.
  function step(where) {
    if (!game) return;
    const ply = viewPly === null ? game.ply : viewPly;
    const target = [0, ply - 1, ply + 1, game.ply][where];
    viewPly = Math.max(0, Math.min(game.ply, target));
    if (!record && viewPly !== game.ply) loadRecord();
    show();
  }

  // Keys as on the play sites: arrows through the moves, Home/End, `f` to flip.
  function onKey(event) {
    if (event.target.closest?.('input, textarea, select') || event.ctrlKey || event.metaKey || event.altKey) return;
    const where = { Home: 0, ArrowLeft: 1, ArrowRight: 2, End: 3 }[event.key];
    if (where !== undefined) {
      event.preventDefault();
      step(where);
    } else if (event.key === 'f') {
      board.flipped = !board.flipped;
      show();
    }
  }
  document.addEventListener('keydown', onKey);

  function show() {
    if (!game) return;
    const live = viewPly === null || viewPly === game.ply;
    const replaying = !live && record;
    const myTurn = game.status === 'playing' && seat === game.side_to_move;
    if (seat === 'gote' && board.flippedFor !== id) { board.flipped = true; board.flippedFor = id; }
    const ply = live ? game.ply : viewPly;
    // The bars first: the board's size leaves room for them.
    chat.setGame(game, seat);
    render();
    const drill = trainer?.view();
    if (drill) {
      board.setState({ variant: game.variant, sfen: record.positions[drill.ply], legal: drill.legal,
        lastMove: drill.ply > 0 ? record.usi[drill.ply - 1] : null, check: record.checks[drill.ply],
        interactive: drill.interactive });
      board.setArrow(drill.arrow);
    } else {
      board.setState({
        variant: game.variant,
        sfen: replaying ? record.positions[ply] : game.sfen,
        legal: live && myTurn ? game.legal_moves : [],
        lastMove: ply > 0 ? game.moves[ply - 1]?.usi : null,
        check: live ? game.check_square : replaying ? record.checks[ply] : null,
        interactive: live && myTurn,
        premoveFor: live && seat && game.status === 'playing' && !myTurn ? seat : null,
      });
      board.setArrow(replaying || game.status === 'finished' ? better.get(ply) : null);
    }
    const title = gameTitle();
    const replayControls = el('div', { class: 'actions' },
      REPLAY_BUTTONS.map(([label, words], i) => el('button', { class: 'secondary', 'data-replay': i, 'aria-label': words, title: words, onclick: () => step(i) }, label)));
    document.title = myTurn ? t('game.page-title-your-move', { game: title }) : t('game.page-title', { game: title });
    showTurnIcon(myTurn);
    moveBox.replaceChildren(el('h2', {}, t('game.moves')),
      moveListNode(game.moves.map((m) => ({ ...m, judgement: marks.get(m.ply) })), ply,
        (p) => { viewPly = p; if (!record) loadRecord(); show(); }, () => show()),
      replayControls);
    keepInView(moveBox);
  }

  connect();
  timer = setInterval(tick, 200);
  page.playing = () => (seat && game?.status === 'playing' ? id : null);
  page.cleanup = () => {
    closed = true; clearInterval(timer); socket?.close(); board.destroy();
    document.removeEventListener('keydown', onKey);
    document.title = t('game.site-title');
    showTurnIcon(false);
  };
  page.rerender = show;
}

export async function joinPage(id, invite) {
  try {
    const grant = await api(`/api/games/${id}/join`, { invite });
    localStorage.setItem(`tsubame.token.${id}`, grant.token);
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, e.message));
    return;
  }
  navigate(`/game/${id}`, true);
}

// ---------------------------------------------------------------------------------------------
// Import, replay and analysis
