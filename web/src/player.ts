// A player's page: ratings, their history and the player's games.

import { store } from './state';
import { changeText, myName, playerNode } from './account';
import { api, errorStatus, errorText } from './api';
import { el } from './dom';
import { clockText } from './gameparts';
import { app } from './prefs';
import { notFoundPage } from './notfound';
import { gameTitle, lang, t, tn } from './i18n';
import { variantInfo } from './util';
import { playerActions } from './moderation';
import { challengeForm } from './challenges';
import type { GameView, Side } from './types';
import type { PlayerPage, RatingChange } from './api-types';


/** A rating history as a small line chart: one line per speed, rating against game number. */
export function ratingChart(points: RatingChange[]): SVGSVGElement {
  const width = 320;
  const height = 120;
  const pad = 6;
  const ratings = points.map((p) => p.rating);
  const low = Math.min(...ratings) - 20;
  const high = Math.max(...ratings) + 20;
  const x = (i: number) => pad + (points.length > 1 ? (i / (points.length - 1)) * (width - 2 * pad) : (width - 2 * pad) / 2);
  const y = (r: number) => height - pad - ((r - low) / (high - low)) * (height - 2 * pad);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'rating-chart');
  const speeds = [...new Set(points.map((p) => p.speed))];
  const add = (tag: string, attrs: Record<string, string | number>) => {
    const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    svg.append(node);
    return node;
  };
  for (const level of [low + 20, high - 20]) {
    add('line', { x1: pad, x2: width - pad, y1: y(level), y2: y(level), class: 'grid' });
    add('text', { x: pad, y: y(level) - 2, class: 'axis' }).textContent = String(Math.round(level));
  }
  speeds.forEach((speed) => {
    const mine = points.map((p, i): [RatingChange, number] => [p, i]).filter(([p]) => p.speed === speed);
    add('polyline', { points: mine.map(([p, i]) => `${x(i)},${y(p.rating)}`).join(' '), class: `line speed-${speed}` });
    for (const [p, i] of mine) add('circle', { cx: x(i), cy: y(p.rating), r: 2.5, class: `dot speed-${speed}` });
  });
  return svg;
}

/** A word the server sends as a code (`checkmate`, `blitz`), in the visitor's language: the
 * catalogue's `account.{prefix}-{code}`, or the code itself when the catalogue has none. */
function codeText(prefix: string, code: string): string {
  const key = `account.${prefix}-${code}`;
  const text = t(key);
  return text === key ? code : text;
}

/** Why a game ended (`checkmate`, `resignation`, ...) in the visitor's language. */
export function reasonText(reason: string): string {
  return codeText('reason', reason);
}

/** A game's state (`waiting`, `playing`, `finished`) in the visitor's language. */
export function statusText(status: string): string {
  return codeText('status', status);
}

/** A rating speed (`blitz`, `rapid`, ...) in the visitor's language. */
export function speedText(speed: string): string {
  return codeText('speed', speed);
}

/** A rating pool's title: the server's in English, the catalogue's in Japanese. */
function poolTitle(name: string, title: string): string {
  return lang() === 'ja' ? codeText('pool', name) : title;
}

/** What a finished game was for `name`, as the page's data records it: won, lost, drawn or
 * aborted, in the server's words. */
export function outcomeFor(game: GameView, name: string): string {
  if (!game.result) return game.status;
  if (game.result.reason === 'aborted') return 'aborted';
  if (!game.result.winner) return `draw (${game.result.reason})`;
  const mine = game.sente_name === name ? 'sente' : 'gote';
  return `${game.result.winner === mine ? 'won' : 'lost'} (${game.result.reason})`;
}

/** What a finished game was for `name`, in the visitor's language. */
export function outcomeText(game: GameView, name: string): string {
  if (!game.result) return statusText(game.status);
  if (game.result.reason === 'aborted') return t('account.outcome-aborted');
  const reason = reasonText(game.result.reason);
  if (!game.result.winner) return t('account.outcome-draw', { reason });
  const mine = game.sente_name === name ? 'sente' : 'gote';
  return game.result.winner === mine ? t('account.outcome-won', { reason }) : t('account.outcome-lost', { reason });
}

