// Keeping the site civil: blocking and reporting a player from their page, the list of
// blocked players in the settings, and the administrators' page of reports and measures.

import { api, errorText } from './api';
import { answerLine, el } from './dom';
import { lang, t } from './i18n';
import { app } from './prefs';
import { store } from './state';
import type { BlockAnswer, BlockList, ReportList, ReportView } from './api-types';

const REASONS = ['cheating', 'abuse', 'name', 'other'];

const when = (ms: number) => new Date(ms).toLocaleString(lang() === 'ja' ? 'ja-JP' : undefined);

/** The block and report buttons under another player's name, for a logged-in visitor. */
export function playerActions(player: { username: string; blocked: boolean }) {
  if (!store.me.account) return null;
  const name = player.username;
  const { node: answer, say } = answerLine({ 'data-moderation-answer': '' });
  let blocked = player.blocked;
  const blockButton = el('button', { type: 'button', class: 'secondary small' }) as HTMLButtonElement;
  const showBlock = () => {
    blockButton.textContent = blocked ? t('moderation.unblock') : t('moderation.block');
    blockButton.dataset.action = blocked ? 'unblock' : 'block';
  };
  showBlock();
  blockButton.onclick = async () => {
    try {
      const done = await api<BlockAnswer>(`/api/players/${encodeURIComponent(name)}/${blocked ? 'unblock' : 'block'}`, {});
      blocked = done.blocked;
      showBlock();
      say(blocked ? t('moderation.blocked', { name }) : t('moderation.unblocked', { name }), true);
    } catch (e) {
      say(errorText(e), false);
    }
  };
  const reason = el('select', { name: 'reason' },
    REASONS.map((r) => el('option', { value: r }, t(`moderation.reason-${r}`)))) as HTMLSelectElement;
  const text = el('textarea', { name: 'text', rows: 3, maxlength: 1000, required: true,
    placeholder: t('moderation.report-placeholder') }) as HTMLTextAreaElement;
  const form = el('form', { class: 'report-form', hidden: true, 'data-report-form': '', onsubmit: async (event: Event) => {
    event.preventDefault();
    try {
      await api(`/api/players/${encodeURIComponent(name)}/report`, { reason: reason.value, text: text.value });
      form.hidden = true;
      text.value = '';
      say(t('moderation.reported', { name }), true);
    } catch (e) {
      say(errorText(e), false);
    }
  } },
  el('label', {}, t('moderation.reason'), reason),
  el('label', {}, t('moderation.what-happened'), text),
  el('button', { type: 'submit', 'data-action': 'send-report' }, t('moderation.send-report')));
  const reportButton = el('button', { type: 'button', class: 'secondary small', 'data-action': 'report',
    onclick: () => { form.hidden = !form.hidden; if (!form.hidden) text.focus(); } }, t('moderation.report'));
  return el('div', { class: 'player-actions' }, el('div', { class: 'row' }, blockButton, reportButton), form, answer);
}

/** The settings' list of blocked players, each with its unblock button. */
export function blockedSection() {
  const list = el('ul', { class: 'blocked-list', 'data-blocked-list': '' });
  const section = el('section', { class: 'panel settings-section', 'data-settings': 'blocks' },
    el('h2', {}, t('moderation.blocked-heading')),
    el('p', { class: 'help' }, t('moderation.blocked-help')), list);
  const fill = async () => {
    try {
      const { blocked } = await api<BlockList>('/api/account/blocks');
      list.replaceChildren(...(blocked.length ? blocked.map((b) => el('li', { 'data-blocked': b.username },
        el('a', { href: `/@/${b.username}` }, b.username), ' ',
        el('button', { type: 'button', class: 'secondary small', 'data-action': 'unblock', onclick: async () => {
          await api(`/api/players/${encodeURIComponent(b.username)}/unblock`, {}).catch(() => null);
          fill();
        } }, t('moderation.unblock'))))
        : [el('li', { class: 'help' }, t('moderation.none-blocked'))]));
    } catch (e) {
      list.replaceChildren(el('li', { class: 'error' }, errorText(e)));
    }
  };
  fill();
  return section;
}

/** The administrators' page at `/admin`: open or resolved reports, each with the measures an
 * administrator takes, and the same measures for any player by name. */
