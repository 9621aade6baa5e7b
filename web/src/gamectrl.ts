// The game page's state and what changes it: the game as the server last sent it, the seat
// this page acts for, the socket (messages in, commands out, reconnection), the position
// shown, the record and its analysis, the last refusal. The page (game.ts) draws it; the
// views (gameview.ts) read it. As a round's controller on the play sites: one object holding
// the page's state, changed only through its methods, and a redraw after each change.

import { api, errorText, refusalText } from './api';
import type { SeatGrant, SocketCommand, SocketMessage, StoredGameRecord } from './api-types';
import { clockAt, TENTHS_BELOW_MS } from './clock.js';
import type { MistakeTrainer } from './mistakes';
import type { GameView, Side } from './types';

/** How the page is drawn again after a change. */
export interface GameRedraw {
  /** The whole page: board, move list, panel. */
  show(): void;
  /** Only the panel and the clocks (a tick, the connection's state). */
  render(): void;
  /** The game does not exist: its page says so. */
  missing(): void;
  /** A message changed the game: what the page does once (sounds, the account's count, the
   * way back to an arena). */
  announced(message: GameMessage, before: GameView | null): void;
  /** The chat's lines: the room's newest, or a new one. */
  chat(message: ChatMessage): void;
  /** The session ended (logged out, here or elsewhere). */
  sessionEnded(): void;
  /** The record arrived. */
  recordLoaded(record: StoredGameRecord): void;
  /** Another page: a rematch, the arena, a new game. */
  navigate(path: string): void;
}

/** A socket message that carries the game. */
export type GameMessage = Extract<SocketMessage, { game: GameView }>;
/** A socket message that carries chat lines. */
export type ChatMessage = Extract<SocketMessage, { type: 'chat' | 'chat_history' }>;

/** The socket's state as shown: nothing, lost, or restored (for three seconds). */
export type ConnectionState = '' | 'lost' | 'restored';

/** Replay: the start, back a ply, forward a ply, the position now. */
export type Step = 0 | 1 | 2 | 3;

