// A player's page: ratings, their history and the player's games.

import { store } from './state';
import { changeText, myName, playerNode } from './account';
import { api } from './api';
import { el } from './dom';
import { clockText } from './gameparts';
import { app } from './prefs';
import { variantInfo } from './util';


/** A rating history as a small line chart: one line per speed, rating against game number. */
export function ratingChart(points) {
  const width = 320;
  const height = 120;
  const pad = 6;
  const ratings = points.map((p) => p.rating);
  const low = Math.min(...ratings) - 20;
  const high = Math.max(...ratings) + 20;
  const x = (i) => pad + (points.length > 1 ? (i / (points.length - 1)) * (width - 2 * pad) : (width - 2 * pad) / 2);
  const y = (r) => height - pad - ((r - low) / (high - low)) * (height - 2 * pad);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'rating-chart');
  const speeds = [...new Set(points.map((p) => p.speed))];
  const add = (tag, attrs) => {
    const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.append(node);
    return node;
  };
  for (const level of [low + 20, high - 20]) {
    add('line', { x1: pad, x2: width - pad, y1: y(level), y2: y(level), class: 'grid' });
    add('text', { x: pad, y: y(level) - 2, class: 'axis' }).textContent = String(Math.round(level));
  }
  speeds.forEach((speed) => {
    const mine = points.map((p, i) => [p, i]).filter(([p]) => p.speed === speed);
    add('polyline', { points: mine.map(([p, i]) => `${x(i)},${y(p.rating)}`).join(' '), class: `line speed-${speed}` });
    for (const [p, i] of mine) add('circle', { cx: x(i), cy: y(p.rating), r: 2.5, class: `dot speed-${speed}` });
  });
  return svg;
}

/** What a finished game was for `name`: won, lost, drawn or aborted. */
export function outcomeFor(game, name) {
  if (!game.result) return game.status;
  if (game.result.reason === 'aborted') return 'aborted';
  if (!game.result.winner) return `draw (${game.result.reason})`;
  const mine = game.sente_name === name ? 'sente' : 'gote';
  return `${game.result.winner === mine ? 'won' : 'lost'} (${game.result.reason})`;
}