export async function adminPage(status = 'open', notice: { text: string; ok: boolean } | null = null) {
  document.title = `${t('moderation.admin-title')} · Tsubame`;
  if (!store.me.account?.admin) {
    app.replaceChildren(el('div', { class: 'panel', 'data-admin-refused': '' },
      el('h2', {}, t('moderation.admin-title')), el('p', {}, t('moderation.admins-only'))));
    return;
  }
  const { node: answer, say } = answerLine({ 'data-admin-answer': '' });
  if (notice) say(notice.text, notice.ok);
  // A measure taken: the page drawn again with what changed, and the word of it.
  const act = async (path: string, body: unknown, done: string) => {
    try {
      await api(path, body);
    } catch (e) {
      say(errorText(e), false);
      return;
    }
    await adminPage(status, { text: done, ok: true });
  };
  const measures = (name: string) => [
    el('button', { type: 'button', class: 'secondary small', 'data-action': 'mute',
      onclick: () => act(`/api/admin/players/${encodeURIComponent(name)}/mute`, { minutes: 1440 }, t('moderation.muted', { name })) },
    t('moderation.mute-day')),
    el('button', { type: 'button', class: 'secondary small', 'data-action': 'unmute',
      onclick: () => act(`/api/admin/players/${encodeURIComponent(name)}/mute`, { minutes: 0 }, t('moderation.unmuted', { name })) },
    t('moderation.unmute')),
    el('button', { type: 'button', class: 'small danger', 'data-action': 'close',
      onclick: () => window.confirm(t('moderation.close-confirm', { name }))
        && act(`/api/admin/players/${encodeURIComponent(name)}/close`, {}, t('moderation.closed-done', { name })) },
    t('moderation.close')),
    el('button', { type: 'button', class: 'secondary small', 'data-action': 'reopen',
      onclick: () => act(`/api/admin/players/${encodeURIComponent(name)}/reopen`, {}, t('moderation.reopened', { name })) },
    t('moderation.reopen')),
  ];
  let reports: ReportView[] = [];
  try {
    ({ reports } = await api<ReportList>(`/api/admin/reports?status=${status}`));
  } catch (e) {
    say(errorText(e), false);
  }
  const rows = reports.map((r) => {
    const resolution = el('input', { name: 'resolution', maxlength: 300, placeholder: t('moderation.resolution-placeholder'),
      'aria-label': t('moderation.resolution') }) as HTMLInputElement;
    return el('li', { class: 'panel report', 'data-report': r.id },
      el('p', {}, el('strong', {}, el('a', { href: `/@/${r.reported}` }, r.reported)), ' · ', t(`moderation.reason-${r.reason}`),
        ' · ', t('moderation.reported-by', { name: r.reporter }), ' · ', when(r.created_at),
        r.game_id ? [' · ', el('a', { href: `/game/${r.game_id}` }, t('moderation.the-game'))] : null),
      el('blockquote', { 'data-report-text': '' }, r.text),
      el('p', { class: 'help' }, r.reported_closed ? t('moderation.is-closed') : '',
        r.reported_muted_until ? t('moderation.is-muted', { until: when(r.reported_muted_until) }) : ''),
      // The server records who resolved a report together with when.
      r.resolved_at
        ? el('p', { 'data-resolution': '' },
          t('moderation.resolved-by', { name: r.resolved_by!, when: when(r.resolved_at) }), ': ', r.resolution)
        : el('div', { class: 'row' }, ...measures(r.reported)),
      r.resolved_at ? null : el('form', { class: 'row', onsubmit: (event: Event) => {
        event.preventDefault();
        act(`/api/admin/reports/${r.id}/resolve`, { resolution: resolution.value }, t('moderation.resolved'));
      } }, resolution, el('button', { type: 'submit', class: 'small', 'data-action': 'resolve' }, t('moderation.resolve'))));
  });
  const who = el('input', { name: 'player', placeholder: t('account.user-name'), 'aria-label': t('account.user-name') }) as HTMLInputElement;
  const anyone = el('div', { class: 'row' }, who, ...measures('').map((button) => {
    const action = button.dataset.action;
    const path = (name: string) => `/api/admin/players/${encodeURIComponent(name)}/${action === 'unmute' ? 'mute' : action}`;
    const body = action === 'mute' ? { minutes: 1440 } : action === 'unmute' ? { minutes: 0 } : {};
    button.onclick = () => who.value.trim() && (action !== 'close' || window.confirm(t('moderation.close-confirm', { name: who.value.trim() })))
      && act(path(who.value.trim()), body, t('moderation.done', { name: who.value.trim() }));
    return button;
  }));
  app.replaceChildren(el('div', { class: 'admin', 'data-admin': status },
    el('h2', {}, t('moderation.admin-title')),
    el('div', { class: 'row' },
      el('button', { type: 'button', class: status === 'open' ? '' : 'secondary', 'aria-pressed': String(status === 'open'),
        'data-reports': 'open', onclick: () => adminPage('open') }, t('moderation.open-reports')),
      el('button', { type: 'button', class: status === 'resolved' ? '' : 'secondary', 'aria-pressed': String(status === 'resolved'),
        'data-reports': 'resolved', onclick: () => adminPage('resolved') }, t('moderation.resolved-reports'))),
    answer,
    rows.length ? el('ul', { class: 'reports' }, rows) : el('p', { class: 'help', 'data-no-reports': '' }, t('moderation.no-reports')),
    el('section', { class: 'panel' }, el('h3', {}, t('moderation.any-player')), anyone)));
}
