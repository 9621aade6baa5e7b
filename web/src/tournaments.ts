// Arena tournaments: the list (and, for administrators, the form that makes one), and a
// tournament's page with its countdown, live standings and games over the tournament's
// socket, the player's own games in it, and the podium at the end. A player whose new game
// starts is taken to it.

import { api, errorStatus, errorText } from './api';
import { takeToArenaGame } from './arenagame';
import { myName, refreshAccount } from './account';
import { answerLine, el } from './dom';
import { clockFields } from './clockform';
import { clockText } from './gameparts';
import { gameTitle, lang, t, tn } from './i18n';
import { optionFields } from './options';
import { reasonText } from './player';
import { app } from './prefs';
import { notFoundPage } from './notfound';
import { navigate, page, store } from './state';
import { variantInfo } from './util';
import type { Side } from './types';
import type {
  TournamentGame, TournamentList, TournamentMade, TournamentMessage, TournamentSummary, TournamentView,
} from './api-types';

const when = (ms: number) => new Date(ms).toLocaleString(lang() === 'ja' ? 'ja-JP' : undefined,
  { dateStyle: 'medium', timeStyle: 'short' });

/** "1:05:09" or "5:09": what a countdown shows. */
export function countdownText(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A tournament in a list: its name as a link, its game, clock and when. */
export function tournamentLine(tournament: TournamentSummary): HTMLLIElement {
  const time = tournament.status === 'created' ? t('arena.starts-at', { when: when(tournament.starts_at) })
    : tournament.status === 'started' ? t('arena.ends-at', { when: when(tournament.ends_at) })
      : t('arena.ended-at', { when: when(tournament.ends_at) });
  return el('li', { class: 'arena-line', 'data-arena': tournament.id },
    el('a', { href: `/tournament/${tournament.id}` }, tournament.name),
    el('span', {}, `${gameTitle(variantInfo(tournament.variant), tournament.variant)} · ${clockText(tournament.clock)}`
      + ` · ${tournament.rated ? t('lobby.seek-rated') : t('lobby.seek-casual')}`),
    el('span', { class: 'help' }, time));
}

/** The administrators' form that makes an arena. */
function newArenaForm() {
  const { node: answer, say } = answerLine({ 'data-arena-answer': '' });
  const optionBox = el('div');
  const variant = el('select', { name: 'variant', onchange: () => optionFields(variant.value, optionBox) },
    store.variants.filter((v) => v.available).map((v) => el('option', { value: v.name }, gameTitle(v)))) as HTMLSelectElement;
  const clock = clockFields();
  const name = el('input', { name: 'name', required: true, maxlength: 60, value: t('arena.default-name') }) as HTMLInputElement;
  const minutes = el('input', { type: 'number', name: 'minutes', min: 1, max: 1440, value: 60, style: 'width:5rem' }) as HTMLInputElement;
  const startsIn = el('input', { type: 'number', name: 'starts-in', min: 0, max: 43200, value: 10, style: 'width:5rem' }) as HTMLInputElement;
  const rated = el('input', { type: 'checkbox', name: 'rated', checked: true }) as HTMLInputElement;
  const form = el('form', { class: 'panel arena-form', 'data-arena-form': '', onsubmit: async (event: Event) => {
    event.preventDefault();
    const options: Record<string, string | undefined> = {};
    for (const field of optionBox.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-option]')) {
      options[field.dataset.option!] = field.tagName === 'INPUT' && field.value.trim() === ''
        ? field.dataset.none : field.value.trim();
    }
    try {
      const made = await api<TournamentMade>('/api/tournaments', {
        name: name.value, variant: variant.value, options, clock: clock.value(),
        minutes: Number(minutes.value), starts_in_seconds: Number(startsIn.value) * 60, rated: rated.checked });
      navigate(`/tournament/${made.id}`);
    } catch (e) {
      say(errorText(e), false);
    }
  } },
  el('h2', {}, t('arena.new')),
  el('label', {}, `${t('arena.name')} `, name),
  el('label', {}, `${t('lobby.game')} `, variant),
  optionBox,
  clock.row,
  clock.help,
  el('div', { class: 'row' },
    el('label', {}, `${t('arena.minutes')} `, minutes),
    el('label', {}, `${t('arena.starts-in')} `, startsIn),
    el('label', {}, rated, ` ${t('lobby.rated')}`)),
  el('button', { type: 'submit', 'data-action': 'make-arena' }, t('arena.make')),
  answer);
  optionFields(variant.value, optionBox);
  clock.show();
  return form;
}

