// What the server sends, as the API's OpenAPI document (`/api/openapi.json`) describes it:
// the shapes the pages read.

export type Side = 'sente' | 'gote';

/** A piece's ordinary move: a vector from sente's side, leapt once or slid along. */
export interface RoleMove {
  left: number;
  forward: number;
  slide: boolean;
  /** For a slide, the most steps (0: no limit). */
  limit?: number;
}

/** What a Tenjiku kind does beyond its Betza moves. */
export interface TenjikuPowers {
  lion: 'full' | 'lion-hawk' | { line: [number, number][] } | null;
  area: number;
  range_jump: { directions: [number, number][]; level: number } | null;
  tetrarch: boolean;
  burns: boolean;
  free_eagle: boolean;
  rank: number;
}

/** A kind of piece of a game. */
export interface RoleInfo {
  name: string;
  sfen: string;
  hodges: string;
  kanji: string;
  royal: boolean;
  promotes_to: string | null;
  promoted_from: string | null;
  betza: string;
  moves: RoleMove[];
  powers: TenjikuPowers | null;
  drop: { barred_far_ranks: number; max_per_file: number | null; mate_restricted: boolean };
}

/** A rule option. */
export interface OptionInfo {
  name: string;
  help: string;
  values: string[];
  number: { min: number; max: number } | null;
}

/** A game the server hosts (`/api/variants`). */
export interface VariantInfo {
  name: string;
  title: string;
  files: number;
  ranks: number;
  available: boolean;
  start_sfen: string;
  roles: RoleInfo[];
  options: OptionInfo[];
  drops: boolean;
  promotion_zone: number;
  promotion_compulsory: boolean;
  /** The pools its games are rated in (Wa: with drops and without). */
  rating_pools: { name: string; title: string }[];
}

export type TimeControl =
  | { kind: 'unlimited' }
  | { kind: 'byoyomi'; main_ms: number; periods: number; period_ms: number }
  | { kind: 'fischer'; main_ms: number; increment_ms: number }
  | { kind: 'correspondence'; days_per_move: number };

export interface ClockView {
  remaining_ms: number;
  periods: number;
  period_ms: number;
}

export interface SeatRating {
  rating: number;
  provisional: boolean;
  change: number | null;
}

/** A played move with its time and both clocks after it. */
export interface MoveRecord {
  ply: number;
  usi: string;
  hodges: string;
  removed: string[];
  japanese?: string;
  short?: string;
  /** Whether the move gives check. */
  check: boolean;
  played_at: number;
  think_ms: number;
  clocks: { sides: { remaining_ms: number; periods: number }[] };
}

/** Everything a client sees of a game. */
export interface GameView {
  id: string;
  variant: string;
  files: number;
  ranks: number;
  options: string;
  start_sfen: string;
  sfen: string;
  status: 'waiting' | 'playing' | 'finished';
  result: { winner: Side | null; reason: string } | null;
  side_to_move: Side;
  ply: number;
  moves?: MoveRecord[];
  last?: MoveRecord;
  legal_moves: string[];
  check_square: string | null;
  time_control: TimeControl;
  sente_clock: ClockView;
  gote_clock: ClockView;
  clock_running: Side | null;
  first_move_ms_left: number | null;
  sente_player: 'human' | 'engine' | 'open';
  gote_player: 'human' | 'engine' | 'open';
  sente_name: string;
  gote_name: string;
  rated: boolean;
  sente_rating: SeatRating | null;
  gote_rating: SeatRating | null;
  speed: string | null;
  rating_range: [number, number] | null;
  rematch_offer: Side | null;
  rematch_id: string | null;
  /** A challenge: the name of the player it is for. */
  challenge_to?: string;
  /** The tournament that paired the game. */
  tournament_id?: string;
  sente_berserk?: boolean;
  gote_berserk?: boolean;
  engine_level: number;
  draw_offer: Side | null;
  public: boolean;
  created_at: number;
  /** On `GET /api/games/{id}`: the seat the logged-in viewer's account holds. */
  you?: Side | null;
}

export interface Account {
  username: string;
  created_at: number;
  /** Whether the account is an administrator's. */
  admin?: boolean;
}

/** Who is logged in (`/api/account`). */
export interface WhoAmI {
  account: Account | null;
  your_turn: number;
}

export interface ChatLine {
  id: string;
  room: 'players' | 'spectators';
  author: string;
  text: string;
  at: number;
}
