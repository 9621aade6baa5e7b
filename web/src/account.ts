// Who is logged in: the top bar's account links, the sign-up and login pages, players' names and
// ratings.

import { page, store, navigate } from './state';
import { api } from './api';
import { el } from './dom';
import { app } from './prefs';

export const accountBox = document.getElementById('account');
/** `{account, your_turn}` from the server: who is logged in, and how many games wait for them. */

export function myName() {
  return store.me.account?.username || null;
}

export async function refreshAccount() {
  try {
    store.me = await api('/api/account');
  } catch {
    store.me = { account: null, your_turn: 0 };
  }
  showAccount();
}

export function showAccount() {
  const name = myName();
  accountBox.replaceChildren(...(name
    ? [el('a', { href: `/@/${name}`, 'data-me': name }, name),
      store.me.your_turn ? el('a', { href: `/@/${name}`, class: 'your-turn', 'data-your-turn': store.me.your_turn,
        title: 'Games waiting for your move' }, `${store.me.your_turn} your turn`) : null,
      el('button', { type: 'button', class: 'link', 'data-action': 'logout', onclick: logout }, 'Log out')]
    : [el('a', { href: '/login', 'data-action': 'login' }, 'Log in'),
      el('a', { href: '/signup', 'data-action': 'signup' }, 'Sign up')]).filter(Boolean));
}

export async function logout() {
  try { await api('/api/account/logout', {}); } catch { /* the cookie is cleared either way */ }
  await refreshAccount();
  page.route();
}

/** The sign-up and login pages: one form, a name and a password. */
export function accountPage(kind) {
  const signup = kind === 'signup';
  const error = el('div', { class: 'error', 'data-account-error': '' });
  const username = el('input', { name: 'username', autocomplete: 'username', required: true,
    minlength: signup ? 3 : undefined, maxlength: signup ? 20 : undefined, pattern: signup ? '[A-Za-z0-9_\\-]+' : undefined });
  const password = el('input', { name: 'password', type: 'password', required: true,
    autocomplete: signup ? 'new-password' : 'current-password', minlength: signup ? 8 : undefined });
  const back = sessionStorage.getItem('tsubame.after-login') || '/';
  const form = el('form', { class: 'panel account-form', onsubmit: async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      await api(`/api/account/${kind}`, { username: username.value.trim(), password: password.value });
      sessionStorage.removeItem('tsubame.after-login');
      await refreshAccount();
      navigate(back);
    } catch (e) {
      error.textContent = e.message;
    }
  } },
  el('h2', {}, signup ? 'Sign up' : 'Log in'),
  el('label', {}, 'User name', username),
  signup ? el('small', { class: 'help' }, '3 to 20 letters, digits, _ and -.') : null,
  el('label', {}, 'Password', password),
  signup ? el('small', { class: 'help' }, 'At least 8 characters.') : null,
  el('button', { type: 'submit', 'data-action': `${kind}-submit` }, signup ? 'Create account' : 'Log in'),
  error,
  el('p', { class: 'help' }, signup
    ? ['Have an account? ', el('a', { href: '/login' }, 'Log in')]
    : ['New here? ', el('a', { href: '/signup' }, 'Sign up'), ' — or play as a guest from the ', el('a', { href: '/' }, 'lobby'), '.']));
  app.replaceChildren(form);
  username.focus();
}

/** A rating as shown: `1662?` while provisional. */
export function ratingText(rating) {
  return rating ? `${rating.rating}${rating.provisional ? '?' : ''}` : '';
}

export function changeText(change) {
  return change > 0 ? `+${change}` : String(change);
}

/** Whether a name is an account's (guests' and the computer's are not). */
export function isAccountName(name, player) {
  return player === 'human' && name && !name.startsWith('Guest-');
}

/** A seat's player as shown on boards and lists: the name (a link to their page for an
 * account), the rating when the game started, and once rated, its change. */
export function playerNode(game, side) {
  const name = game[`${side}_name`] || (game[`${side}_player`] === 'open' ? 'waiting…' : side);
  const rating = game[`${side}_rating`];
  return el('span', { class: 'player', 'data-player': side },
    isAccountName(name, game[`${side}_player`])
      ? el('a', { href: `/@/${name}`, 'data-player-name': name }, name) : el('span', { 'data-player-name': name }, name),
    rating ? el('span', { class: 'rating', 'data-rating': side }, ` ${ratingText(rating)}`) : null,
    rating?.change != null ? el('span', { class: `rating-change ${rating.change >= 0 ? 'up' : 'down'}`, 'data-rating-change': side },
      ` ${changeText(rating.change)}`) : null);
}

export function playersNode(game) {
  return el('span', { class: 'players' }, playerNode(game, 'sente'), ' – ', playerNode(game, 'gote'));
}
