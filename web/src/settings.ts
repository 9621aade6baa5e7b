// A player's own account: change the password, log out everywhere, download every game,
// delete the account. Each change that could lock a player out asks for the password or a
// confirmation first, and says what happened.

import { api, errorText } from './api';
import { answerLine, el } from './dom';
import { t } from './i18n';
import { refreshAccount, myName } from './account';
import { app } from './prefs';
import { navigate } from './state';
import { blockedSection } from './moderation';

/** A form section: its heading, what it is for, its fields and button, and a line that
 * answers (an error in red, a success in green). */
function section(name: string, heading: string, help: string, fields: HTMLElement[], button: HTMLButtonElement,
  submit: (say: (text: string, ok: boolean) => void) => Promise<void>) {
  const { node: answer, say } = answerLine({ 'data-settings-answer': name });
  const form = el('form', { class: 'panel settings-section', 'data-settings': name, onsubmit: async (event: Event) => {
    event.preventDefault();
    say('', true);
    button.disabled = true;
    try {
      await submit(say);
    } catch (e) {
      say(errorText(e), false);
    } finally {
      button.disabled = false;
    }
  } }, el('h2', {}, heading), el('p', { class: 'help' }, help), ...fields, button, answer);
  return form;
}

function passwordField(name: string, label: string, autocomplete: string, minlength?: number) {
  const input = el('input', { type: 'password', name, required: true, autocomplete, minlength }) as HTMLInputElement;
  return { input, label: el('label', {}, label, input) };
}

/** The settings page at `/account`; a visitor who is not logged in is sent to log in first. */
export function settingsPage() {
  document.title = `${t('settings.title')} · Tsubame`;
  const name = myName();
  if (!name) {
    sessionStorage.setItem('tsubame.after-login', '/account');
    app.replaceChildren(el('div', { class: 'panel settings-login' },
      el('h2', {}, t('settings.title')),
      el('p', {}, t('settings.log-in-first'), ' ', el('a', { href: '/login', 'data-action': 'login' }, t('account.log-in')))));
    return;
  }

  const current = passwordField('current_password', t('settings.current-password'), 'current-password');
  const fresh = passwordField('new_password', t('settings.new-password'), 'new-password', 8);
  const changeButton = el('button', { type: 'submit', 'data-action': 'change-password' }, t('settings.change-password')) as HTMLButtonElement;
  const password = section('password', t('settings.password-heading'), t('settings.password-help'),
    [current.label, fresh.label, el('small', { class: 'help' }, t('account.password-help'))], changeButton,
    async (say) => {
      await api('/api/account/password', { current_password: current.input.value, new_password: fresh.input.value });
      current.input.value = '';
      fresh.input.value = '';
      say(t('settings.password-changed'), true);
    });

  const everywhereButton = el('button', { type: 'submit', 'data-action': 'logout-everywhere' }, t('settings.log-out-everywhere')) as HTMLButtonElement;
  const sessions = section('sessions', t('settings.sessions-heading'), t('settings.sessions-help'), [], everywhereButton,
    async () => {
      if (!window.confirm(t('settings.log-out-everywhere-confirm'))) return;
      await api('/api/account/logout-everywhere', {});
      await refreshAccount();
      navigate('/login');
    });

  const games = el('section', { class: 'panel settings-section', 'data-settings': 'games' },
    el('h2', {}, t('settings.games-heading')),
    el('p', { class: 'help' }, t('settings.games-help')),
    el('div', { class: 'actions' },
      el('a', { class: 'button', href: '/api/account/games/download', download: `tsubame-${name}-games.txt`, 'data-action': 'download-games' },
        t('settings.download-games')),
      // The Tori games in the formats other programs read: KIF (with each move's time) and PGN.
      el('a', { class: 'button secondary', href: '/api/account/games/download?format=kif', download: `tsubame-${name}-games.kif`,
        'data-action': 'download-kif' }, t('settings.download-kif')),
      el('a', { class: 'button secondary', href: '/api/account/games/download?format=pgn', download: `tsubame-${name}-games.pgn`,
        'data-action': 'download-pgn' }, t('settings.download-pgn'))));

  const deletion = passwordField('password', t('account.password'), 'current-password');
  const deleteButton = el('button', { type: 'submit', class: 'danger', 'data-action': 'delete-account' }, t('settings.delete-account')) as HTMLButtonElement;
  const remove = section('delete', t('settings.delete-heading'), t('settings.delete-help'), [deletion.label], deleteButton,
    async () => {
      if (!window.confirm(t('settings.delete-confirm', { name }))) return;
      await api('/api/account/delete', { password: deletion.input.value });
      await refreshAccount();
      navigate('/');
    });

  app.replaceChildren(el('div', { class: 'settings', 'data-settings-page': name },
    el('h2', { class: 'settings-title' }, t('settings.title-of', { name })),
    password, sessions, games, blockedSection(), remove));
}