/** `/tournaments`: the arenas to come, being played and finished. */
export async function tournamentsPage() {
  document.title = `${t('arena.title')} · Tsubame`;
  let list: TournamentList;
  try {
    list = await api<TournamentList>('/api/tournaments');
  } catch (e) {
    app.replaceChildren(el('p', { class: 'error' }, errorText(e)));
    return;
  }
  const section = (heading: string, items: TournamentSummary[], key: string) => el('section',
    { class: 'panel', [`data-arenas-${key}`]: '' },
    el('h2', {}, heading),
    items.length ? el('ul', { class: 'arena-list' }, items.map(tournamentLine)) : el('p', { class: 'help' }, t('arena.none')));
  app.replaceChildren(el('div', { class: 'arenas' },
    el('div', { class: 'arena-lists' },
      section(t('arena.running'), list.running, 'running'),
      section(t('arena.upcoming'), list.upcoming, 'upcoming'),
      section(t('arena.finished'), list.finished, 'finished')),
    store.me.account?.admin ? newArenaForm() : null));
}

/** `/tournament/<id>`: one arena, live. */
export async function tournamentPage(id: string) {
  let tournament: TournamentView | null = null;
  let socket: WebSocket | null = null;
  let closed = false;
  let retry = 0;
  let offset = 0;
  const { node: answer, say } = answerLine({ 'data-arena-answer': '' });
  const root = el('div', { class: 'arena', 'data-arena-page': id });
  app.replaceChildren(root);
  const countdown = el('strong', { class: 'countdown', 'data-countdown': '' });
  const ticker = window.setInterval(showCountdown, 500);
  page.cleanup = () => { closed = true; window.clearInterval(ticker); socket?.close(); };

  function showCountdown() {
    if (!tournament) return;
    const now = Date.now() + offset;
    countdown.textContent = tournament.status === 'created' ? t('arena.starts-in-time', { time: countdownText(tournament.starts_at - now) })
      : tournament.status === 'started' ? t('arena.left', { time: countdownText(tournament.ends_at - now) })
        : t('arena.over');
  }

  async function act(action: 'join' | 'withdraw') {
    try {
      tournament = await api<TournamentView>(`/api/tournaments/${id}/${action}`, {});
      say(action === 'join' ? t('arena.joined') : t('arena.withdrawn'), true);
      show();
    } catch (e) {
      say(errorText(e), false);
    }
  }

  function standingsTable() {
    const me = myName()?.toLowerCase();
    return el('table', { class: 'games standings', 'data-standings': '' },
      el('tr', {}, el('th', {}, '#'), el('th', {}, t('arena.player')), el('th', { class: 'num' }, t('arena.points')),
        el('th', { class: 'num' }, t('arena.games'))),
      // Drawn by show(), once the tournament is known.
      tournament!.standings.map((s) => el('tr',
        { 'data-standing': s.username, class: s.username.toLowerCase() === me ? 'mine' : '' },
        el('td', { class: 'num' }, s.rank),
        el('td', {}, el('a', { href: `/@/${encodeURIComponent(s.username)}` }, s.username), ` (${s.rating})`,
          s.streak >= 2 ? el('span', { class: 'fire', title: t('arena.on-fire'), 'data-on-fire': '' }, '×2') : null,
          s.active ? null : el('span', { class: 'help' }, ` ${t('arena.withdrawn-mark')}`),
          s.playing ? el('a', { href: `/game/${s.playing}`, class: 'help', 'data-playing': s.playing }, ` ${t('arena.playing')}`) : null),
        el('td', { class: 'num', 'data-points': s.points }, s.points),
        el('td', { class: 'num' }, s.games))));
  }

  function gameLines(games: TournamentGame[]) {
    return games.map((g) => {
      const result = g.status === 'playing' ? t('arena.in-play')
        // A game no longer in play has ended, and the server records why.
        : g.winner ? t('lobby.result-win', { side: g.winner === 'sente' ? g.sente : g.gote, reason: reasonText(g.reason!) })
          : t('lobby.result-none', { reason: reasonText(g.reason!) });
      const berserk = (side: Side) =>
        (g[`${side}_berserk`] ? el('span', { class: 'berserk-mark', title: t('arena.berserked') }, ' ⚡') : null);
      return el('tr', { 'data-arena-game': g.game_id },
        el('td', {}, g.sente, berserk('sente'), ' – ', g.gote, berserk('gote')),
        el('td', {}, el('a', { href: `/game/${g.game_id}` }, result)),
        el('td', { class: 'num' }, g.scored ? `${g.sente_points}–${g.gote_points}` : ''));
    });
  }

  function show() {
    if (!tournament) return;
    document.title = `${tournament.name} · Tsubame`;
    const me = myName();
    const you = tournament.you;
    const over = tournament.status === 'finished';
    const podium = over && tournament.standings.length
      ? el('ol', { class: 'podium', 'data-podium': '' }, tournament.standings.slice(0, 3).map((s) =>
        el('li', { class: `place-${s.rank}` }, el('span', { class: 'medal', 'aria-hidden': 'true' }, String(s.rank)),
          el('strong', {}, s.username), el('span', {}, tn('arena.points-count', s.points)))))
      : null;
    const action = !me ? el('a', { href: '/login', class: 'button' }, t('arena.log-in'))
      : over ? null
        : you?.active ? el('button', { type: 'button', class: 'secondary', 'data-action': 'withdraw', onclick: () => act('withdraw') }, t('arena.withdraw'))
          : el('button', { type: 'button', 'data-action': 'join', onclick: () => act('join') }, you ? t('arena.rejoin') : t('arena.join'));
    const mine = me ? tournament.games.filter((g) => g.sente.toLowerCase() === me.toLowerCase() || g.gote.toLowerCase() === me.toLowerCase()) : [];
    root.replaceChildren(
      el('section', { class: 'panel arena-head' },
        el('h2', {}, tournament.name),
        el('p', {}, `${gameTitle(variantInfo(tournament.variant), tournament.variant)} · ${clockText(tournament.clock)} · `
          + `${tournament.rated ? t('lobby.seek-rated') : t('lobby.seek-casual')} · ${tn('arena.minutes-count', tournament.minutes >= 10 ? Math.round(tournament.minutes) : Number(tournament.minutes.toFixed(1)))}`),
        el('p', {}, countdown),
        podium,
        el('div', { class: 'row' }, action, you?.playing ? el('a', { href: `/game/${you.playing}`, class: 'button', 'data-your-game': you.playing }, t('arena.your-game')) : null),
        answer,
        el('p', { class: 'help' }, t('arena.rules'))),
      el('section', { class: 'panel' }, el('h2', {}, t('arena.standings')),
        tournament.standings.length ? standingsTable() : el('p', { class: 'help' }, t('arena.nobody'))),
      el('section', { class: 'panel' },
        mine.length ? [el('h2', {}, t('arena.your-games')), el('table', { class: 'games', 'data-your-games': '' }, gameLines(mine))] : null,
        el('h2', {}, t('arena.games-title')),
        tournament.games.length ? el('table', { class: 'games', 'data-arena-games': '' }, gameLines(tournament.games))
          : el('p', { class: 'help' }, t('arena.no-games'))));
    showCountdown();
  }

  function connect() {
    if (closed) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/api/tournaments/${id}/ws`);
    socket.onmessage = (event) => {
      let message: TournamentMessage;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.type !== 'tournament') return;
      retry = 0;
      tournament = message.tournament;
      offset = tournament.now - Date.now();
      // A new game of the player's: go to it, as the arena pairs without asking.
      takeToArenaGame(tournament.you?.playing);
      show();
    };
    socket.onclose = (event) => {
      if (closed) return;
      if (event.code === 4001) refreshAccount();
      retry = Math.min(retry + 1, 5);
      window.setTimeout(connect, 1000 * retry);
    };
  }

  try {
    tournament = await api<TournamentView>(`/api/tournaments/${id}`);
    offset = tournament.now - Date.now();
  } catch (e) {
    window.clearInterval(ticker);
    // No such arena: the site's "not found" page, as the server's 404 says.
    if (errorStatus(e) === 404) {
      notFoundPage();
      return;
    }
    root.replaceChildren(el('div', { class: 'panel', 'data-missing-arena': '' }, el('h2', {}, t('arena.missing')),
      el('p', {}, errorText(e)), el('p', {}, el('a', { href: '/tournaments' }, t('arena.all')))));
    return;
  }
  show();
  connect();
}
