// The game page's panel and clocks as views of its controller (gamectrl.ts): status, the
// connection, the first-move time, the result and offers, the seat's actions, the last
// refusal, the invite; each clock with its player. Patched in place on every change and tick.

import { isAccountName, myName, playerNode } from './account';
import { clockAt, formatClock, TENTHS_BELOW_MS } from './clock.js';
import type { GameCtrl } from './gamectrl';
import { clockText, formatDays } from './gameparts';
import { gameTitle as variantTitle, sideName, t } from './i18n';
import { reasonText } from './player';
import type { GameView, Side } from './types';
import { variantInfo } from './util';
import { h, toVNode } from './view';
import type { VNode } from './view';

const SIDES: Side[] = ['sente', 'gote'];

/** The game's title: its name, and whether it is rated. */
export function gameTitle(game: GameView): string {
  const name = variantTitle(variantInfo(game.variant), game.variant);
  return game.rated ? t('game.title-rated', { game: name }) : name;
}

/** A side's clock with its player, as the bar above or below the board. */
export function clockView(ctrl: GameCtrl, game: GameView, side: Side): VNode {
  const view = game[`${side}_clock`];
  const running = game.clock_running === side;
  const control = game.time_control;
  const { remaining, period, periodsLeft } =
    clockAt(view, control, running ? performance.now() - ctrl.received : 0);
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
    h('div.p.who', [`${side === 'sente' ? '☗' : '☖'} `, toVNode(playerNode(game, side)), ctrl.seat === side ? t('game.clock-you') : '']),
    h('div.p.sub', sub), h('div.t', main)]);
}

/** The panel: status, connection, the first-move time, the result and offers, the actions,
 * the last refusal, the invite. The clocks are the board's bars. */
export function panelView(ctrl: GameCtrl): VNode {
  const connectionText = ctrl.connection === 'lost' ? t('game.connection-lost')
    : ctrl.connection === 'restored' ? t('game.connection-restored') : '';
  const game = ctrl.game;
  return h('div.panel', [
    h('div.status', { attrs: { 'data-status': '' } }, game ? statusText(ctrl, game) : ''),
    h('div', { class: { connection: true, lost: ctrl.connection === 'lost', restored: ctrl.connection === 'restored' },
      attrs: { 'data-connection': '' } }, connectionText),
    h('div.first-move', { attrs: { 'data-first-move': '' } }, game ? firstMoveText(ctrl, game) : ''),
    h('div', game ? resultViews(ctrl, game) : []),
    h('div.actions', game ? actionViews(ctrl, game) : []),
    h('div.error', { attrs: { 'data-error': '' } }, ctrl.errorText),
    h('div.invite', game ? inviteViews(ctrl, game) : []),
  ]);
}

function statusText(ctrl: GameCtrl, game: GameView): string {
  const title = gameTitle(game);
  if (game.status === 'waiting' && game.challenge_to) {
    return ctrl.seat ? t('game.challenge-waiting', { game: title, name: game.challenge_to })
      : t('game.challenge-to', { game: title, name: game.challenge_to });
  }
  return game.status === 'waiting' ? t('game.status-waiting', { game: title })
    : game.status === 'finished' ? t('game.status-over', { game: title })
      : `${t('game.status-to-move', { game: title, side: sideName(game.side_to_move) })}${ctrl.myTurn ? t('game.status-your-move') : ''}${game.check_square ? t('game.status-check') : ''}`;
}

// Between people, before each side's first move: no clock runs, but the game is aborted when
// the side to move lets its first-move time pass.
function firstMoveText(ctrl: GameCtrl, game: GameView): string {
  if (game.first_move_ms_left == null || game.status !== 'playing') return '';
  const left = Math.max(0, game.first_move_ms_left - (performance.now() - ctrl.received));
  const seconds = Math.ceil(left / 1000);
  // In an arena the first move not made loses the game instead of aborting it.
  const area = game.tournament_id ? 'arena' : 'game';
  if (ctrl.seat === game.side_to_move) return t(`${area}.first-move-you`, { seconds });
  return t(`${area}.first-move-side`, { side: game.side_to_move === 'gote' ? t('frame.Gote') : t('frame.Sente'), seconds });
}

