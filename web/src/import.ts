// Pasting or importing a record, and replaying it.

import { page, store } from './state';
import { api, errorText, refusalText } from './api';
import { Board } from './board';
import { el } from './dom';
import { gameAnalysisNode } from './evalgraph';
import { exportNode, keepInView, moveListNode, REPLAY_BUTTONS } from './gameparts';
import { app } from './prefs';
import { gameTitle, sideName, t } from './i18n';
import { reasonText } from './player';
import { variantInfo } from './util';
import type { ImportedGame, Imported, ImportTags, ReplayedGame } from './api-types';

/** A form that sets up a position: `submit` hears the game, its options, the start (the game's
 * own when none is given) and the moves, and throws what the form is to say. */
export function positionForm({ title, withMoves, submit }: { title: string; withMoves: boolean;
  submit: (position: { variant: string; options: string; sfen?: string; moves: string[] }) => Promise<void> }) {
  const variantSelect = el('select', { name: 'variant' },
    store.variants.filter((v) => v.available).map((v) => el('option', { value: v.name }, gameTitle(v))));
  const options = el('input', { name: 'options', placeholder: t('import.options-placeholder'), size: 24 });
  const sfen = el('input', { name: 'sfen', placeholder: t('import.sfen-placeholder'), size: 40 });
  const moves = el('textarea', { name: 'moves', rows: 4, placeholder: t('import.moves-placeholder') });
  const error = el('div', { class: 'error' });
  const form = el('form', { class: 'panel create', onsubmit: async (event: SubmitEvent) => {
    event.preventDefault();
    error.textContent = '';
    let text = moves.value.trim();
    let start = sfen.value.trim() || undefined;
    const match = text.match(/^(?:position\s+)?sfen\s+(.+?)(?:\s+moves\s+(.*))?$/s);
    if (match) { start = match[1].trim(); text = match[2] || ''; }
    try {
      await submit({ variant: variantSelect.value, options: options.value.trim(), sfen: start,
        moves: text.split(/\s+/).filter(Boolean) });
    } catch (e) {
      error.textContent = errorText(e);
    }
  } }, el('h2', {}, title), el('label', {}, `${t('import.game')} `, variantSelect),
  el('label', {}, `${t('import.options')} `, options),
  el('label', {}, `${t('import.position')} `, sfen), withMoves ? moves : null,
  el('button', { type: 'submit', 'data-action': 'load' }, withMoves ? t('import.load') : t('import.set-up')), error);
  return form;
}

