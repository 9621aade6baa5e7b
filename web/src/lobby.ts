// The lobby: creating a game or seek, open seeks and games in play.

import { page, store, navigate } from './state';
import { myName, playerNode, playersNode } from './account';
import { api, errorText } from './api';
import { el } from './dom';
import { clockText } from './gameparts';
import { homeNode, isOwnSeek } from './home';
import { optionFields } from './options';
import { miniBoard } from './pieces';
import { app } from './prefs';
import { gameTitle, sideName, t, tn } from './i18n';
import { computerLevel, levelAbout, levelOptions, rememberComputerLevel, showEngineQueue } from './levels';
import { reasonText, statusText } from './player';
import { tokenFor, variantInfo } from './util';
import { seekGraph } from './seekgraph';
import { clockFields } from './clockform';
import { tournamentLine } from './tournaments';
import type { GameView } from './types';
import type { SeatGrant, SiteStats, TournamentList } from './api-types';

export async function lobbyPage() {
  const optionBox = el('div');
  const variantSelect = el('select', { name: 'variant', onchange: () => {
    optionFields(variantSelect.value, optionBox);
    // Each game has its own estimates of the levels' ratings.
    levelSelect.replaceChildren(...levelOptions(Number(levelSelect.value), '', variantSelect.value));
    levelHelp.textContent = levelAbout(Number(levelSelect.value), variantSelect.value);
  } },
    store.variants.map((v) => el('option', { value: v.name }, v.available ? gameTitle(v) : t('lobby.game-coming', { game: gameTitle(v) }))));
  const clock = clockFields(() => showRated());
  const rated = el('input', { type: 'checkbox', name: 'rated', 'data-rated': '' });
  const ratedHelp = el('small', { class: 'help' });
  const rangeMin = el('input', { type: 'number', name: 'rating-min', min: 0, max: 4000, step: 50, placeholder: t('lobby.rating-any'), style: 'width:5.5rem' });
  const rangeMax = el('input', { type: 'number', name: 'rating-max', min: 0, max: 4000, step: 50, placeholder: t('lobby.rating-any'), style: 'width:5.5rem' });
  const levelHelp = el('small', { class: 'help', 'data-level-help': '' });
  const chosenLevel = computerLevel();
  const levelSelect = el('select', { name: 'level', onchange: () => {
    levelHelp.textContent = levelAbout(Number(levelSelect.value), variantSelect.value);
    rememberComputerLevel(Number(levelSelect.value));
  } }, levelOptions(chosenLevel, '', variantSelect.value));
  levelHelp.textContent = levelAbout(chosenLevel, variantSelect.value);
  function showRated() {
    const kind = clock.kind.value;
    const human = form.querySelector<HTMLInputElement>('[name="opponent"]:checked')?.value === 'human';
    rated.disabled = !myName() || !human || kind === 'unlimited';
    if (rated.disabled) rated.checked = false;
    ratedHelp.textContent = !myName() ? t('lobby.rated-login')
      : !human ? t('lobby.rated-computer')
        : kind === 'unlimited' ? t('lobby.rated-clock') : t('lobby.rated-help');
  }
  const error = el('div', { class: 'error' });
  const form: HTMLFormElement = el('form', { class: 'create panel', onsubmit: async (event: SubmitEvent) => {
    event.preventDefault();
    error.textContent = '';
    const data = new FormData(form);
    const options: Record<string, string | undefined> = {};
    for (const field of optionBox.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-option]')) {
      options[field.dataset.option!] = field.tagName === 'INPUT' && field.value.trim() === ''
        ? field.dataset.none : field.value.trim();
    }
    const range = rangeMin.value !== '' || rangeMax.value !== ''
      ? [rangeMin.value === '' ? 0 : Number(rangeMin.value), rangeMax.value === '' ? 4000 : Number(rangeMax.value)] : undefined;
    try {
      const grant = await api<SeatGrant>('/api/games', {
        variant: variantSelect.value, options, opponent: data.get('opponent'),
        level: Number(data.get('level')), side: data.get('side'), clock: clock.value(), public: data.get('public') === 'on',
        rated: rated.checked, rating_range: data.get('opponent') === 'human' ? range : undefined,
      });
      localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
      if (grant.invite) localStorage.setItem(`tsubame.invite.${grant.game_id}`, grant.invite);
      navigate(`/game/${grant.game_id}`);
    } catch (e) {
      error.textContent = errorText(e);
    }
  } },
  el('h2', {}, t('lobby.new-game')),
  el('label', {}, `${t('lobby.game')} `, variantSelect),
  optionBox,
  el('div', { class: 'row' },
    el('label', {}, el('input', { type: 'radio', name: 'opponent', value: 'engine', checked: true, onchange: () => showRated() }), ` ${t('lobby.opponent-computer')}`),
    el('label', {}, el('input', { type: 'radio', name: 'opponent', value: 'human', onchange: () => showRated() }), ` ${t('lobby.opponent-person')}`),
    el('label', {}, el('input', { type: 'checkbox', name: 'public' }), ` ${t('lobby.public')}`)),
  el('div', { class: 'row' }, el('label', {}, rated, ` ${t('lobby.rated')}`),
    el('label', {}, `${t('lobby.opponent-rating')} `, rangeMin, ` ${t('lobby.rating-to')} `, rangeMax)),
  ratedHelp,
  el('div', { class: 'row' },
    el('label', {}, `${t('lobby.level')} `, levelSelect),
    el('label', {}, `${t('lobby.play-as')} `, el('select', { name: 'side' },
      el('option', { value: 'sente' }, t('lobby.side-sente')), el('option', { value: 'gote' }, t('lobby.side-gote')),
      el('option', { value: 'random' }, t('lobby.side-random'))))),
  levelHelp,
  clock.row,
  clock.help,
  el('button', { type: 'submit', 'data-action': 'create' }, t('lobby.start-game')),
  error);
  optionFields(variantSelect.value, optionBox);
  clock.show();

  const seeks = el('tbody');
  const games = el('tbody');
  // The open seeks, as a list and a graph, and how many are here, beside the day's puzzle:
  // what a visitor sees first.
  const stats = el('p', { class: 'site-stats', 'data-site-stats': '' });
  const graphHost = el('div', { class: 'seek-graph-host' });
  const seekPanel = el('section', { class: 'panel seek-panel', 'data-seek-panel': '' },
    el('div', { class: 'seek-head' }, el('h2', {}, t('lobby.open-seeks')), stats),
    graphHost, el('table', { class: 'games seeks wrap-rows' }, seeks));
  const lists = el('div', { class: 'panel' },
    el('h2', {}, t('lobby.games')), el('table', { class: 'games wrap-rows' }, games));
  const playing = el('div', { class: 'live-games' });
  const arenas = el('ul', { class: 'arena-list' });
  const arenaPanel = el('section', { class: 'arenas-home', 'data-arenas-home': '' },
    el('div', { class: 'seek-head' }, el('h2', {}, t('arena.home-title')), el('a', { href: '/tournaments' }, t('arena.all'))), arenas);
  const home = homeNode(seekPanel);
  app.replaceChildren(home, el('section', { class: 'live' },
    el('div', { class: 'seek-head' }, el('h2', {}, t('lobby.being-played')),
      el('a', { href: '/tv', 'data-tv-link': '' }, t('lobby.tv-link'))), playing),
    arenaPanel,
    el('h2', {}, t('lobby.own-game')), el('div', { class: 'columns' }, form, lists));

  async function refresh() {
    const queueNote = home.querySelector<HTMLElement>('[data-engine-queue]');
    if (queueNote) showEngineQueue(queueNote);
    try {
      const [lobby, list, counts, tournaments] = await Promise.all([
        api<GameView[]>('/api/lobby'), api<GameView[]>('/api/games?limit=30'),
        api<SiteStats>('/api/stats').catch(() => null), api<TournamentList>('/api/tournaments').catch(() => null)]);
      if (tournaments) {
        const shown = [...tournaments.running, ...tournaments.upcoming].slice(0, 4);
        arenas.replaceChildren(...(shown.length ? shown.map(tournamentLine)
          : [el('li', { class: 'help' }, el('a', { href: '/tournaments' }, t('arena.home-none')))]));
      }
      if (counts) {
        stats.textContent = `${tn('lobby.players-online', counts.players_online)} · ${tn('lobby.games-playing', counts.games_playing)}`;
      }
      graphHost.replaceChildren(seekGraph(lobby.map((g) => {
        const creator = g.sente_player === 'human' ? 'sente' : 'gote';
        const name = g[`${creator}_name`] || '';
        const rating = g[`${creator}_rating`]?.rating ?? null;
        return { id: g.id, variant: g.variant, control: g.time_control, rating,
          label: `${name}${rating ? ` (${rating})` : ''} · ${gameTitle(variantInfo(g.variant), g.variant)} · ${clockText(g.time_control)}` };
      }), (id) => {
        const row = seeks.querySelector<HTMLElement>(`[data-seek="${id}"]`);
        (row?.querySelector<HTMLElement>('[data-join], [data-own-seek]'))?.click();
      }, { label: tn('lobby.seek-graph-label', lobby.length), corr: t('lobby.seek-graph-corr'), rating: t('account.rating') }));
      seeks.replaceChildren(...(lobby.length ? lobby.map((g) => {
        const creator = g.sente_player === 'human' ? 'sente' : 'gote';
        const own = isOwnSeek(g);
        const seekError = el('span', { class: 'error' });
        return el('tr', { 'data-seek': g.id },
          el('td', {}, playerNode(g, creator)),
          el('td', {}, gameTitle(variantInfo(g.variant), g.variant)),
          el('td', {}, clockText(g.time_control)),
          el('td', { 'data-seek-mode': g.rated ? 'rated' : 'casual' }, g.rated ? t('lobby.seek-rated') : t('lobby.seek-casual'),
            g.rating_range ? ` ${g.rating_range[0]}–${g.rating_range[1]}` : ''),
          // Your own seek is opened or cancelled, never joined.
          el('td', {}, own
            ? [el('a', { href: `/game/${g.id}`, 'data-own-seek': '' }, t('lobby.your-seek')), ' ',
              el('button', { class: 'secondary small', 'data-cancel-seek': g.id, onclick: async () => {
                try {
                  await api(`/api/games/${g.id}/abort`, { token: tokenFor(g.id) || undefined });
                  refresh();
                } catch (e) { seekError.textContent = errorText(e); }
              } }, t('lobby.cancel'))]
            : el('button', { 'data-join': g.id, onclick: async () => {
              try {
                const grant = await api<SeatGrant>(`/api/games/${g.id}/join`, {});
                localStorage.setItem(`tsubame.token.${g.id}`, grant.token);
                navigate(`/game/${g.id}`);
              } catch (e) { seekError.textContent = errorText(e); }
            } }, t('lobby.join')), seekError));
      }) : [el('tr', {}, el('td', {}, t('lobby.no-seeks')))]));
      const live = list.filter((g) => g.status === 'playing').slice(0, 6);
      playing.replaceChildren(...(live.length ? live.map((g) => el('a', { class: 'live-game', href: `/game/${g.id}`, 'data-live': g.id },
        miniBoard(g.variant, g.sfen, g.files > 12 ? 7 : 13),
        el('span', {}, `${gameTitle(variantInfo(g.variant), g.variant)}: `, playersNode(g), t('lobby.live-move', { move: g.ply + 1 }))))
        : [el('p', { class: 'help' }, t('lobby.no-live'))]));
      games.replaceChildren(...list.map((g) => el('tr', { 'data-game-row': g.id },
        el('td', {}, el('a', { href: `/game/${g.id}` },
          g.status === 'playing' ? t('lobby.watch') : g.status === 'finished' ? t('account.replay') : t('account.open'))),
        el('td', {}, gameTitle(variantInfo(g.variant), g.variant)),
        el('td', {}, playersNode(g)),
        el('td', {}, g.result ? (g.result.winner
          ? t('lobby.result-win', { side: sideName(g.result.winner), reason: reasonText(g.result.reason) })
          : t('lobby.result-none', { reason: reasonText(g.result.reason) })) : statusText(g.status)))));
    } catch (e) {
      seeks.replaceChildren(el('tr', {}, el('td', { class: 'error' }, errorText(e))));
    }
  }
  refresh();
  const timer = setInterval(refresh, 5000);
  page.cleanup = () => clearInterval(timer);
  page.rerender = () => {};
}