/** The result, and the rematch and draw offers with their answers. */
function resultViews(ctrl: GameCtrl, game: GameView): VNode[] {
  const out: VNode[] = [];
  const seat = ctrl.seat;
  const betweenPeople = game.sente_player === 'human' && game.gote_player === 'human';
  if (game.result) {
    // The winner by name as well as side.
    const winner = game.result.winner;
    const winnerName = winner ? game[`${winner}_name`] : null;
    const who = !winner ? t('game.no-winner')
      : winnerName ? t('game.wins-named', { name: winnerName, side: sideName(winner) }) : t('game.wins', { side: sideName(winner) });
    out.push(h('div.result', { attrs: { 'data-result': game.result.reason } }, t('game.result', { who, reason: reasonText(game.result.reason) })));
    // A player of a game between people reads their own result too, as against the computer.
    if (betweenPeople && seat && !['aborted', 'declined'].includes(game.result.reason)) {
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
    const mine = !game.result.winner ? 'draw' : game.result.winner === seat ? 'won' : 'lost';
    const words = mine === 'draw' ? t('game.computer-draw') : mine === 'won' ? t('game.computer-won') : t('game.computer-lost');
    out.push(h('div.computer-end', { attrs: { 'data-computer-end': mine } }, [
      h('strong.computer-end-words', words),
      h('div.actions', [
        h('button', { attrs: { type: 'button', 'data-action': 'play-again' }, on: { click: () => ctrl.playAgain() } }, t('game.play-again')),
        h('a.button.secondary', { attrs: { href: '/', 'data-action': 'new-game' } }, t('game.new-game')),
      ]),
    ]));
  }
  if (game.status === 'finished' && betweenPeople) {
    if (game.rematch_id) {
      out.push(h('div', { attrs: { 'data-rematch-link': game.rematch_id } },
        [t('game.rematch-label'), h('a', { attrs: { href: `/game/${game.rematch_id}` } }, t('game.rematch-open'))]));
    } else if (game.rematch_offer && game.rematch_offer !== seat) {
      out.push(h('div', { attrs: { 'data-rematch-offer': game.rematch_offer } }, [
        t('game.rematch-wants', { name: game[`${game.rematch_offer}_name`] || sideName(game.rematch_offer) }),
        seat ? h('button', { attrs: { 'data-action': 'rematch-accept' }, on: { click: () => ctrl.send({ type: 'rematch', action: 'accept' }) } }, t('game.accept')) : null,
        seat ? h('button.secondary', { attrs: { 'data-action': 'rematch-decline' }, on: { click: () => ctrl.send({ type: 'rematch', action: 'decline' }) } }, t('game.decline')) : null]));
    } else if (seat) {
      out.push(game.rematch_offer === seat
        ? h('div', { attrs: { 'data-rematch-offered': '' } }, t('game.rematch-offered'))
        : h('button', { attrs: { 'data-action': 'rematch' }, on: { click: () => ctrl.send({ type: 'rematch', action: 'offer' }) } }, t('game.rematch')));
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
  for (const side of SIDES) {
    if (game[`${side}_berserk`]) out.push(h('div.berserk-mark', { attrs: { 'data-berserk': side } }, `⚡ ${t('arena.berserked')} (${sideName(side)})`));
  }
  if (game.draw_offer && game.draw_offer !== seat) {
    out.push(h('div', [t('game.draw-offer', { side: sideName(game.draw_offer) }),
      seat ? h('button', { on: { click: () => ctrl.send({ type: 'draw', action: 'accept' }) } }, t('game.accept')) : null,
      seat ? h('button.secondary', { on: { click: () => ctrl.send({ type: 'draw', action: 'decline' }) } }, t('game.decline')) : null]));
  }
  return out;
}

/** What the seat may do now: abort, offer a draw, resign (asked again first); in a
 * tournament, berserk before one's first move instead of abort. */
function actionViews(ctrl: GameCtrl, game: GameView): VNode[] {
  const out: VNode[] = [];
  const seat = ctrl.seat;
  if (!seat || game.status === 'finished') return out;
  const ownMoves = game.ply === 0 ? 0 : game.ply === 1 ? Number(game.side_to_move !== seat) : 1;
  const mainMs = game.time_control.kind === 'unlimited' || game.time_control.kind === 'correspondence' ? 0 : game.time_control.main_ms;
  if (game.tournament_id && game.status === 'playing' && ownMoves === 0 && !game[`${seat}_berserk`] && mainMs >= 2000) {
    out.push(h('button', { attrs: { 'data-action': 'berserk', title: t('arena.berserk-help') }, on: { click: () => ctrl.berserk() } }, `⚡ ${t('arena.berserk')}`));
  }
  if (game.ply < 2 && !game.tournament_id) {
    out.push(h('button.secondary', { attrs: { 'data-action': 'abort' }, on: { click: () => ctrl.send({ type: 'abort' }) } }, t('game.abort')));
  }
  if (game.status === 'playing') {
    // A draw is agreed once each side has moved; before that the game is aborted.
    if (game.ply >= 2) {
      out.push(h('button.secondary', { attrs: { 'data-action': 'draw' }, on: { click: () => ctrl.send({ type: 'draw', action: 'offer' }) } }, t('game.offer-draw')));
    }
    out.push(ctrl.confirmingResign
      ? h('span.confirm', { attrs: { 'data-confirm': 'resign' } }, [t('game.resign-confirm'),
        h('button', { attrs: { 'data-action': 'resign-yes' }, on: { click: () => ctrl.resign() } }, t('game.resign-yes')),
        h('button.secondary', { attrs: { 'data-action': 'resign-no' }, on: { click: () => ctrl.askResign(false) } }, t('game.resign-no'))])
      : h('button', { attrs: { 'data-action': 'resign' }, on: { click: () => ctrl.askResign(true) } }, t('game.resign')));
  }
  return out;
}

function inviteViews(ctrl: GameCtrl, game: GameView): (VNode | string)[] {
  const invite = localStorage.getItem(`tsubame.invite.${ctrl.id}`);
  if (game.status !== 'waiting' || !invite) return [];
  return [t('game.invite-link'), h('code', `${location.origin}/join/${ctrl.id}/${invite}`)];
}