export function importPage() {
  const board = new Board({ onMove: () => {}, onFlip: () => showPlayers() });
  const moveBox = el('div', { class: 'panel' });
  const exportBox = el('div');
  const analysisBox = el('div', { class: 'panel' });
  let analysedRecord: ReplayedGame | null = null;
  let record: ReplayedGame | null = null;
  /** What the imported record says of its game: players, day, clock (none for a pasted line). */
  let tags: ImportTags | null = null;
  let ply = 0;
  /** The analysis's mark of each move, by ply, once the game has been analysed. */
  let marks = new Map<number, string>();
  /** The analysis's better move at each position before a marked move, by ply. */
  let better = new Map<number, string>();
  /** The imported game's players over and under the board, as in a game, where it names them. */
  function showPlayers() {
    const known = (v: string | null | undefined) => (v && !/^[?.]+$/.test(v) ? v : null);
    // The day and the clock once, over the board (`tags` is there when the side is named).
    const bar = (side: 'sente' | 'gote', top: boolean) => (known(tags?.[side])
      ? [el('div', { class: 'clock', 'data-import-player': side },
        el('div', { class: 'p who' }, `${side === 'sente' ? '☗' : '☖'} ${known(tags![side])}`),
        el('div', { class: 'p sub' }, top ? [known(tags!.date), known(tags!.time_control)].filter(Boolean).join(' · ') : ''))]
      : []);
    board.topBar.replaceChildren(...bar(board.flipped ? 'sente' : 'gote', true));
    board.bottomBar.replaceChildren(...bar(board.flipped ? 'gote' : 'sente', false));
  }
  function show() {
    // Called once a record is loaded, never before.
    const loaded = record!;
    showPlayers();
    board.setState({ variant: loaded.variant, sfen: loaded.positions[ply], interactive: false,
      lastMove: ply > 0 ? loaded.usi[ply - 1] : null, check: loaded.checks[ply] });
    board.setArrow(better.get(ply));
    const moves = loaded.hodges.map((h, i) => ({ ply: i + 1, hodges: h, usi: loaded.usi[i],
      japanese: loaded.japanese?.[i], short: loaded.short?.[i], check: loaded.gives_check[i],
      judgement: marks.get(i + 1) }));
    moveBox.replaceChildren(el('h2', {}, t('import.record')),
      moveListNode(moves, ply, (p: number) => { ply = p; show(); }, () => show()),
      el('div', { class: 'actions' }, REPLAY_BUTTONS.map(([label, words], i) => el('button', { class: 'secondary', 'data-replay': i, 'aria-label': words, title: words,
        onclick: () => { ply = Math.max(0, Math.min(loaded.usi.length, [0, ply - 1, ply + 1, loaded.usi.length][i])); show(); } }, label))),
      // replaceChildren writes a null as the text "null": leave the result out instead.
      ...(loaded.outcome ? [el('div', { class: 'result' }, loaded.outcome.winner
        ? t('import.result-win', { side: sideName(loaded.outcome.winner), reason: reasonText(loaded.outcome.reason) })
        : t('import.result-none', { reason: reasonText(loaded.outcome.reason) }))] : []));
    moveBox.hidden = false;
    keepInView(moveBox);
    exportBox.replaceChildren(exportNode(loaded));
    analysisBox.hidden = false;
    if (analysedRecord !== loaded) {
      analysedRecord = loaded;
      analysisBox.replaceChildren(el('h2', {}, t('import.analysis')), gameAnalysisNode(loaded, (p) => { ply = p; show(); },
        (judged) => { marks = judged.marks; better = judged.better; show(); }));
    }
  }
  const form = positionForm({ title: t('import.set-up-sfen'), withMoves: true, submit: async (request) => {
    record = await api<ReplayedGame>('/api/replay', request);
    tags = null;
    marks = new Map();
    better = new Map();
    ply = record.usi.length;
    show();
  } });
  // A record file or pasted text in any format the server reads; a file of several games
  // offers them in a list.
  const pasted = el('textarea', { name: 'record', rows: 6,
    placeholder: t('import.paste-placeholder') });
  const file = el('input', { type: 'file', name: 'record-file', accept: '.kif,.kifu,.pgn,.tsr,.txt,.record,text/plain' });
  const format = el('select', { name: 'format' }, [['auto', t('import.format-auto')], ['kif', 'KIF'], ['pgn', t('import.format-pgn')],
    ['record', t('import.format-record')], ['hodges', t('import.format-hodges')]].map(([v, label]) => el('option', { value: v }, label)));
  const hodgesGame = el('select', { name: 'hodges-variant' },
    store.variants.filter((v) => v.available).map((v) => el('option', { value: v.name }, gameTitle(v))));
  const picker = el('select', { name: 'game-pick', hidden: true });
  const importError = el('div', { class: 'error' });
  let imported: ImportedGame[] = [];
  const showImported = (index: number) => {
    record = imported[index];
    tags = imported[index].tags ?? null;
    marks = new Map();
    better = new Map();
    ply = record.usi.length;
    show();
  };
  picker.addEventListener('change', () => showImported(Number(picker.value)));
  const readRecord = async (body: string | ArrayBuffer) => {
    importError.textContent = '';
    const query = new URLSearchParams({ format: format.value, variant: hodgesGame.value });
    try {
      const response = await fetch(`/api/import?${query}`, { method: 'POST', body });
      const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      if (!response.ok) throw new Error(refusalText(data, response.status));
      imported = (data as Imported).games;
      const label = (g: ImportedGame, i: number) => {
        // PGN writes `?` for what it does not know.
        const known = (v: string | null | undefined) => (v && !/^[?.]+$/.test(v) ? v : null);
        const tags = Object.fromEntries(Object.entries(g.tags || {}).map(([k, v]) => [k, known(v)]));
        const players = tags.sente || tags.gote ? `${tags.sente || '?'} – ${tags.gote || '?'}` : t('import.game-number', { number: i + 1 });
        // PGN's result for a game without one (`*`) reads as words.
        const result = tags.result && tags.result !== '*' ? tags.result : t('import.no-result');
        return `${i + 1}. ${players}${tags.date ? `, ${tags.date}` : ''} (${result}, ${t('import.plies', { count: g.usi.length })})`;
      };
      picker.replaceChildren(...imported.map((g, i) => el('option', { value: i }, label(g, i))));
      picker.hidden = imported.length < 2;
      if (imported.length) showImported(0);
    } catch (e) {
      importError.textContent = errorText(e);
    }
  };
  file.addEventListener('change', async () => {
    // Sent as bytes: a KIF file may be Shift-JIS, which the server reads.
    if (file.files?.[0]) await readRecord(await file.files[0].arrayBuffer());
  });
  const importForm = el('form', { class: 'panel create',
    onsubmit: (event: SubmitEvent) => { event.preventDefault(); readRecord(pasted.value); } },
    el('h2', {}, t('import.import-record')), pasted,
    el('label', {}, `${t('import.file')} `, file), el('label', {}, `${t('import.format')} `, format),
    el('label', {}, `${t('import.hodges-game')} `, hodgesGame),
    el('button', { type: 'submit', 'data-action': 'import' }, t('import.import')), picker, importError);
  app.replaceChildren(el('div', { class: 'play' }, board.root, el('div', { class: 'side-area' }, importForm, moveBox, analysisBox, exportBox, form)));
  // Before a record is loaded: the chosen game's start position, and no empty record panel.
  moveBox.hidden = true;
  analysisBox.hidden = true;
  const variantSelect = form.querySelector<HTMLSelectElement>('select[name="variant"]')!;
  const showStart = () => {
    const info = variantInfo(variantSelect.value);
    if (!record && info) board.setState({ variant: info.name, sfen: info.start_sfen, interactive: false });
  };
  variantSelect.addEventListener('change', showStart);
  showStart();
  page.cleanup = () => board.destroy();
  page.rerender = () => { if (record) show(); else showStart(); };
  page.holdsWork = () => record !== null;
}

/** The depths a continuous analysis goes through, each a search of its own. */