export async function playerPage(name: string) {
  let player: PlayerPage;
  let games: GameView[];
  try {
    [player, games] = await Promise.all([
      api<PlayerPage>(`/api/players/${encodeURIComponent(name)}`),
      api<GameView[]>(`/api/players/${encodeURIComponent(name)}/games?limit=100`),
    ]);
  } catch (e) {
    // No such player: the site's "not found" page, as the server's 404 says.
    if (errorStatus(e) === 404) notFoundPage();
    else app.replaceChildren(el('p', { class: 'error' }, errorText(e)));
    return;
  }
  // The rating pools' titles, in the order the server lists them.
  const poolTitles = new Map(store.variants.flatMap((v) => v.rating_pools.map((p) => [p.name, poolTitle(p.name, p.title)] as [string, string])));
  const own = myName()?.toLowerCase() === player.username.toLowerCase();
  const dateLocale = lang() === 'ja' ? 'ja-JP' : undefined;
  const joined = new Date(player.joined).toLocaleDateString(dateLocale);
  const ratingRows = player.ratings.map((r) => el('tr', { 'data-rating-row': `${r.game} ${r.speed}` },
    el('td', {}, poolTitles.get(r.game) || r.game), el('td', {}, speedText(r.speed)),
    el('td', { class: 'num' }, `${r.rating}${r.provisional ? '?' : ''}`),
    el('td', { class: 'num', title: t('account.rating-deviation') }, `±${r.deviation}`),
    el('td', { class: 'num' }, r.games)));
  const charts = [...poolTitles.keys()].map((g) => {
    const points = player.history.filter((p) => p.game === g);
    return points.length ? el('figure', { class: 'chart', 'data-chart': g },
      el('figcaption', {}, `${poolTitles.get(g)}: ${[...new Set(points.map((p) => speedText(p.speed)))].join(t('account.list-separator'))}`), ratingChart(points)) : null;
  });
  const sideOf = (g: GameView): Side => (g.sente_name?.toLowerCase() === player.username.toLowerCase() ? 'sente' : 'gote');
  const ongoing = games.filter((g) => g.status !== 'finished')
    .map((g) => ({ g, turn: g.status === 'playing' && g.side_to_move === sideOf(g) }))
    .sort((a, b) => Number(b.turn) - Number(a.turn));
  const finished = games.filter((g) => g.status === 'finished');
  const opponent = (g: GameView) => playerNode(g, sideOf(g) === 'sente' ? 'gote' : 'sente');
  // `/@/name?challenge` (a game's end links there) opens the challenge form at once.
  const challenge = challengeForm(player.username, new URLSearchParams(location.search).has('challenge'));
  app.replaceChildren(el('div', { class: 'profile', 'data-profile': player.username },
    el('section', { class: 'panel' },
      el('h2', {}, player.username, player.online
        ? el('span', { class: 'online-mark', 'data-online': '' }, ` ● ${t('account.online')}`) : null),
      el('p', { class: 'help' }, tn('account.joined', player.games, { date: joined })),
      player.closed ? el('p', { class: 'closed-notice', 'data-closed': '' }, t('moderation.closed')) : null,
      own || player.closed ? null : challenge?.toggle ?? null,
      own || player.closed ? null : challenge?.form ?? null,
      own ? null : playerActions(player),
      player.ratings.length
        ? el('table', { class: 'games ratings' }, el('tr', {}, el('th', {}, t('account.game')), el('th', {}, t('account.speed')),
          el('th', {}, t('account.rating')), el('th', {}, t('account.rd')), el('th', {}, t('account.rated-games'))), ratingRows)
        : el('p', {}, t('account.no-rated-game')),
      el('div', { class: 'charts' }, charts),
      el('h3', {}, t('account.puzzles')),
      player.puzzle_ratings?.length
        ? el('table', { class: 'games ratings', 'data-puzzle-ratings': '' },
          el('tr', {}, el('th', {}, t('account.game')), el('th', {}, t('account.puzzle-rating')), el('th', {}, t('account.rd')),
            el('th', {}, t('account.rated-puzzles'))),
          player.puzzle_ratings.map((r) => el('tr', { 'data-puzzle-rating': r.variant },
            el('td', {}, el('a', { href: `/puzzles/${r.variant}` }, gameTitle(variantInfo(r.variant), r.variant))),
            el('td', { class: 'num' }, `${r.rating}${r.provisional ? '?' : ''}`),
            el('td', { class: 'num', title: t('account.rating-deviation') }, `±${r.deviation}`),
            el('td', { class: 'num' }, r.attempts))))
        : el('p', { class: 'help' }, own ? t('account.no-puzzle-own') : t('account.no-puzzle'))),
    el('section', { class: 'panel' },
      el('h2', {}, t('account.ongoing-games')),
      ongoing.length ? el('table', { class: 'games player-games wrap-rows' }, ongoing.map(({ g, turn }) => el('tr', { 'data-ongoing': g.id },
        el('td', {}, turn ? el('strong', { class: 'your-turn-mark' }, own ? t('account.your-turn') : t('account.to-move'))
          : g.status === 'waiting' ? t('account.seeking') : t('account.opponent-turn')),
        el('td', {}, gameTitle(variantInfo(g.variant), g.variant)), el('td', {}, `${t('account.versus')} `, opponent(g)),
        el('td', {}, clockText(g.time_control)), el('td', {}, el('a', { href: `/game/${g.id}`, 'data-open-game': g.id }, t('account.open'))))))
        : el('p', { class: 'help' }, t('account.none')),
      el('h2', {}, t('account.finished-games')),
      finished.length ? el('table', { class: 'games player-games wrap-rows', 'data-finished-games': '' }, finished.map((g) => el('tr', { 'data-finished': g.id },
        el('td', {}, new Date(g.created_at).toLocaleDateString(dateLocale)),
        el('td', {}, gameTitle(variantInfo(g.variant), g.variant), g.rated ? ` · ${t('account.rated')}` : ''),
        el('td', {}, clockText(g.time_control)),
        el('td', {}, `${t('account.versus')} `, opponent(g)),
        el('td', { 'data-outcome': outcomeFor(g, g[`${sideOf(g)}_name`]) }, outcomeText(g, g[`${sideOf(g)}_name`]),
          g[`${sideOf(g)}_rating`]?.change != null ? ` ${changeText(g[`${sideOf(g)}_rating`]!.change!)}` : ''),
        el('td', {}, el('a', { href: `/game/${g.id}` }, t('account.replay'))))))
        : el('p', { class: 'help' }, t('account.none-yet')))));
}

// ---------------------------------------------------------------------------------------------
// Home: the three games, quick pairing and the computer, at the top of the lobby.

// Quick-pairing time controls per game (main minutes + byo-yomi seconds), longer for the
// bigger boards.