export async function playerPage(name) {
  let player;
  let games;
  try {
    [player, games] = await Promise.all([
      api(`/api/players/${encodeURIComponent(name)}`),
      api(`/api/players/${encodeURIComponent(name)}/games?limit=100`),
    ]);
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, e.message));
    return;
  }
  // The rating pools' titles, in the order the server lists them.
  const poolTitles = new Map(store.variants.flatMap((v) => v.rating_pools.map((p) => [p.name, p.title] as [string, string])));
  const own = myName()?.toLowerCase() === player.username.toLowerCase();
  const joined = new Date(player.joined).toLocaleDateString();
  const ratingRows = player.ratings.map((r) => el('tr', { 'data-rating-row': `${r.game} ${r.speed}` },
    el('td', {}, poolTitles.get(r.game) || r.game), el('td', {}, r.speed),
    el('td', { class: 'num' }, `${r.rating}${r.provisional ? '?' : ''}`),
    el('td', { class: 'num', title: 'rating deviation' }, `±${r.deviation}`),
    el('td', { class: 'num' }, r.games)));
  const charts = [...poolTitles.keys()].map((g) => {
    const points = player.history.filter((p) => p.game === g);
    return points.length ? el('figure', { class: 'chart', 'data-chart': g },
      el('figcaption', {}, `${poolTitles.get(g)}: ${[...new Set(points.map((p) => p.speed))].join(', ')}`), ratingChart(points)) : null;
  });
  const sideOf = (g) => (g.sente_name?.toLowerCase() === player.username.toLowerCase() ? 'sente' : 'gote');
  const ongoing = games.filter((g) => g.status !== 'finished')
    .map((g) => ({ g, turn: g.status === 'playing' && g.side_to_move === sideOf(g) }))
    .sort((a, b) => Number(b.turn) - Number(a.turn));
  const finished = games.filter((g) => g.status === 'finished');
  const opponent = (g) => playerNode(g, sideOf(g) === 'sente' ? 'gote' : 'sente');
  app.replaceChildren(el('div', { class: 'profile', 'data-profile': player.username },
    el('section', { class: 'panel' },
      el('h2', {}, player.username),
      el('p', { class: 'help' }, `Joined ${joined} · ${player.games} game${player.games === 1 ? '' : 's'} played`),
      player.ratings.length
        ? el('table', { class: 'games ratings' }, el('tr', {}, el('th', {}, 'Game'), el('th', {}, 'Speed'),
          el('th', {}, 'Rating'), el('th', {}, 'RD'), el('th', {}, 'Rated games')), ratingRows)
        : el('p', {}, 'No rated game yet: ratings start at 1500 and show a ? until they settle.'),
      el('div', { class: 'charts' }, charts),
      el('h3', {}, 'Puzzles'),
      player.puzzle_ratings?.length
        ? el('table', { class: 'games ratings', 'data-puzzle-ratings': '' },
          el('tr', {}, el('th', {}, 'Game'), el('th', {}, 'Puzzle rating'), el('th', {}, 'RD'), el('th', {}, 'Rated puzzles')),
          player.puzzle_ratings.map((r) => el('tr', { 'data-puzzle-rating': r.variant },
            el('td', {}, el('a', { href: `/puzzles/${r.variant}` }, variantInfo(r.variant)?.title || r.variant)),
            el('td', { class: 'num' }, `${r.rating}${r.provisional ? '?' : ''}`),
            el('td', { class: 'num', title: 'rating deviation' }, `±${r.deviation}`),
            el('td', { class: 'num' }, r.attempts))))
        : el('p', { class: 'help' }, own ? 'No puzzle tried yet: each puzzle\'s first try rates you, from 1500.' : 'No puzzle tried yet.')),
    el('section', { class: 'panel' },
      el('h2', {}, 'Ongoing games'),
      ongoing.length ? el('table', { class: 'games' }, ongoing.map(({ g, turn }) => el('tr', { 'data-ongoing': g.id },
        el('td', {}, turn ? el('strong', { class: 'your-turn-mark' }, own ? 'your turn' : 'to move')
          : g.status === 'waiting' ? 'seeking' : 'opponent\'s turn'),
        el('td', {}, variantInfo(g.variant)?.title || g.variant), el('td', {}, 'vs ', opponent(g)),
        el('td', {}, clockText(g.time_control)), el('td', {}, el('a', { href: `/game/${g.id}`, 'data-open-game': g.id }, 'open')))))
        : el('p', { class: 'help' }, 'None.'),
      el('h2', {}, 'Finished games'),
      finished.length ? el('table', { class: 'games' }, finished.map((g) => el('tr', { 'data-finished': g.id },
        el('td', {}, new Date(g.created_at).toLocaleDateString()),
        el('td', {}, variantInfo(g.variant)?.title || g.variant, g.rated ? ' · rated' : ''),
        el('td', {}, clockText(g.time_control)),
        el('td', {}, 'vs ', opponent(g)),
        el('td', { 'data-outcome': outcomeFor(g, g[`${sideOf(g)}_name`]) }, outcomeFor(g, g[`${sideOf(g)}_name`]),
          g[`${sideOf(g)}_rating`]?.change != null ? ` ${changeText(g[`${sideOf(g)}_rating`].change)}` : ''),
        el('td', {}, el('a', { href: `/game/${g.id}` }, 'replay')))))
        : el('p', { class: 'help' }, 'None yet.'))));
}

// ---------------------------------------------------------------------------------------------
// Home: the three games, quick pairing and the computer, at the top of the lobby.

// Quick-pairing time controls per game (main minutes + byo-yomi seconds), longer for the
// bigger boards.
