// Who is logged in: the top bar's account links, the sign-up and login pages, players' names and
// ratings.

import { page, store, navigate } from './state';
import { followChallenges } from './challenges';
import { api, errorText } from './api';
import { el } from './dom';
import { app } from './prefs';
import { sideName, t, tParts } from './i18n';
import type { GameView, SeatRating, Side, WhoAmI } from './types';
import type { AccountAnswer, Player } from './api-types';

export const accountBox = document.getElementById('account') as HTMLElement;
/** `{account, your_turn}` from the server: who is logged in, and how many games wait for them. */

export function myName() {
  return store.me.account?.username || null;
}

export async function refreshAccount() {
  try {
    store.me = await api<WhoAmI>('/api/account');
  } catch {
    store.me = { account: null, your_turn: 0 };
  }
  showAccount();
}

export function showAccount() {
  followChallenges();
  const name = myName();
  // On a phone the bar keeps the name and the games waiting (their count alone); settings,
  // the administrators' page and logging out move into the menu.
  accountBox.replaceChildren(...(name
    ? [el('a', { href: `/@/${name}`, 'data-me': name, title: name }, name),
      store.me.your_turn ? el('a', { href: `/@/${name}`, class: 'your-turn', 'data-your-turn': store.me.your_turn,
        title: t('account.your-turn-title'), 'aria-label': t('account.your-turn-count', { count: store.me.your_turn }) },
      el('span', { class: 'your-turn-count' }, String(store.me.your_turn)),
      el('span', { class: 'your-turn-words' }, ` ${t('account.your-turn-count', { count: store.me.your_turn }).replace(String(store.me.your_turn), '').trim()}`)) : null,
      store.me.account?.admin ? el('a', { href: '/admin', class: 'wide-only', 'data-action': 'admin' }, t('account.admin')) : null,
      el('a', { href: '/account', class: 'settings-link wide-only', 'data-action': 'settings', title: t('account.settings'), 'aria-label': t('account.settings') }, '⚙'),
      el('button', { type: 'button', class: 'link wide-only', 'data-action': 'logout', onclick: logout }, t('account.log-out'))]
    : [el('a', { href: '/login', 'data-action': 'login' }, t('account.log-in')),
      el('a', { href: '/signup', 'data-action': 'signup' }, t('account.sign-up'))]).filter((node) => node !== null));
  accountMenu.replaceChildren(...(name
    ? [store.me.account?.admin ? el('a', { href: '/admin', 'data-menu-action': 'admin' }, t('account.admin')) : null,
      el('a', { href: '/account', 'data-menu-action': 'settings' }, t('account.settings')),
      el('button', { type: 'button', class: 'link', 'data-menu-action': 'logout', onclick: logout }, t('account.log-out'))]
    : []).filter((node) => node !== null));
}

const accountMenu = document.getElementById('account-menu') as HTMLElement;

export async function logout() {
  try { await api<AccountAnswer>('/api/account/logout', {}); } catch { /* the cookie is cleared either way */ }
  await refreshAccount();
  page.route();
}

/** The sign-up and login pages: one form, a name and a password. */
export function accountPage(kind: 'login' | 'signup') {
  const signup = kind === 'signup';
  const error = el('div', { class: 'error', 'data-account-error': '' });
  const username = el('input', { name: 'username', autocomplete: 'username', required: true,
    minlength: signup ? 3 : undefined, maxlength: signup ? 20 : undefined, pattern: signup ? '[A-Za-z0-9_\\-]+' : undefined });
  const password = el('input', { name: 'password', type: 'password', required: true,
    autocomplete: signup ? 'new-password' : 'current-password', minlength: signup ? 8 : undefined });
  const back = sessionStorage.getItem('tsubame.after-login') || '/';
  const form = el('form', { class: 'panel account-form', onsubmit: async (event: SubmitEvent) => {
    event.preventDefault();
    error.textContent = '';
    try {
      await api<AccountAnswer>(`/api/account/${kind}`, { username: username.value.trim(), password: password.value });
      sessionStorage.removeItem('tsubame.after-login');
      await refreshAccount();
      navigate(back);
    } catch (e) {
      error.textContent = errorText(e);
    }
  } },
  el('h2', {}, signup ? t('account.sign-up') : t('account.log-in')),
  el('label', {}, t('account.user-name'), username),
  signup ? el('small', { class: 'help' }, t('account.user-name-help')) : null,
  el('label', {}, t('account.password'), password),
  signup ? el('small', { class: 'help' }, t('account.password-help')) : null,
  el('button', { type: 'submit', 'data-action': `${kind}-submit` }, signup ? t('account.create-account') : t('account.log-in')),
  error,
  el('p', { class: 'help' }, signup
    ? tParts('account.have-account', { login: el('a', { href: '/login' }, t('account.log-in')) })
    : tParts('account.new-here', { signup: el('a', { href: '/signup' }, t('account.sign-up')),
      lobby: el('a', { href: '/' }, t('account.lobby')) })));
  app.replaceChildren(form);
  username.focus();
}

/** A rating as shown: `1662?` while provisional. */
export function ratingText(rating: SeatRating | null | undefined): string {
  return rating ? `${rating.rating}${rating.provisional ? '?' : ''}` : '';
}

export function changeText(change: number): string {
  return change > 0 ? `+${change}` : String(change);
}

/** Whether a name is an account's (guests' and the computer's are not). */
export function isAccountName(name: string, player: Player) {
  return player === 'human' && name && !name.startsWith('Guest-') && name !== DELETED_NAME;
}

/** The name the server shows for an account its owner deleted. */
export const DELETED_NAME = '[deleted]';

/** A seat's player as shown on boards and lists: the name (a link to their page for an
 * account), the rating when the game started, and once rated, its change. */
export function playerNode(game: GameView, side: Side): HTMLElement {
  const name = game[`${side}_name`] || (game[`${side}_player`] === 'open' ? 'waiting…' : side);
  // A seat without a name, and the computer's (named by the server in English), shows the
  // words for it in the visitor's language; the data keeps the English.
  const computer = game[`${side}_player`] === 'engine' && /^Computer level (\d+)$/.exec(game[`${side}_name`] || '');
  const shown = computer ? t('account.computer-level', { level: computer[1] })
    : name === DELETED_NAME ? t('account.deleted-player')
      : game[`${side}_name`] || (game[`${side}_player`] === 'open' ? t('account.waiting') : sideName(side));
  const rating = game[`${side}_rating`];
  return el('span', { class: 'player', 'data-player': side },
    isAccountName(name, game[`${side}_player`])
      ? el('a', { href: `/@/${name}`, 'data-player-name': name }, name) : el('span', { 'data-player-name': name }, shown),
    rating ? el('span', { class: 'rating', 'data-rating': side }, ` ${ratingText(rating)}`) : null,
    rating?.change != null ? el('span', { class: `rating-change ${rating.change >= 0 ? 'up' : 'down'}`, 'data-rating-change': side },
      ` ${changeText(rating.change)}`) : null);
}

export function playersNode(game: GameView): HTMLElement {
  return el('span', { class: 'players' }, playerNode(game, 'sente'), ' – ', playerNode(game, 'gote'));
}
