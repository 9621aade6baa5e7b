// TV: the highest-rated public game being played, of one game or of any, watched as a
// spectator; when it ends, the next one comes after a moment. The address stays `/tv`.

import { api, errorStatus } from './api';
import { el } from './dom';
import { gamePage } from './game';
import { gameTitle, t } from './i18n';
import { app } from './prefs';
import { page, store } from './state';
import { variantInfo } from './util';
import type { GameForViewer, TvGame } from './api-types';

/** How often TV asks whether the game it shows is over and which game is next. */
const POLL_MS = 4000;

export async function tvPage(variant?: string) {
  const title = variant ? gameTitle(variantInfo(variant), variant) : '';
  let showing: string | null = null;
  /** The cleanup of the game page shown (its socket, clock timer and keys), called before the
   * next game's page or TV's own notice replaces it. */
  let leaveGame: (() => void) | null = null;
  let stopped = false;
  const stop = () => { stopped = true; window.clearInterval(timer); };
  const timer = window.setInterval(() => { check(); }, POLL_MS);
  page.cleanup = stop;

  /** The TV's own line above the game: what it shows, and the other channels. */
  function banner(gameVariant: string) {
    const channels = [el('a', { href: '/tv', 'aria-current': variant ? undefined : 'page' }, t('lobby.tv-all')),
      ...store.variants.filter((v) => v.available).map((v) => el('a', { href: `/tv/${v.name}`,
        'aria-current': variant === v.name ? 'page' : undefined }, gameTitle(v)))];
    return el('p', { class: 'tv-banner', 'data-tv': gameVariant },
      el('strong', {}, t('lobby.tv-title', { game: gameTitle(variantInfo(gameVariant), gameVariant) })), ' · ',
      ...channels.flatMap((link, i) => (i ? [' · ', link] : [link])));
  }

  async function check() {
    let pick: TvGame | null = null;
    try {
      pick = await api<TvGame>(`/api/tv${variant ? `?variant=${encodeURIComponent(variant)}` : ''}`);
    } catch (e) {
      if (errorStatus(e) !== 404) return;
    }
    if (stopped || (pick && pick.game_id === showing)) return;
    // The game being watched is watched to its end.
    if (showing) {
      const current = await api<GameForViewer>(`/api/games/${showing}`).catch(() => null);
      if (stopped || current?.status === 'playing' || !pick) return;
    }
    if (!pick) {
      leaveGame?.();
      leaveGame = null;
      page.cleanup = stop;
      app.replaceChildren(el('div', { class: 'panel tv-none', 'data-tv-none': '' },
        el('h2', {}, variant ? t('lobby.tv-title', { game: title }) : t('lobby.tv')),
        el('p', {}, t('lobby.tv-nothing')), el('p', {}, el('a', { href: '/' }, t('lobby.tv-start')))));
      return;
    }
    showing = pick.game_id;
    leaveGame?.();
    await gamePage(showing);
    // The game page's own cleanup, and then TV's.
    leaveGame = page.cleanup;
    page.cleanup = () => { leaveGame?.(); stop(); };
    app.prepend(banner(pick.variant));
  }
  await check();
}