export class GameCtrl {
  game: GameView | null = null;
  /** The seat this page acts for, once the socket said. */
  seat: Side | null = null;
  /** When the game was received (`performance.now()`), which its clocks count from. */
  received = 0;
  /** The ply shown, when not the position now. */
  viewPly: number | null = null;
  record: StoredGameRecord | null = null;
  /** The analysis's mark of each move, by ply, once the finished game has been analysed. */
  marks = new Map<number, string>();
  /** The analysis's better move at each position before a marked move, by ply. */
  better = new Map<number, string>();
  /** Learning from one's mistakes in the analysed game, while the player does. */
  trainer: MistakeTrainer | null = null;
  connection: ConnectionState = '';
  /** The last refusal, until the next message is sent. */
  errorText = '';
  /** Whether the resign button asks again. */
  confirmingResign = false;
  /** The seat the last greeting named: the logged-in account's, if it holds one. */
  private greeted: Side | null = null;
  private lowTimeWarned = false;
  private socket: WebSocket | null = null;
  private closed = false;
  private lost = false;
  private restoredTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly id: string, readonly token: string | null, private readonly redraw: GameRedraw) {}

  /** Whether the side to move is this page's seat, in a game in play. */
  get myTurn(): boolean {
    return this.game?.status === 'playing' && this.seat === this.game.side_to_move;
  }

  /** Sends a command on the game's socket (the last refusal is cleared). */
  send(command: SocketCommand) {
    this.errorText = '';
    this.redraw.render();
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(command));
    else this.showLost();
  }

  /** Opens the game's socket, and opens it again a second after it closes until `close`. */
  connect() {
    if (this.closed) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/api/games/${this.id}/ws`);
    this.socket = socket;
    socket.onmessage = (event) => this.receive(JSON.parse(event.data) as SocketMessage);
    // The seat's token goes in a message, never in the URL, where proxies log it.
    socket.onopen = () => {
      if (this.token) socket.send(JSON.stringify({ type: 'auth', token: this.token, id: 'auth' }));
      this.showRestored();
    };
    socket.onclose = async (event) => {
      if (this.closed) return;
      // The session ended (logged out, here or elsewhere): the socket reconnects as whoever
      // the browser is now, and the top bar says so.
      if (event.code === 4001) this.redraw.sessionEnded();
      // A socket refused because the game does not exist is not a lost connection.
      const response = await fetch(`/api/games/${this.id}`).catch(() => null);
      if (this.closed) return;
      if (response?.status === 404) {
        this.close();
        this.redraw.missing();
        return;
      }
      this.showLost();
      setTimeout(() => this.connect(), 1000);
    };
  }

  /** Stops: no reconnection, the socket closed. */
  close() {
    this.closed = true;
    clearTimeout(this.restoredTimer);
    this.socket?.close();
  }

  private receive(message: SocketMessage) {
    switch (message.type) {
      case 'hello':
        // On every (re)connection the greeting comes first, then the answer to `auth`: a page
        // with a token keeps the seat it holds until that answer, so that a move made as the
        // socket comes back is not lost to a board the greeting made a spectator's.
        if (message.id !== 'auth') this.greeted = message.seat ?? null;
        if (message.id === 'auth' || !this.token || message.seat) this.seat = message.seat ?? null;
        this.redraw.show();
        return;
      case 'chat_history':
      case 'chat':
        this.redraw.chat(message);
        return;
      case 'ack':
      case 'pong':
        return;
      case 'error':
        // The token holds no seat (any more): the seat is the greeting's, the account's.
        if (message.id === 'auth') this.seat = this.greeted;
        this.errorText = refusalText(message);
        // The board showed the refused move already: put the position back.
        this.redraw.show();
        return;
      case 'state':
      case 'move':
      case 'end':
        this.receiveGame(message);
    }
  }

  private receiveGame(message: GameMessage) {
    const before = this.game;
    const next = message.game;
    this.redraw.announced(message, before);
    // Both players agreed to a rematch while this page was open: go to it, with this seat's
    // token, which holds the swapped seat there.
    if (next.rematch_id && before && !before.rematch_id && this.seat) {
      if (this.token) localStorage.setItem(`tsubame.token.${next.rematch_id}`, this.token);
      this.redraw.navigate(`/game/${next.rematch_id}`);
      return;
    }
    const moves = next.moves || [...(before?.moves || []), ...(next.last ? [next.last] : [])];
    this.game = { ...next, moves: moves.filter((m, i, all) => all.findIndex((x) => x.ply === m.ply) === i) };
    this.received = performance.now();
    if (this.game.status === 'finished' && !this.record) this.loadRecord();
    this.redraw.show();
  }

  private showLost() {
    this.lost = true;
    clearTimeout(this.restoredTimer);
    this.connection = 'lost';
    this.redraw.render();
  }

  private showRestored() {
    if (!this.lost) return;
    this.lost = false;
    this.connection = 'restored';
    this.redraw.render();
    this.restoredTimer = setTimeout(() => { this.connection = ''; this.redraw.render(); }, 3000);
  }

  /** Fetches the game's record (for replaying, analysis and export). */
  async loadRecord() {
    try {
      this.record = await api<StoredGameRecord>(`/api/games/${this.id}/record`);
      this.redraw.recordLoaded(this.record);
      this.redraw.show();
    } catch (e) {
      this.refused(e);
    }
  }

  /** Shows the position at `ply` (the record is fetched for a past one). */
  showPly(ply: number) {
    this.viewPly = ply;
    if (!this.record) this.loadRecord();
    this.redraw.show();
  }

  /** Steps through the moves: the start, back, forward, the position now. */
  step(where: Step) {
    const game = this.game;
    if (!game) return;
    const ply = this.viewPly === null ? game.ply : this.viewPly;
    const target = [0, ply - 1, ply + 1, game.ply][where];
    this.viewPly = Math.max(0, Math.min(game.ply, target));
    if (!this.record && this.viewPly !== game.ply) this.loadRecord();
    this.redraw.show();
  }

  /** Halves this player's main time in a tournament's game, for a point more if they win. */
  async berserk() {
    try {
      await api(`/api/games/${this.id}/berserk`, { token: this.token || undefined });
    } catch (e) {
      this.refused(e);
    }
  }

  /** A new game against the computer with this one's game, rules, level, clock and side. */
  async playAgain() {
    const game = this.game;
    if (!game || !this.seat) return;
    try {
      const grant = await api<SeatGrant>('/api/games', {
        variant: game.variant, options: game.options, opponent: 'engine', level: game.engine_level,
        side: this.seat, clock: game.time_control,
      });
      localStorage.setItem(`tsubame.token.${grant.game_id}`, grant.token);
      this.redraw.navigate(`/game/${grant.game_id}`);
    } catch (e) {
      this.refused(e);
    }
  }

  /** Asks again before resigning, or stops asking. */
  askResign(asking: boolean) {
    this.confirmingResign = asking;
    this.redraw.show();
  }

  /** Resigns, once asked again. */
  resign() {
    this.confirmingResign = false;
    this.send({ type: 'resign' });
  }

  /** Every fifth of a second: the clocks run on; once a game, the low-time sound when the
   * player's own running clock goes under ten seconds. Whether it sounds. */
  tick(): boolean {
    const game = this.game;
    if (!game) return false;
    let warn = false;
    if (!this.lowTimeWarned && this.seat && game.clock_running === this.seat && game.time_control.kind !== 'unlimited') {
      const { remaining, period, periodsLeft } =
        clockAt(game[`${this.seat}_clock`], game.time_control, performance.now() - this.received);
      const left = remaining > 0 || periodsLeft === 0 ? remaining : period;
      if (left < TENTHS_BELOW_MS) {
        this.lowTimeWarned = true;
        warn = true;
      }
    }
    if (game.clock_running || game.first_move_ms_left != null) this.redraw.render();
    return warn;
  }

  private refused(e: unknown) {
    this.errorText = errorText(e);
    this.redraw.render();
  }
}
