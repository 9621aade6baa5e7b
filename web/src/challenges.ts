// Challenges to a named player: the form on a player's page (opened from a game's end too),
// and the tray that shows a logged-in player their challenges on every page, at once, from
// the server's stream of them.

import { api, errorText } from './api';
import { takeToArenaGame } from './arenagame';
import { answerLine, el } from './dom';
import { clockFields } from './clockform';
import { clockText } from './gameparts';
import { gameTitle, t } from './i18n';
import { optionFields } from './options';
import { navigate, store } from './state';
import { variantInfo } from './util';
import type { GameView } from './types';
import type { ChallengeList, SeatGrant } from './api-types';

/** The challenge form under another player's name; `open`: shown at once (the page was opened
 * to challenge them). */
export function challengeForm(name: string, open = false) {
  if (!store.me.account) return null;
  const { node: answer, say } = answerLine({ 'data-challenge-answer': '' });
  const optionBox = el('div', { class: 'option-fields' });
  const available = store.variants.filter((v) => v.available);
  const variant = el('select', { name: 'variant', onchange: () => optionFields(variant.value, optionBox) },
    available.map((v) => el('option', { value: v.name }, gameTitle(v)))) as HTMLSelectElement;
  const rated = el('input', { type: 'checkbox', name: 'rated' }) as HTMLInputElement;
  const clock = clockFields((kind) => {
    rated.disabled = kind === 'unlimited';
    if (rated.disabled) rated.checked = false;
  });
  const side = el('select', { name: 'side' },
    el('option', { value: 'random' }, t('lobby.side-random')), el('option', { value: 'sente' }, t('lobby.side-sente')),
    el('option', { value: 'gote' }, t('lobby.side-gote'))) as HTMLSelectElement;
  const form = el('form', { class: 'challenge-form', hidden: !open, 'data-challenge-form': '', onsubmit: async (event: Event) => {
    event.preventDefault();
    const options: Record<string, string | undefined> = {};
    for (const field of optionBox.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-option]')) {
      options[field.dataset.option!] = field.tagName === 'INPUT' && field.value.trim() === ''
        ? field.dataset.none : field.value.trim();
    }
    try {
      const grant = await api<SeatGrant>(`/api/players/${encodeURIComponent(name)}/challenge`, {
        variant: variant.value, options, clock: clock.value(), side: side.value, rated: rated.checked,
      });
      localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
      navigate(`/game/${grant.game_id}`);
    } catch (e) {
      say(errorText(e), false);
    }
  } },
  el('label', {}, `${t('lobby.game')} `, variant),
  optionBox,
  clock.row,
  clock.help,
  el('div', { class: 'row' },
    el('label', {}, `${t('lobby.play-as')} `, side),
    el('label', {}, rated, ` ${t('lobby.rated')}`)),
  el('button', { type: 'submit', 'data-action': 'send-challenge' }, t('challenge.send', { name })),
  answer) as HTMLFormElement;
  optionFields(variant.value, optionBox);
  clock.show();
  const toggle = el('button', { type: 'button', class: 'small', 'data-action': 'challenge',
    onclick: () => { form.hidden = !form.hidden; } }, t('challenge.challenge'));
  return { toggle, form };
}

/** A challenge's game in words: which game, its clock, rated or not. */
function terms(game: GameView): string {
  const parts = [gameTitle(variantInfo(game.variant), game.variant), clockText(game.time_control)];
  parts.push(game.rated ? t('lobby.seek-rated') : t('lobby.seek-casual'));
  return parts.join(' · ');
}

const tray = el('aside', { class: 'challenge-tray', 'aria-live': 'polite', 'data-challenge-tray': '', hidden: true });
document.body.append(tray);
let stream: EventSource | null = null;
let followed: string | null = null;
/** How long to wait before following again after the stream ended for good. */
let retryDelay = 1000;

/** Follows the logged-in player's challenges (or stops, once nobody is logged in): called
 * whenever the account may have changed. */
export function followChallenges() {
  const name = store.me.account?.username ?? null;
  if (name === followed) return;
  stream?.close();
  stream = null;
  followed = name;
  showTray({ incoming: [], outgoing: [] });
  if (!name) return;
  // The browser reconnects a dropped stream by itself; the server sends the whole list again.
  stream = new EventSource('/api/challenges/events');
  // A stream the server ended for good (the session ended, or the server failed): look again
  // at who is logged in, after a wait that grows while it keeps failing.
  stream.onerror = () => {
    if (stream?.readyState !== EventSource.CLOSED) return;
    followed = null;
    window.setTimeout(() => window.dispatchEvent(new Event('tsubame:account-changed')), retryDelay);
    retryDelay = Math.min(retryDelay * 2, 60_000);
  };
  stream.addEventListener('challenges', (event) => {
    let list: ChallengeList;
    try {
      list = JSON.parse((event as MessageEvent).data);
    } catch { return; /* a malformed event changes nothing */ }
    retryDelay = 1000;
    showTray(list);
    for (const started of list.arena_games || []) takeToArenaGame(started.game_id);
  });
}

function showTray(list: Pick<ChallengeList, 'incoming' | 'outgoing'>) {
  const { node: answer, say } = answerLine({ 'data-challenge-tray-answer': '' });
  const incoming = list.incoming.map((c) => el('div', { class: 'challenge', 'data-incoming-challenge': c.game_id },
    el('strong', {}, t('challenge.from', { name: c.from })),
    el('span', {}, terms(c.game)),
    el('span', {}, t('challenge.you-play', { side: t(c.from_side === 'sente' ? 'frame.Gote' : 'frame.Sente') })),
    el('div', { class: 'row' },
      el('button', { type: 'button', 'data-action': 'accept-challenge', onclick: async () => {
        try {
          const grant = await api<SeatGrant>(`/api/games/${c.game_id}/join`, {});
          localStorage.setItem(`tsubame.token.${c.game_id}`, grant.token);
          navigate(`/game/${c.game_id}`);
        } catch (e) { say(errorText(e), false); }
      } }, t('challenge.accept')),
      el('button', { type: 'button', class: 'secondary', 'data-action': 'decline-challenge', onclick: async () => {
        try {
          await api(`/api/games/${c.game_id}/decline`, {});
        } catch (e) { say(errorText(e), false); }
      } }, t('challenge.decline')))));
  const outgoing = list.outgoing.map((c) => el('div', { class: 'challenge outgoing', 'data-outgoing-challenge': c.game_id },
    el('a', { href: `/game/${c.game_id}` }, t('challenge.waiting-for', { name: c.to })),
    el('span', {}, terms(c.game))));
  tray.replaceChildren(...incoming, ...outgoing, answer);
  tray.hidden = !incoming.length && !outgoing.length;
  // The tab's title says a challenge waits while the player looks elsewhere.
  document.title = document.title.replace(/^\(\d+\) /, '');
  if (incoming.length) document.title = `(${incoming.length}) ${document.title}`;
}
