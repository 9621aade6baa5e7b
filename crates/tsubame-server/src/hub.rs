//! Live games: the server's authority over moves, clocks, results and who may do what.
//!
//! Every game in play lives in memory behind its own lock. A change is stored before it is
//! applied in memory and announced, so what a player was told is always in the database; a
//! restart rebuilds the same games from the stored rows.
//!
//! Several instances may share one PostgreSQL database. The database is then the authority:
//! each change is stored only over the version of the game it was made from (so of two
//! instances changing a game at once, one wins and the other reloads the game and checks the
//! request again), each committed change is announced with `NOTIFY` and every instance keeps
//! its games in memory as stored and tells its own watchers, and what falls due (a flag, an
//! expiry, a computer's move whose instance stopped) is claimed by one instance with
//! `FOR UPDATE SKIP LOCKED`. Clocks run from the turn start stored with each change.

use crate::accounts::{AccountLimits, Accounts};
use crate::chat::{ChatLine, HISTORY_LINES, Room, clean_line};
use crate::clock::{ClockState, ClockView, SideClock, TimeControl};
use crate::connections::ConnectionLimits;
use crate::engine_work::{EngineLimits, EngineWork};
use crate::error::ApiError;
use crate::game::{HostedGame, PlayedMove, RulesError};
use crate::metrics::{GaugeGuard, Metrics};
use crate::ratings::{SeatRating, Speed, rating_game};
use crate::store::{
    CHAT_CHANNEL, Change, GAME_CHANNEL, GameRow, GameState, MoveRow, RatedEnd, StartedSeats, Store,
    WritesRefused, token_hash,
};
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rand::Rng;
use serde::Serialize;
use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::{Mutex, broadcast};
use tsubame_engine::limits::{Clock, Limits};
use tsubame_rules::Color;
use tsubame_rules::Variant;

/// A seat: sente is 0, gote 1.
pub type Side = usize;

fn side_name(side: Side) -> &'static str {
    if side == 0 { "sente" } else { "gote" }
}

fn side_from_name(name: &str) -> Option<Side> {
    match name {
        "sente" => Some(0),
        "gote" => Some(1),
        _ => None,
    }
}

/// Who sits on a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// A person holding the seat's token.
    Human,
    /// The engine.
    Engine,
    /// Nobody yet: waiting for someone with the invite.
    Open,
}

impl Player {
    fn name(self) -> &'static str {
        match self {
            Player::Human => "human",
            Player::Engine => "engine",
            Player::Open => "open",
        }
    }
    fn from_name(name: &str) -> Player {
        match name {
            "engine" => Player::Engine,
            "open" => Player::Open,
            _ => Player::Human,
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// A seat is open.
    Waiting,
    /// Both seats are filled and the game goes on.
    Playing,
    /// Over.
    Finished,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Waiting => "waiting",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameResult {
    /// `sente`, `gote`, or none for a draw or an aborted game.
    pub winner: Option<&'static str>,
    /// `checkmate`, `resignation`, `time`, `agreement`, `aborted`, ...
    pub reason: String,
}

/// A played move with its time and both clocks after it.
#[derive(Clone, Debug, Serialize)]
pub struct MoveRecord {
    /// 1 for the first move.
    pub ply: usize,
    /// The move and what it removed.
    #[serde(flatten)]
    pub played: PlayedMove,
    /// Unix milliseconds.
    pub played_at: u64,
    /// How long the mover thought.
    pub think_ms: u64,
    /// Both clocks after the move.
    pub clocks: ClockState,
}

/// One game in memory.
#[derive(Clone)]
pub struct LiveGame {
    id: String,
    game: HostedGame,
    control: TimeControl,
    clock: ClockState,
    /// When the running turn started (server milliseconds).
    turn_started: u64,
    phase: Phase,
    result: Option<GameResult>,
    players: [Player; 2],
    /// Each seat's token as its SHA-256 hash (hex), empty while nobody holds the seat: the
    /// plain token is handed to its player once and kept nowhere.
    token_hashes: [String; 2],
    /// Each seat's account id, if an account holds it: its sessions act for the seat.
    accounts: [Option<String>; 2],
    /// The names shown for each seat.
    names: [String; 2],
    /// Whether the result changes the players' ratings.
    rated: bool,
    /// Each seat's rating when the game started (an account's, in a game with a clock), and
    /// the change once a rated game is over.
    ratings: [Option<SeatRating>; 2],
    /// A seek's rating range: who may join it.
    rating_range: Option<(i64, i64)>,
    engine_level: u8,
    invite: String,
    public: bool,
    created_at: u64,
    moves: Vec<MoveRecord>,
    draw_offer: Option<Side>,
    /// The computer's search waits for a slot: its clock does not run meanwhile, since a
    /// computer opponent must not lose on time because the server is busy.
    engine_waiting: bool,
    /// The ply for which a computer's search was started.
    engine_search_ply: Option<usize>,
    /// After the game, the side that offers a rematch.
    rematch_offer: Option<Side>,
    /// The rematch, once both agreed.
    rematch_id: Option<String>,
    /// How many changes the game has had, as stored: a change is stored only over the version
    /// it was made from, so that of two instances changing the game at once one succeeds.
    version: i64,
}

/// A game's lock, its flag time and its announcements.
pub struct GameSlot {
    /// The game.
    pub game: Mutex<LiveGame>,
    /// When the side to move's flag falls (server milliseconds), `u64::MAX` for never.
    deadline: AtomicU64,
    /// Announcements to everybody watching: JSON text.
    pub events: broadcast::Sender<Arc<str>>,
    /// Chat lines as they are said; each socket passes on those of the room it sees.
    pub chat: broadcast::Sender<Arc<ChatLine>>,
    /// When the game was last looked up (server milliseconds): finished games nobody looked at
    /// for a while leave memory.
    last_used: AtomicU64,
    /// On a shared database: until when this instance has claimed the game's due work (its
    /// flag, its expiry, an overdue computer move); the others leave it alone meanwhile.
    claimed_until: AtomicU64,
}

/// Everything a client sees of a game (no secrets).
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// Variant short name.
    pub variant: Variant,
    /// Board files.
    pub files: u8,
    /// Board ranks.
    pub ranks: u8,
    /// Rule options, `name=value,...` (non-default ones only).
    pub options: String,
    /// Start position.
    pub start_sfen: String,
    /// Current position.
    pub sfen: String,
    /// Waiting, playing or finished.
    pub status: Phase,
    /// The result once finished.
    pub result: Option<GameResult>,
    /// `sente` or `gote`.
    pub side_to_move: &'static str,
    /// Moves played.
    pub ply: usize,
    /// The moves, in order (left out of move announcements, which carry only the new one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<MoveRecord>>,
    /// The move just played, in move announcements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<MoveRecord>,
    /// Legal moves, USI text (empty unless in play).
    pub legal_moves: Vec<String>,
    /// The checked royal piece's square.
    pub check_square: Option<String>,
    /// The time control.
    pub time_control: TimeControl,
    /// Sente's clock now.
    pub sente_clock: ClockView,
    /// Gote's clock now.
    pub gote_clock: ClockView,
    /// Whose clock runs: nobody's until each side has made its first move.
    pub clock_running: Option<&'static str>,
    /// Between people, before each side's first move: how long the side to move has left to
    /// make it before the game is aborted.
    pub first_move_ms_left: Option<u64>,
    /// Who sits where.
    pub sente_player: Player,
    /// Who sits where.
    pub gote_player: Player,
    /// The name shown for sente: a user name, a guest's `Guest-…` name, or the computer's.
    pub sente_name: String,
    /// The name shown for gote.
    pub gote_name: String,
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    /// Sente's rating when the game started, and its change once rated.
    pub sente_rating: Option<SeatRating>,
    /// Gote's rating.
    pub gote_rating: Option<SeatRating>,
    /// The game's speed (from its clock): what it is rated as.
    pub speed: Option<Speed>,
    /// A seek's rating range: the least and most rating of who may join.
    pub rating_range: Option<(i64, i64)>,
    /// After the game: the side that offers a rematch.
    pub rematch_offer: Option<&'static str>,
    /// The rematch's game id, once both players agreed.
    pub rematch_id: Option<String>,
    /// Engine strength (1 to 5) when an engine plays.
    pub engine_level: u8,
    /// The side that offers a draw.
    pub draw_offer: Option<&'static str>,
    /// Listed in the lobby.
    pub public: bool,
    /// Unix milliseconds.
    pub created_at: u64,
}

/// What a seat gets when it creates or joins a game.
#[derive(Clone, Debug, Serialize)]
pub struct SeatGrant {
    /// The game's id.
    pub game_id: String,
    /// `sente` or `gote`.
    pub seat: &'static str,
    /// The seat's secret: needed to move, resign, offer a draw or abort.
    pub token: String,
    /// The secret for the other player to join, while their seat is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

/// What creating a game needs.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Variant.
    pub variant: Variant,
    /// Rule options, `name=value,...`.
    pub options: String,
    /// A start position other than the variant's.
    pub start_sfen: Option<String>,
    /// Clock.
    pub control: TimeControl,
    /// Play the engine instead of a person.
    pub against_engine: bool,
    /// Engine strength 1 to 5.
    pub engine_level: u8,
    /// The creator's seat: 0 for sente, 1 for gote.
    pub creator_side: Side,
    /// Who creates it.
    pub creator: Sitter,
    /// Whether the result changes the players' ratings (only between two accounts).
    pub rated: bool,
    /// Who may join a seek: the least and most rating.
    pub rating_range: Option<(i64, i64)>,
    /// Listed in the lobby.
    pub public: bool,
}

/// Who takes a seat: an account, or a guest with a generated name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sitter {
    /// The account's id; none for a guest.
    pub account: Option<String>,
    /// The name shown.
    pub name: String,
}

/// What a request presents to act for a seat: the seat's token, a logged-in account, or both.
#[derive(Clone, Copy, Debug, Default)]
pub struct Credential<'a> {
    /// The seat's secret token.
    pub token: Option<&'a str>,
    /// The id of the account logged in.
    pub account: Option<&'a str>,
}

/// All live games, the database and the engine's worker limit.
pub struct Hub {
    store: Store,
    settings: Settings,
    /// Game creations by address.
    creations: DefaultKeyedRateLimiter<IpAddr>,
    metrics: Metrics,
    /// Becomes `true` when the server stops: every game socket then closes with 1001.
    shutdown: tokio::sync::watch::Sender<bool>,
    games: StdMutex<HashMap<String, Arc<GameSlot>>>,
    engine: Arc<EngineWork>,
    accounts: Accounts,
    /// Chat lines by sender (account, or guest seat).
    chat_senders: DefaultKeyedRateLimiter<String>,
    epoch: Instant,
    epoch_unix_ms: u64,
    /// This instance's name in its announcements, so that it skips its own.
    instance: String,
    /// On a shared database, the connection that listens for the other instances'
    /// announcements, opened before the games are loaded so that nothing falls between.
    listener: StdMutex<Option<sqlx::postgres::PgListener>>,
    /// The listener's count of connections refused for their address's share.
    refused_connections: std::sync::OnceLock<Arc<crate::connections::RefusalLog>>,
}

fn random_hex(bytes: usize) -> String {
    let mut rng = rand::thread_rng();
    (0..bytes)
        .map(|_| format!("{:02x}", rng.r#gen::<u8>()))
        .collect()
}

fn random_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::thread_rng();
    (0..10)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

/// What a server operator may set for the games it hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Between people, how long each side has for its first move (which runs no clock) before
    /// the game is aborted: a player who never moves cannot hold the other one forever.
    pub first_move_ms: u64,
    /// How long a seek waits for a second player, and a game against the computer for its
    /// player's first move, before it is aborted.
    pub seek_expiry_ms: u64,
    /// Slots and queues of the engine's searches.
    pub engine: EngineLimits,
    /// Connections per address and the idle time (game sockets are pinged well within it).
    pub connections: ConnectionLimits,
    /// Games one address may create a minute (in a burst, then one every 60/n seconds).
    pub games_per_minute: u32,
    /// Limits on sign-ups and logins, and how long a login lasts.
    pub accounts: AccountLimits,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            first_move_ms: 30_000,
            seek_expiry_ms: 3_600_000,
            engine: EngineLimits::default(),
            connections: ConnectionLimits::default(),
            games_per_minute: 30,
            accounts: AccountLimits::default(),
        }
    }
}

/// Chat lines one sender may say in a burst, then one per [`CHAT_LINE_PERIOD`].
const CHAT_BURST: NonZeroU32 = NonZeroU32::new(5).expect("five is not zero");

/// How often a sender may say one more line once the burst is spent.
const CHAT_LINE_PERIOD: Duration = Duration::from_secs(2);

/// The name shown for the computer at a level.
fn engine_name(level: u8) -> String {
    format!("Computer level {level}")
}

/// How long a finished game stays in memory after it was last looked up.
const FINISHED_KEPT_MS: u64 = 60_000;

/// Engine limits for a level (the engine's own [`Limits::at_level`]): deeper and longer at
/// higher levels, never more than the time left on the clock allows.
fn engine_limits(level: u8, time_left: Option<u64>) -> Limits {
    let clock = time_left.map(|left| Clock {
        remaining: Duration::from_millis(left),
        ..Clock::default()
    });
    Limits {
        clock,
        ..Limits::default()
    }
    .at_level(level)
}

impl LiveGame {
    /// Whether the game appears in game lists: a public game, or one against the computer
    /// (which nobody can join). A private game between people is seen only by those who have
    /// its link.
    fn is_listed(&self) -> bool {
        self.public || self.players.contains(&Player::Engine)
    }

    fn side_to_move(&self) -> Side {
        if self.game.sente_to_move() { 0 } else { 1 }
    }

    /// Whether the side to move's clock runs: as on the play sites, each side's first move is
    /// free, and the clocks start with the second move of the side that moved first.
    fn clock_runs(&self) -> bool {
        self.phase == Phase::Playing
            && self.control != TimeControl::Unlimited
            && self.moves.len() >= 2
            && !self.engine_waiting
    }

    /// Between people, before both have moved: when the side to move's first-move time ends.
    fn first_move_deadline(&self, settings: &Settings) -> Option<u64> {
        let between_people = self.players.iter().all(|&p| p == Player::Human);
        (self.phase == Phase::Playing && between_people && self.moves.len() < 2).then(|| {
            // A correspondence game gives its days for the first move too.
            let allowed = self.control.per_move_ms().unwrap_or(settings.first_move_ms);
            self.turn_started.saturating_add(allowed)
        })
    }

    /// When a game nobody has really started is aborted: a seek nobody joined, a first move
    /// between people not made in time, a game against the computer whose player never made
    /// a first move. Abandoned games must not pile up for ever.
    fn abort_deadline(&self, settings: &Settings) -> Option<u64> {
        match self.phase {
            Phase::Waiting => {
                // A correspondence seek waits at least as long as one move may take.
                let wait = settings
                    .seek_expiry_ms
                    .max(self.control.per_move_ms().unwrap_or(0));
                Some(self.created_at.saturating_add(wait))
            }
            Phase::Finished => None,
            Phase::Playing if self.moves.len() >= 2 => None,
            Phase::Playing => self.first_move_deadline(settings).or_else(|| {
                (self.players[self.side_to_move()] == Player::Human)
                    .then(|| self.turn_started.saturating_add(settings.seek_expiry_ms))
            }),
        }
    }

    /// When the sweeper must look at the game next: the flag time of the running turn, or
    /// when an unstarted game is aborted; `u64::MAX` when neither applies.
    fn deadline(&self, settings: &Settings) -> u64 {
        if let Some(deadline) = self.abort_deadline(settings) {
            return deadline;
        }
        if !self.clock_runs() {
            return u64::MAX;
        }
        match self.clock.time_left(&self.control, self.side_to_move(), 0) {
            Some(left) => self.turn_started.saturating_add(left),
            None => u64::MAX,
        }
    }

    /// When an instance must look at the stored game next: its deadline, or for the
    /// computer's turn when its move is overdue (the instance searching it has stopped), so
    /// that another instance takes the search up.
    fn due_at(&self, settings: &Settings) -> Option<i64> {
        if self.phase == Phase::Playing && self.players[self.side_to_move()] == Player::Engine {
            return i64::try_from(self.turn_started.saturating_add(ENGINE_OVERDUE_MS)).ok();
        }
        match self.deadline(settings) {
            u64::MAX => None,
            deadline => i64::try_from(deadline).ok(),
        }
    }

    /// The stored state of the game as it is in memory.
    fn state(&self, settings: &Settings) -> GameState {
        GameState {
            version: self.version,
            turn_started_at: i64::try_from(self.turn_started).unwrap_or(i64::MAX),
            draw_offer: self.draw_offer.map(side_name),
            rematch_offer: self.rematch_offer.map(side_name),
            engine_waiting: self.engine_waiting,
            due_at: self.due_at(settings),
        }
    }

    /// The change that leads from version `from_version` to the game as it is in memory
    /// (whose version is the next), with the notice for other instances.
    fn change(&self, settings: &Settings, from_version: i64, notice: &Notice) -> Change {
        Change {
            id: self.id.clone(),
            from_version,
            state: self.state(settings),
            notice: serde_json::to_string(notice).unwrap_or_default(),
        }
    }

    /// The change that leads from version `from_version` to the game as it is in memory,
    /// for a change that adds no move.
    fn state_change(&self, settings: &Settings, from_version: i64) -> Change {
        self.change(settings, from_version, &Notice::of(&self.id, self.version))
    }

    /// Takes over what the stored row says about everything but the moves.
    fn take_row(&mut self, row: &GameRow) {
        self.phase = match row.status.as_str() {
            "waiting" => Phase::Waiting,
            "finished" => Phase::Finished,
            _ => Phase::Playing,
        };
        self.result = row.reason.as_ref().map(|reason| GameResult {
            winner: row
                .winner
                .as_deref()
                .and_then(side_from_name)
                .map(side_name),
            reason: reason.clone(),
        });
        self.players = [
            Player::from_name(&row.sente_player),
            Player::from_name(&row.gote_player),
        ];
        self.token_hashes = [row.sente_token_hash.clone(), row.gote_token_hash.clone()];
        self.accounts = row.accounts.clone();
        self.names = row.names.clone();
        self.rated = row.rated;
        self.ratings = row.seat_ratings;
        self.rating_range = row.rating_range;
        self.rematch_id = row.rematch_id.clone();
        self.version = row.state.version;
        self.draw_offer = row.state.draw_offer.and_then(side_from_name);
        self.rematch_offer = row.state.rematch_offer.and_then(side_from_name);
        self.engine_waiting = row.state.engine_waiting;
    }

    /// Plays a stored move onto the game.
    fn take_move(&mut self, mv: &MoveRow) -> Result<(), RulesError> {
        let played = self.game.play(&mv.usi)?;
        let record = move_record(mv, played);
        self.clock = record.clocks;
        self.moves.push(record);
        Ok(())
    }

    fn seat_of(&self, token: &str) -> Option<Side> {
        let presented = token_hash(token);
        // Both seats are compared every time so the answer takes the same time either way.
        // An empty hash (a seat nobody holds) never equals a 64-digit one.
        let matches: Vec<bool> = self
            .token_hashes
            .iter()
            .map(|hash| constant_time_eq(hash.as_bytes(), presented.as_bytes()))
            .collect();
        matches.iter().position(|&m| m)
    }

    /// A game just made at `now`, with no seat taken, no move and no offer: the caller sets
    /// its seats and settings.
    fn made(game: HostedGame, control: TimeControl, now: u64) -> LiveGame {
        LiveGame {
            id: random_id(),
            clock: control.initial(),
            control,
            turn_started: now,
            phase: Phase::Waiting,
            result: None,
            players: [Player::Open, Player::Open],
            token_hashes: [String::new(), String::new()],
            accounts: [None, None],
            names: [String::new(), String::new()],
            rated: false,
            ratings: [None, None],
            rating_range: None,
            engine_level: 1,
            invite: random_hex(8),
            public: false,
            created_at: now,
            moves: Vec::new(),
            draw_offer: None,
            engine_waiting: false,
            engine_search_ply: None,
            rematch_offer: None,
            rematch_id: None,
            version: 0,
            game,
        }
    }

    /// The row of a game that has just been made (no move played yet).
    fn new_row(&self, settings: &Settings) -> Result<GameRow, ApiError> {
        let started = self.phase == Phase::Playing;
        Ok(GameRow {
            id: self.id.clone(),
            variant: self.game.variant().name().to_string(),
            options: self.game.options_text(),
            start_sfen: self.game.start_sfen(),
            time_control: serde_json::to_string(&self.control)
                .map_err(|e| ApiError::internal(e.to_string()))?,
            sente_player: self.players[0].name().to_string(),
            gote_player: self.players[1].name().to_string(),
            engine_level: i64::from(self.engine_level),
            sente_token_hash: self.token_hashes[0].clone(),
            gote_token_hash: self.token_hashes[1].clone(),
            invite: self.invite.clone(),
            public: self.public,
            status: self.phase.name().to_string(),
            winner: None,
            reason: None,
            created_at: self.created_at as i64,
            started_at: started.then_some(self.turn_started as i64),
            finished_at: None,
            accounts: self.accounts.clone(),
            names: self.names.clone(),
            rated: self.rated,
            seat_ratings: self.ratings,
            rating_range: self.rating_range,
            rematch_id: None,
            state: self.state(settings),
        })
    }

    /// The seat a credential acts for: the token's, else the logged-in account's. Only a
    /// person's seat can be acted for.
    fn seat_for(&self, who: &Credential) -> Option<Side> {
        let by_token = who.token.and_then(|token| self.seat_of(token));
        let by_account = || {
            who.account.and_then(|account| {
                self.accounts
                    .iter()
                    .position(|seated| seated.as_deref() == Some(account))
            })
        };
        by_token
            .or_else(by_account)
            .filter(|&side| self.players[side] == Player::Human)
    }

    /// The seat the viewer holds, if any: what a page shows as "you".
    pub fn viewer_seat(&self, who: &Credential) -> Option<&'static str> {
        self.seat_for(who).map(side_name)
    }

    /// The client's view at server time `now`; `with_moves` includes the move list.
    pub fn view(&self, now: u64, settings: &Settings, with_moves: bool) -> GameView {
        let (files, ranks) = self.game.variant().board_size();
        let running = self.clock_runs();
        let to_move = self.side_to_move();
        let elapsed = now.saturating_sub(self.turn_started);
        let clock_of = |side: Side| {
            let spent = if running && side == to_move {
                elapsed
            } else {
                0
            };
            self.clock.display(&self.control, side, spent)
        };
        GameView {
            id: self.id.clone(),
            variant: self.game.variant(),
            files,
            ranks,
            options: self.game.options_text(),
            start_sfen: self.game.start_sfen(),
            sfen: self.game.sfen(),
            status: self.phase,
            result: self.result.clone(),
            side_to_move: side_name(to_move),
            ply: self.game.ply_count(),
            moves: with_moves.then(|| self.moves.clone()),
            last: None,
            legal_moves: if self.phase == Phase::Playing {
                self.game.legal_moves()
            } else {
                Vec::new()
            },
            check_square: self.game.check_square(),
            time_control: self.control,
            sente_clock: clock_of(0),
            gote_clock: clock_of(1),
            clock_running: running.then(|| side_name(to_move)),
            first_move_ms_left: self
                .first_move_deadline(settings)
                .map(|deadline| deadline.saturating_sub(now)),
            sente_player: self.players[0],
            gote_player: self.players[1],
            sente_name: self.names[0].clone(),
            gote_name: self.names[1].clone(),
            rated: self.rated,
            sente_rating: self.ratings[0],
            gote_rating: self.ratings[1],
            speed: Speed::of(&self.control),
            rating_range: self.rating_range,
            rematch_offer: self.rematch_offer.map(side_name),
            rematch_id: self.rematch_id.clone(),
            engine_level: self.engine_level,
            draw_offer: self.draw_offer.map(side_name),
            public: self.public,
            created_at: self.created_at,
        }
    }

    /// The game as a list entry: the view without moves.
    pub fn summary(&self, now: u64, settings: &Settings) -> GameView {
        let mut view = self.view(now, settings, false);
        view.legal_moves.clear();
        view
    }

    /// The game's moves.
    pub fn moves(&self) -> &[MoveRecord] {
        &self.moves
    }

    /// The game under the rules.
    pub fn rules_game(&self) -> &HostedGame {
        &self.game
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A stored move as the game's record holds it.
fn move_record(mv: &MoveRow, played: PlayedMove) -> MoveRecord {
    MoveRecord {
        ply: mv.ply.max(0) as usize,
        played,
        played_at: mv.played_at.max(0) as u64,
        think_ms: mv.think_ms.max(0) as u64,
        clocks: ClockState {
            sides: [
                SideClock {
                    remaining_ms: mv.sente_ms.max(0) as u64,
                    periods: mv.sente_periods.max(0) as u32,
                },
                SideClock {
                    remaining_ms: mv.gote_ms.max(0) as u64,
                    periods: mv.gote_periods.max(0) as u32,
                },
            ],
        },
    }
}

/// What an instance announces to the others when it has stored a change to a game
/// (PostgreSQL's `NOTIFY`): the game and its new version, and for a move the move itself, so
/// that an instance one version behind follows without reading the database.
#[derive(Debug, Serialize, serde::Deserialize)]
struct Notice {
    id: String,
    version: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    moved: Option<MovedNotice>,
}

impl Notice {
    /// The notice of a change that adds no move.
    fn of(id: &str, version: i64) -> Notice {
        Notice {
            id: id.to_string(),
            version,
            moved: None,
        }
    }
}

/// A move in a [`Notice`], with the state it led to.
#[derive(Debug, Serialize, serde::Deserialize)]
struct MovedNotice {
    row: MoveRow,
    turn_started_at: u64,
    engine_waiting: bool,
}

/// A chat line as announced to the other instances.
#[derive(Debug, Serialize, serde::Deserialize)]
struct ChatNotice {
    game: String,
    /// The instance that stored it (which has passed it on already).
    from: String,
    line: ChatLine,
}

/// How long an instance keeps the due games it claims: long enough to act at the exact time
/// its own clocks say (they may be a little later than the stored due time).
const CLAIM_MS: u64 = 2_000;

/// The most due games claimed at once.
const CLAIMS_AT_ONCE: i64 = 64;

/// The error of a change that lost the race with another instance's change to the game.
const STALE: &str = "the game changed meanwhile (on another server): look at it again";

/// After how long a computer's move that has not come counts as lost with the instance that
/// was searching it, and another instance searches it: well past the longest level's search
/// (3 s) and a short wait for a search slot.
const ENGINE_OVERDUE_MS: u64 = 10_000;

fn move_row(record: &MoveRecord) -> MoveRow {
    let [sente, gote] = record.clocks.sides;
    MoveRow {
        ply: record.ply as i64,
        usi: record.played.usi.clone(),
        played_at: record.played_at as i64,
        think_ms: record.think_ms as i64,
        sente_ms: sente.remaining_ms as i64,
        sente_periods: i64::from(sente.periods),
        gote_ms: gote.remaining_ms as i64,
        gote_periods: i64::from(gote.periods),
    }
}

/// A message to every watcher of a game.
#[derive(Serialize)]
struct Event<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    game: &'a GameView,
}

/// Why a stored game could not be loaded back.
#[derive(Debug, thiserror::Error)]
enum RebuildError {
    /// A variant name no game has.
    #[error("unknown variant {0}")]
    Variant(String),
    /// A time control that is not the JSON the server writes.
    #[error("bad time control: {0}")]
    TimeControl(serde_json::Error),
    /// The rules refuse the start or a move.
    #[error(transparent)]
    Rules(#[from] RulesError),
}

impl Hub {
    /// Whether the database answers: what a readiness probe asks.
    pub async fn database_ready(&self) -> anyhow::Result<()> {
        self.store.ping().await?;
        if let Some(reason) = self.store.writes_refused() {
            anyhow::bail!(
                "the database refuses writes ({reason}): moves and games cannot be saved"
            );
        }
        Ok(())
    }

    /// A hub over this database, with every unfinished game resumed.
    ///
    /// Time the server was down is not charged to anyone: each resumed turn starts afresh with
    /// the clocks as stored after the last move.
    pub async fn open(store: Store, settings: Settings) -> anyhow::Result<Arc<Hub>> {
        let epoch_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let per_minute = NonZeroU32::new(settings.games_per_minute).unwrap_or(NonZeroU32::MIN);
        let settings_engine = settings.engine;
        let hub = Arc::new(Hub {
            creations: RateLimiter::keyed(Quota::per_minute(per_minute)),
            accounts: Accounts::new(store.clone(), settings.accounts),
            chat_senders: RateLimiter::keyed(
                Quota::with_period(CHAT_LINE_PERIOD)
                    .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
                    .allow_burst(CHAT_BURST),
            ),
            store,
            settings,
            metrics: Metrics::new()?,
            shutdown: tokio::sync::watch::Sender::new(false),
            games: StdMutex::new(HashMap::new()),
            engine: EngineWork::new(settings_engine),
            epoch: Instant::now(),
            epoch_unix_ms,
            instance: random_hex(8),
            listener: StdMutex::new(None),
            refused_connections: std::sync::OnceLock::new(),
        });
        let listener = hub.store.listener().await?;
        if let Ok(mut slot) = hub.listener.lock() {
            *slot = listener;
        }
        let mut moves_by_game = hub.store.unfinished_games_moves().await?;
        for row in hub.store.unfinished_games().await? {
            let moves = moves_by_game.remove(&row.id).unwrap_or_default();
            match hub.rebuild(&row, &moves) {
                Ok(live) => {
                    let slot = hub.insert(live);
                    let mut live = slot.game.lock().await;
                    // The last move ended the game, but its result was not stored then.
                    if live.phase == Phase::Playing && live.game.outcome().is_some() {
                        hub.finish_by_rules(&slot, &mut live).await;
                    }
                    if hub.store.shared() && !live.engine_waiting {
                        // On a shared database, a computer's search that another instance has
                        // started is left to it (and taken up here only once overdue).
                        slot.deadline
                            .store(hub.sweep_deadline(&live), Ordering::Relaxed);
                    } else {
                        hub.schedule(&slot, &mut live);
                    }
                }
                Err(e) => tracing::error!(game = %row.id, "cannot resume the game: {e}"),
            }
        }
        Ok(hub)
    }

    /// On a shared database, follows the changes and chat lines the other instances announce,
    /// for as long as the server runs: every game in memory stays as stored, new games are
    /// loaded (so lobbies and lists are the same on every instance), and this instance's
    /// watchers see every move, end and line wherever it was made. After a lost connection,
    /// and every half minute, the games in memory are compared with the stored versions.
    pub async fn follow_other_instances(self: Arc<Self>) {
        let mut failures = 0u32;
        loop {
            let opened = self
                .listener
                .lock()
                .ok()
                .and_then(|mut opened| opened.take());
            let listening = match opened {
                Some(listener) => Ok(Some(listener)),
                None => self.store.listener().await,
            };
            let mut listener = match listening {
                Ok(Some(listener)) => listener,
                Ok(None) => return,
                Err(e) => {
                    failures += 1;
                    if failures == 1 || failures % 60 == 0 {
                        tracing::warn!("cannot listen to the other instances: {e:#}");
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            failures = 0;
            // Whatever was announced while nobody listened.
            self.catch_up_with_database().await;
            let mut check = tokio::time::interval(Duration::from_secs(30));
            check.tick().await;
            loop {
                tokio::select! {
                    notification = listener.try_recv() => match notification {
                        Ok(Some(notification)) => {
                            let hub = self.clone();
                            let channel = notification.channel().to_string();
                            let payload = notification.payload().to_string();
                            tokio::spawn(async move { hub.take_notice(&channel, &payload).await });
                        }
                        Ok(None) => break,
                        Err(e) => {
                            tracing::warn!("lost the other instances' announcements: {e}");
                            break;
                        }
                    },
                    _ = check.tick() => {
                        let hub = self.clone();
                        tokio::spawn(async move { hub.catch_up_with_database().await });
                    }
                }
            }
        }
    }

    /// Takes in what another instance announced.
    async fn take_notice(self: &Arc<Self>, channel: &str, payload: &str) {
        if channel == CHAT_CHANNEL {
            match serde_json::from_str::<ChatNotice>(payload) {
                Ok(notice) if notice.from != self.instance => {
                    if let Some(slot) = self.slot(&notice.game) {
                        let _ = slot.chat.send(Arc::new(notice.line));
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("unreadable chat announcement: {e}"),
            }
            return;
        }
        if channel != GAME_CHANNEL {
            return;
        }
        let notice = match serde_json::from_str::<Notice>(payload) {
            Ok(notice) => notice,
            Err(e) => {
                tracing::warn!("unreadable game announcement: {e}");
                return;
            }
        };
        let Some(slot) = self.slot(&notice.id) else {
            // A game this instance does not hold yet: a new one, one being played elsewhere.
            if let Err(e) = self.find(&notice.id).await {
                tracing::warn!(game = %notice.id, "cannot load an announced game: {}", e.message);
            }
            return;
        };
        let mut live = slot.game.lock().await;
        if notice.version <= live.version {
            return;
        }
        if let Some(moved) = &notice.moved
            && notice.version == live.version + 1
            && moved.row.ply == live.moves.len() as i64 + 1
            && live.phase == Phase::Playing
        {
            let phase = live.phase;
            let plies = live.moves.len();
            if live.take_move(&moved.row).is_ok() {
                live.turn_started = moved.turn_started_at;
                live.engine_waiting = moved.engine_waiting;
                live.draw_offer = None;
                live.version = notice.version;
                self.announce_catch_up(&slot, &live, plies, phase);
                return;
            }
        }
        if let Err(e) = self.refresh(&slot, &mut live).await {
            tracing::warn!(game = %notice.id, "cannot reload a changed game: {}", e.message);
        }
    }

    /// Compares every unfinished stored game with memory: reloads those behind, loads those
    /// missing. What a lost announcement would otherwise leave stale.
    async fn catch_up_with_database(self: &Arc<Self>) {
        let versions = match self.store.unfinished_versions().await {
            Ok(versions) => versions,
            Err(e) => {
                tracing::warn!("cannot compare the games with the database: {e}");
                return;
            }
        };
        // Games in memory that are no longer unfinished in the database ended elsewhere.
        let unfinished: std::collections::HashSet<&str> =
            versions.iter().map(|(id, _)| id.as_str()).collect();
        for slot in self.live_slots() {
            let mut live = slot.game.lock().await;
            if live.phase != Phase::Finished
                && !unfinished.contains(live.id.as_str())
                && let Err(e) = self.refresh(&slot, &mut live).await
            {
                tracing::warn!(game = %live.id, "cannot reload an ended game: {}", e.message);
            }
        }
        for (id, version) in versions {
            match self.slot(&id) {
                Some(slot) => {
                    let mut live = slot.game.lock().await;
                    if live.version < version
                        && let Err(e) = self.refresh(&slot, &mut live).await
                    {
                        tracing::warn!(game = %id, "cannot reload a changed game: {}", e.message);
                    }
                }
                None => {
                    if let Err(e) = self.find(&id).await {
                        tracing::warn!(game = %id, "cannot load a game: {}", e.message);
                    }
                }
            }
        }
    }

    /// Counts a game creation from `client`, or refuses it (429) past the address's rate.
    pub fn admit_creation(&self, client: IpAddr) -> Result<(), ApiError> {
        // Addresses that have been quiet for a minute are forgotten, so the table stays small.
        if self.creations.len() > 10_000 {
            self.creations.retain_recent();
        }
        self.creations.check_key(&client).map_err(|refused| {
            ApiError::busy_for(
                format!(
                    "this address has created {} games in the last minute",
                    self.settings.games_per_minute
                ),
                refused.wait_time_from(DefaultClock::default().now()),
            )
        })
    }

    /// What the operator set.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// An account's rating for a game's category, as its seat shows it; none for a guest or
    /// a game without a clock. A player with no rated game yet has the starting rating.
    async fn seat_rating(
        &self,
        account: Option<&str>,
        game: &HostedGame,
        control: &TimeControl,
    ) -> Result<Option<SeatRating>, ApiError> {
        let (Some(account), Some(speed)) = (account, Speed::of(control)) else {
            return Ok(None);
        };
        let rating = self
            .store
            .rating(
                account,
                rating_game(game.variant(), &game.options_text()),
                speed.name(),
            )
            .await
            .map_err(|e| ApiError::internal(format!("database: {e}")))?
            .unwrap_or_default();
        Ok(Some(SeatRating::of(&rating)))
    }

    /// Accounts and their sessions.
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// The scheduler of engine searches.
    pub fn engine(&self) -> &Arc<EngineWork> {
        &self.engine
    }

    /// The server's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Where the listener counts the connections it refuses, for the metrics.
    pub fn count_refused_connections(&self, log: Arc<crate::connections::RefusalLog>) {
        let _ = self.refused_connections.set(log);
    }

    /// The metrics in Prometheus' text format, with the live games counted now.
    pub async fn metrics_text(&self) -> String {
        if let Some(log) = self.refused_connections.get() {
            let refused = log.refused.load(Ordering::Relaxed);
            let counted = self.metrics.connections_refused.get();
            self.metrics
                .connections_refused
                .inc_by(refused.saturating_sub(counted));
        }
        let failures = self.store.write_failures();
        let counted = self.metrics.database_write_failures.get();
        self.metrics
            .database_write_failures
            .inc_by(failures.saturating_sub(counted));
        self.metrics
            .database_writable
            .set(i64::from(self.store.writes_refused().is_none()));
        let (mut waiting, mut playing, mut finished) = (0, 0, 0);
        for slot in self.live_slots() {
            match slot.game.lock().await.phase {
                Phase::Waiting => waiting += 1,
                Phase::Playing => playing += 1,
                Phase::Finished => finished += 1,
            }
        }
        self.metrics
            .games
            .with_label_values(&["waiting"])
            .set(waiting);
        self.metrics
            .games
            .with_label_values(&["playing"])
            .set(playing);
        self.metrics
            .games
            .with_label_values(&["finished"])
            .set(finished);
        self.metrics.render()
    }

    /// Tells every game socket that the server is stopping.
    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    /// What a game socket watches to learn that the server is stopping.
    pub fn shutdown_signal(&self) -> tokio::sync::watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// The client's view of a game now; `with_moves` includes the move list.
    pub fn view_of(&self, live: &LiveGame, with_moves: bool) -> GameView {
        live.view(self.now(), &self.settings, with_moves)
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Server time: unix milliseconds that never go backwards.
    pub fn now(&self) -> u64 {
        self.epoch_unix_ms + self.epoch.elapsed().as_millis() as u64
    }

    /// A game from its stored row and moves. On a database other instances share, the
    /// running turn started when the row says; otherwise a resumed turn starts now (time the
    /// server was down is charged to nobody).
    fn rebuild(&self, row: &GameRow, moves: &[MoveRow]) -> Result<LiveGame, RebuildError> {
        let variant = Variant::from_name(&row.variant)
            .ok_or_else(|| RebuildError::Variant(row.variant.clone()))?;
        let control: TimeControl =
            serde_json::from_str(&row.time_control).map_err(RebuildError::TimeControl)?;
        let game = HostedGame::new(variant, &row.options, Some(&row.start_sfen))?;
        let stored_turn = u64::try_from(row.state.turn_started_at).unwrap_or(0);
        let turn_started = if self.store.shared() && stored_turn > 0 {
            stored_turn
        } else {
            self.now()
        };
        let mut live = LiveGame {
            id: row.id.clone(),
            engine_level: row.engine_level.clamp(1, 5) as u8,
            invite: row.invite.clone(),
            public: row.public,
            created_at: row.created_at.max(0) as u64,
            ..LiveGame::made(game, control, turn_started)
        };
        live.take_row(row);
        for mv in moves {
            live.take_move(mv)?;
        }
        Ok(live)
    }

    fn insert(&self, live: LiveGame) -> Arc<GameSlot> {
        let (events, _) = broadcast::channel(64);
        let (chat, _) = broadcast::channel(32);
        let id = live.id.clone();
        let slot = Arc::new(GameSlot {
            deadline: AtomicU64::new(self.sweep_deadline(&live)),
            claimed_until: AtomicU64::new(0),
            game: Mutex::new(live),
            events,
            chat,
            last_used: AtomicU64::new(self.now()),
        });
        if let Ok(mut games) = self.games.lock() {
            games.insert(id, slot.clone());
        }
        slot
    }

    /// A game in memory.
    pub fn slot(&self, id: &str) -> Option<Arc<GameSlot>> {
        let slot = self.games.lock().ok()?.get(id).cloned()?;
        slot.last_used.store(self.now(), Ordering::Relaxed);
        Some(slot)
    }

    /// Drops from memory the finished games that nothing holds (no socket, no request) and
    /// nobody looked up for `idle_ms`; they are loaded again from the database when asked
    /// for. Returns how many left. Without this every game ever played or viewed would stay.
    pub fn evict_finished(&self, idle_ms: u64) -> usize {
        let now = self.now();
        let Ok(mut games) = self.games.lock() else {
            return 0;
        };
        let before = games.len();
        // A new reference is only taken under this lock, so a count of one (the map's own)
        // cannot grow while the game is being dropped.
        games.retain(|_, slot| {
            Arc::strong_count(slot) > 1
                || slot
                    .last_used
                    .load(Ordering::Relaxed)
                    .saturating_add(idle_ms)
                    > now
                || slot
                    .game
                    .try_lock()
                    .map_or(true, |live| live.phase != Phase::Finished)
        });
        before - games.len()
    }

    /// A game, live or loaded from the database (finished games are loaded on demand and kept).
    pub async fn find(&self, id: &str) -> Result<Arc<GameSlot>, ApiError> {
        if let Some(slot) = self.slot(id) {
            return Ok(slot);
        }
        let not_found = || ApiError::not_found(format!("no game with id {id:?}"));
        if id.len() > 64 {
            return Err(not_found());
        }
        let row = self
            .store
            .game(id)
            .await
            .map_err(|e| ApiError::internal(format!("database: {e}")))?
            .ok_or_else(not_found)?;
        let moves = self
            .store
            .moves(id)
            .await
            .map_err(|e| ApiError::internal(format!("database: {e}")))?;
        let live = self
            .rebuild(&row, &moves)
            .map_err(|e| ApiError::internal(format!("stored game {id} is damaged: {e}")))?;
        // Another request may have loaded it meanwhile: keep the first.
        if let Some(slot) = self.slot(id) {
            return Ok(slot);
        }
        Ok(self.insert(live))
    }

    /// Every game in memory.
    pub fn live_slots(&self) -> Vec<Arc<GameSlot>> {
        self.games
            .lock()
            .map(|g| g.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Creates a game and returns the creator's seat.
    pub async fn create(self: &Arc<Self>, new: NewGame) -> Result<SeatGrant, ApiError> {
        new.control
            .validate()
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let game = HostedGame::new(new.variant, &new.options, new.start_sfen.as_deref())
            .map_err(ApiError::from_rules)?;
        if game.outcome().is_some() {
            return Err(ApiError::bad_request(
                "the start position is already decided",
            ));
        }
        if new.rated && (new.against_engine || new.creator.account.is_none()) {
            return Err(ApiError::bad_request(
                "only games between two logged-in players can be rated",
            ));
        }
        if new.rated && Speed::of(&new.control).is_none() {
            return Err(ApiError::bad_request("a rated game needs a clock"));
        }
        if let Some((min, max)) = new.rating_range
            && (min > max || new.against_engine)
        {
            return Err(ApiError::bad_request(
                "a rating range is from a lower to a higher rating, for a seek",
            ));
        }
        let creator = new.creator_side.min(1);
        let engine_level = new.engine_level.clamp(1, 5);
        let mut accounts = [None, None];
        accounts[creator] = new.creator.account.clone();
        let mut names = [String::new(), String::new()];
        names[creator] = new.creator.name.clone();
        let mut ratings = [None, None];
        ratings[creator] = self
            .seat_rating(new.creator.account.as_deref(), &game, &new.control)
            .await?;
        if new.against_engine {
            names[1 - creator] = engine_name(engine_level);
        }
        let mut players = [Player::Open, Player::Open];
        players[creator] = Player::Human;
        players[1 - creator] = if new.against_engine {
            Player::Engine
        } else {
            Player::Open
        };
        // Only the creator's seat gets a token now; an open seat's is made when it is taken.
        let creator_token = random_hex(16);
        let mut token_hashes = [String::new(), String::new()];
        token_hashes[creator] = token_hash(&creator_token);
        let now = self.now();
        let phase = if new.against_engine {
            Phase::Playing
        } else {
            Phase::Waiting
        };
        let live = LiveGame {
            phase,
            players,
            token_hashes,
            accounts,
            names,
            rated: new.rated,
            ratings,
            rating_range: new.rating_range,
            engine_level,
            public: new.public && !new.against_engine,
            ..LiveGame::made(game, new.control, now)
        };
        let grant = SeatGrant {
            game_id: live.id.clone(),
            seat: side_name(creator),
            token: creator_token,
            invite: (!new.against_engine).then(|| live.invite.clone()),
        };
        self.store_new(live).await?;
        Ok(grant)
    }

    /// Stores a game just made, then hosts it: its clock and, on its turn, the computer.
    async fn store_new(self: &Arc<Self>, mut live: LiveGame) -> Result<(), ApiError> {
        // The computer's search, when it moves first, has not started.
        live.engine_waiting =
            live.phase == Phase::Playing && live.players[live.side_to_move()] == Player::Engine;
        let row = live.new_row(&self.settings)?;
        let notice = serde_json::to_string(&Notice::of(&live.id, live.version)).unwrap_or_default();
        self.store
            .insert_game(&row, &notice)
            .await
            .map_err(|e| ApiError::storing("the new game", e))?;
        let slot = self.insert(live);
        self.after_change(&slot).await;
        Ok(())
    }

    /// Takes the open seat of a game with its invite (or of a public game without one).
    /// `who` is what the joiner presents: someone who already holds the other seat cannot
    /// play against themselves.
    pub async fn join(
        self: &Arc<Self>,
        slot: &Arc<GameSlot>,
        invite: Option<&str>,
        joiner: Sitter,
        who: &Credential<'_>,
    ) -> Result<SeatGrant, ApiError> {
        self.retry_stale(slot, || self.join_once(slot, invite, joiner.clone(), who))
            .await
    }

    /// One try of the above.
    async fn join_once(
        self: &Arc<Self>,
        slot: &Arc<GameSlot>,
        invite: Option<&str>,
        joiner: Sitter,
        who: &Credential<'_>,
    ) -> Result<SeatGrant, ApiError> {
        let mut live = slot.game.lock().await;
        if live.phase != Phase::Waiting {
            return Err(ApiError::conflict("this game has no open seat"));
        }
        if live.seat_for(who).is_some() {
            return Err(ApiError::conflict(
                "this is your own game: you cannot join it (cancel it instead)",
            ));
        }
        if live.rated && joiner.account.is_none() {
            return Err(ApiError::forbidden("log in to play a rated game"));
        }
        let joiner_rating = self
            .seat_rating(joiner.account.as_deref(), &live.game, &live.control)
            .await?;
        if let Some((min, max)) = live.rating_range {
            match joiner_rating {
                Some(seat) if (min..=max).contains(&seat.rating) => {}
                Some(seat) => {
                    return Err(ApiError::forbidden(format!(
                        "this seek is for ratings {min} to {max}; yours is {}",
                        seat.rating
                    )));
                }
                None => {
                    return Err(ApiError::forbidden(format!(
                        "this seek is for ratings {min} to {max}: log in to join it"
                    )));
                }
            }
        }
        let invited =
            invite.is_some_and(|i| constant_time_eq(i.as_bytes(), live.invite.as_bytes()));
        if !invited && !live.public {
            return Err(ApiError::forbidden(
                "this game is private: the invite code is missing or wrong",
            ));
        }
        let Some(open) = live.players.iter().position(|&p| p == Player::Open) else {
            return Err(ApiError::conflict("this game has no open seat"));
        };
        let mut players = live.players;
        players[open] = Player::Human;
        let joiner_token = random_hex(16);
        let mut token_hashes = live.token_hashes.clone();
        token_hashes[open] = token_hash(&joiner_token);
        let mut accounts = live.accounts.clone();
        accounts[open] = joiner.account;
        let mut names = live.names.clone();
        names[open] = joiner.name;
        let mut ratings = live.ratings;
        ratings[open] = joiner_rating;
        let now = self.now();
        let before = live.clone();
        live.players = players;
        live.token_hashes = token_hashes;
        live.accounts = accounts;
        live.names = names;
        live.ratings = ratings;
        live.phase = Phase::Playing;
        live.turn_started = now;
        live.version += 1;
        let change = live.state_change(&self.settings, before.version);
        let stored = {
            let seats = StartedSeats {
                players: [live.players[0].name(), live.players[1].name()],
                token_hashes: [&live.token_hashes[0], &live.token_hashes[1]],
                accounts: [live.accounts[0].as_deref(), live.accounts[1].as_deref()],
                names: [&live.names[0], &live.names[1]],
                ratings: live.ratings,
            };
            self.store.start_game(&change, &seats, now as i64).await
        };
        match stored {
            Ok(true) => {}
            Ok(false) => {
                *live = before;
                return Err(self.stale(slot, &mut live).await);
            }
            Err(e) => {
                *live = before;
                return Err(ApiError::storing("the join", e));
            }
        }
        let grant = SeatGrant {
            game_id: live.id.clone(),
            seat: side_name(open),
            token: joiner_token,
            invite: None,
        };
        self.announce(slot, &live, "state", None);
        drop(live);
        self.after_change(slot).await;
        Ok(grant)
    }

    /// The seat a credential acts for, or an error naming what is wrong.
    fn seat(live: &LiveGame, who: &Credential) -> Result<Side, ApiError> {
        if who.token.is_none() && who.account.is_none() {
            return Err(ApiError::forbidden(
                "a seat token or a login holding a seat is required",
            ));
        }
        live.seat_for(who).ok_or_else(|| {
            ApiError::forbidden(if who.token.is_some() {
                "the token does not hold a seat in this game"
            } else {
                "your account does not hold a seat in this game"
            })
        })
    }

    /// Plays a move for the seat holding `token`; answers once the move is stored.
    pub async fn play(
        self: &Arc<Self>,
        slot: &Arc<GameSlot>,
        who: &Credential<'_>,
        text: &str,
    ) -> Result<GameView, ApiError> {
        let view = self
            .retry_stale(slot, || async {
                let mut live = slot.game.lock().await;
                let side = Self::seat(&live, who)?;
                self.play_locked(slot, &mut live, side, text).await
            })
            .await?;
        self.after_change(slot).await;
        Ok(view)
    }

    async fn play_locked(
        &self,
        slot: &Arc<GameSlot>,
        live: &mut LiveGame,
        side: Side,
        text: &str,
    ) -> Result<GameView, ApiError> {
        match live.phase {
            Phase::Waiting => {
                return Err(ApiError::conflict(
                    "the game has not started: waiting for the second player",
                ));
            }
            Phase::Finished => {
                let reason = live.result.as_ref().map_or("", |r| r.reason.as_str());
                return Err(ApiError::conflict(format!("the game is over ({reason})")));
            }
            Phase::Playing => {}
        }
        if live.side_to_move() != side {
            return Err(ApiError::conflict(format!(
                "it is {}'s turn, not {}'s",
                side_name(live.side_to_move()),
                side_name(side)
            )));
        }
        if text.len() > 32 {
            return Err(ApiError::bad_request("move text is too long"));
        }
        let arrived = Instant::now();
        let now = self.now();
        let think_ms = now.saturating_sub(live.turn_started);
        let mut clock = live.clock;
        if live.clock_runs() && !clock.end_turn(&live.control, side, think_ms) {
            self.finish(slot, live, Some(1 - side), "time").await?;
            return Err(ApiError::conflict("time is up: the game is lost on time"));
        }
        let mut game = live.game.clone();
        let played = game.play(text).map_err(ApiError::from_rules)?;
        let record = MoveRecord {
            ply: live.moves.len() + 1,
            played,
            played_at: now,
            think_ms,
            clocks: clock,
        };
        let row = move_row(&record);
        // The game as the move leaves it, stored with the move; put back if it is not stored.
        let before = (
            std::mem::replace(&mut live.game, game),
            live.clock,
            live.turn_started,
            live.draw_offer,
            live.engine_waiting,
        );
        live.clock = clock;
        live.turn_started = now;
        live.moves.push(record.clone());
        live.draw_offer = None;
        live.engine_waiting = live.phase == Phase::Playing
            && live.players[live.side_to_move()] == Player::Engine
            && live.game.outcome().is_none();
        live.version += 1;
        let notice = Notice {
            id: live.id.clone(),
            version: live.version,
            moved: Some(MovedNotice {
                row: row.clone(),
                turn_started_at: now,
                engine_waiting: live.engine_waiting,
            }),
        };
        let change = live.change(&self.settings, live.version - 1, &notice);
        let write = Instant::now();
        let stored = self.store.insert_move(change, &row).await;
        if !matches!(stored, Ok(true)) {
            live.version -= 1;
            live.moves.pop();
            (
                live.game,
                live.clock,
                live.turn_started,
                live.draw_offer,
                live.engine_waiting,
            ) = before;
            return Err(match stored {
                Err(e) => ApiError::storing("the move", e),
                _ => self.stale(slot, live).await,
            });
        }
        self.metrics
            .database_seconds
            .observe(write.elapsed().as_secs_f64());
        self.metrics.moves.inc();
        // The opponent's turn starts once the move is stored and sent, not when it arrived:
        // a slow write is charged to nobody.
        live.turn_started = self.now();
        if live.game.outcome().is_some() {
            self.finish_by_rules(slot, live).await;
        } else {
            self.announce(slot, live, "move", Some(record));
        }
        self.metrics
            .move_seconds
            .observe(arrived.elapsed().as_secs_f64());
        Ok(self.view_of(live, false))
    }

    /// Ends a game: stores the result, then announces it. When the result cannot be stored
    /// nothing changes and nothing is announced: an end is never acknowledged before it is
    /// stored.
    async fn finish(
        &self,
        slot: &GameSlot,
        live: &mut LiveGame,
        winner: Option<Side>,
        reason: &str,
    ) -> Result<(), ApiError> {
        let now = self.now();
        let write = Instant::now();
        let game = rating_game(live.game.variant(), &live.game.options_text());
        let speed = Speed::of(&live.control);
        let rated_seats = match (&live.accounts, speed) {
            ([Some(sente), Some(gote)], Some(speed)) if live.rated && reason != "aborted" => {
                Some(RatedEnd {
                    accounts: [sente.as_str(), gote.as_str()],
                    game,
                    speed: speed.name(),
                })
            }
            _ => None,
        };
        let notice = Notice::of(&live.id, live.version + 1);
        let change = Change {
            id: live.id.clone(),
            from_version: live.version,
            state: GameState {
                version: live.version + 1,
                turn_started_at: live.turn_started as i64,
                draw_offer: None,
                rematch_offer: None,
                engine_waiting: false,
                due_at: None,
            },
            notice: serde_json::to_string(&notice).unwrap_or_default(),
        };
        let stored = match rated_seats {
            Some(rated) => self
                .store
                .finish_rated_game(&change, winner, reason, now as i64, rated)
                .await
                .map(|changes| {
                    let Some(changes) = changes else {
                        return false;
                    };
                    for (seat, change) in live.ratings.iter_mut().zip(changes) {
                        if let Some(seat) = seat {
                            seat.change = Some(change);
                        }
                    }
                    true
                }),
            None => {
                self.store
                    .finish_game(&change, winner.map(side_name), reason, now as i64)
                    .await
            }
        };
        match stored {
            Ok(true) => {}
            Ok(false) => return Err(self.stale(slot, live).await),
            Err(e) => return Err(ApiError::storing("the result", e)),
        }
        live.version += 1;
        self.metrics
            .database_seconds
            .observe(write.elapsed().as_secs_f64());
        self.finish_stored(slot, live, winner, reason, now);
        Ok(())
    }

    /// Stores a change made to the game in memory (whose version is already the next),
    /// one that adds nothing but its state; when it cannot be stored, the game is put back
    /// as `before` (and reloaded, if another instance changed it).
    async fn store_state(
        &self,
        slot: &GameSlot,
        live: &mut LiveGame,
        before: LiveGame,
    ) -> Result<(), ApiError> {
        let change = live.state_change(&self.settings, before.version);
        match self.store.change_state(&change).await {
            Ok(true) => Ok(()),
            Ok(false) => {
                *live = before;
                Err(self.stale(slot, live).await)
            }
            Err(e) => {
                *live = before;
                Err(ApiError::storing("the change", e))
            }
        }
    }

    /// Runs `attempt`, and once more when it lost the race with another instance's change
    /// (the game has been reloaded by then), or when on a shared database it was refused
    /// (409, 403, or 422 from the rules) while this instance had not yet heard of the game's
    /// latest change (two moves behind, a move legal in the stored game looks illegal here): the
    /// request is checked again on the game as stored (a move after the opponent's offer, a
    /// move sent here just after the opponent's move was made on another instance, a seat
    /// taken on another instance).
    async fn retry_stale<T, Attempt>(
        &self,
        slot: &GameSlot,
        mut attempt: impl FnMut() -> Attempt,
    ) -> Result<T, ApiError>
    where
        Attempt: std::future::Future<Output = Result<T, ApiError>>,
    {
        match attempt().await {
            Err(e) if e.message == STALE => attempt().await,
            Err(e) if self.store.shared() && matches!(e.status, 403 | 409 | 422) => {
                {
                    let mut live = slot.game.lock().await;
                    let version = live.version;
                    if self.refresh(slot, &mut live).await.is_err() || live.version == version {
                        return Err(e);
                    }
                }
                attempt().await
            }
            result => result,
        }
    }

    /// After another instance changed the game first: the game is reloaded (and the change
    /// announced); the error says to look again.
    async fn stale(&self, slot: &GameSlot, live: &mut LiveGame) -> ApiError {
        match self.refresh(slot, live).await {
            Ok(()) => ApiError::conflict(STALE),
            Err(e) => e,
        }
    }

    /// Brings a game in memory up to its stored version: the moves stored since, then the
    /// row; announces what changed to this instance's watchers.
    async fn refresh(&self, slot: &GameSlot, live: &mut LiveGame) -> Result<(), ApiError> {
        let (row, moves) = self
            .store
            .game_since(&live.id, live.moves.len() as i64)
            .await
            .map_err(|e| ApiError::internal(format!("database: {e}")))?
            .ok_or_else(|| ApiError::not_found(format!("no game with id {:?}", live.id)))?;
        if row.state.version <= live.version && moves.is_empty() {
            return Ok(());
        }
        let (plies, phase) = (live.moves.len(), live.phase);
        for mv in &moves {
            live.take_move(mv).map_err(|e| {
                ApiError::internal(format!("stored game {} is damaged: {e}", live.id))
            })?;
        }
        live.take_row(&row);
        if let Ok(turn_started) = u64::try_from(row.state.turn_started_at)
            && turn_started > 0
        {
            live.turn_started = turn_started;
        }
        self.announce_catch_up(slot, live, plies, phase);
        Ok(())
    }

    /// Tells this instance's watchers of a game what changed elsewhere: the game's end, the
    /// one new move, or the whole game.
    fn announce_catch_up(&self, slot: &GameSlot, live: &LiveGame, plies: usize, phase: Phase) {
        slot.deadline
            .store(self.sweep_deadline(live), Ordering::Relaxed);
        if live.phase == Phase::Playing && live.game.outcome().is_some() {
            // The move ended the game by the rules: its instance stores the result next, and
            // that change announces the end (a sweep stores it if that instance stopped).
            return;
        }
        // The games_ended metric counts the ends this instance stored, not those it hears of.
        if live.phase == Phase::Finished && phase != Phase::Finished {
            self.announce(slot, live, "end", live.moves.last().cloned());
        } else if live.moves.len() == plies + 1 && live.phase == phase {
            self.announce(slot, live, "move", live.moves.last().cloned());
        } else {
            self.announce(slot, live, "state", None);
        }
    }

    /// Ends a game in memory whose end is stored (or follows from its stored moves), and
    /// announces it.
    fn finish_stored(
        &self,
        slot: &GameSlot,
        live: &mut LiveGame,
        winner: Option<Side>,
        reason: &str,
        now: u64,
    ) {
        // The running turn's time is charged so the final clocks show what was used.
        if live.clock_runs() {
            let side = live.side_to_move();
            let elapsed = now.saturating_sub(live.turn_started);
            let mut clock = live.clock;
            if clock.end_turn(&live.control, side, elapsed) {
                live.clock = clock;
            } else if let Some(c) = live.clock.sides.get_mut(side) {
                *c = SideClock {
                    remaining_ms: 0,
                    periods: 0,
                };
            }
        }
        live.phase = Phase::Finished;
        live.draw_offer = None;
        live.result = Some(GameResult {
            winner: winner.map(side_name),
            reason: reason.to_string(),
        });
        slot.deadline.store(u64::MAX, Ordering::Relaxed);
        self.metrics.games_ended.with_label_values(&[reason]).inc();
        let last = live.moves.last().cloned();
        self.announce(slot, live, "end", last);
    }

    /// Ends a game whose last stored move ended it by the rules. The moves are stored, so the
    /// end is durable even when storing the result fails: a restart replays the moves and
    /// stores it then.
    async fn finish_by_rules(&self, slot: &GameSlot, live: &mut LiveGame) {
        let Some(outcome) = live.game.outcome() else {
            return;
        };
        let winner = outcome.winner.map(|c| usize::from(c == Color::Gote));
        let reason = outcome.reason.name();
        let mut stored = self.finish(slot, live, winner, reason).await;
        if let Err(e) = &stored
            && e.message == STALE
        {
            // Another instance changed the game first (on a shared database, another instance
            // resuming it may have stored this very end): the game is reloaded by now.
            if live.phase == Phase::Finished {
                return;
            }
            stored = self.finish(slot, live, winner, reason).await;
        }
        if let Err(e) = stored {
            if !e.is_unavailable() {
                tracing::warn!(
                    game = %live.id,
                    "ended by {reason}, result not stored yet (stored at the next start): {}",
                    e.message
                );
            }
            let now = self.now();
            self.finish_stored(slot, live, winner, reason, now);
        }
    }

    fn announce(&self, slot: &GameSlot, live: &LiveGame, kind: &str, last: Option<MoveRecord>) {
        let mut view = self.view_of(live, kind != "move");
        view.last = last;
        if let Ok(text) = serde_json::to_string(&Event { kind, game: &view }) {
            // Nobody listening is fine.
            let _ = slot.events.send(Arc::from(text));
        }
    }

    /// Resigns for the seat holding `token`.
    pub async fn resign(
        &self,
        slot: &Arc<GameSlot>,
        who: &Credential<'_>,
    ) -> Result<GameView, ApiError> {
        self.retry_stale(slot, || async {
            let mut live = slot.game.lock().await;
            let side = Self::seat(&live, who)?;
            if live.phase != Phase::Playing {
                return Err(ApiError::conflict("only a game in play can be resigned"));
            }
            self.finish(slot, &mut live, Some(1 - side), "resignation")
                .await?;
            Ok(self.view_of(&live, false))
        })
        .await
    }

    /// Aborts a game before both players have moved (or while a seat is open).
    pub async fn abort(
        &self,
        slot: &Arc<GameSlot>,
        who: &Credential<'_>,
    ) -> Result<GameView, ApiError> {
        self.retry_stale(slot, || async {
            let mut live = slot.game.lock().await;
            Self::seat(&live, who)?;
            if live.phase == Phase::Finished {
                return Err(ApiError::conflict("the game is already over"));
            }
            if live.moves.len() >= 2 {
                return Err(ApiError::conflict(
                    "a game can only be aborted before both players have moved",
                ));
            }
            self.finish(slot, &mut live, None, "aborted").await?;
            Ok(self.view_of(&live, false))
        })
        .await
    }

    /// Offers, accepts or declines a draw. Offering when the opponent already offers accepts.
    pub async fn draw(
        &self,
        slot: &Arc<GameSlot>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, ApiError> {
        self.retry_stale(slot, || self.draw_once(slot, who, action))
            .await
    }

    /// One try of the above.
    async fn draw_once(
        &self,
        slot: &Arc<GameSlot>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, ApiError> {
        let mut live = slot.game.lock().await;
        let side = Self::seat(&live, who)?;
        if live.phase != Phase::Playing {
            return Err(ApiError::conflict(
                "draws are offered only in a game in play",
            ));
        }
        let opponent_offers = live.draw_offer == Some(1 - side);
        match action {
            "offer" | "accept" if opponent_offers => {
                self.finish(slot, &mut live, None, "agreement").await?;
            }
            "offer" => {
                if live.players[1 - side] == Player::Engine {
                    return Err(ApiError::conflict("the engine does not accept draws"));
                }
                if live.draw_offer != Some(side) {
                    let before = live.clone();
                    live.draw_offer = Some(side);
                    live.version += 1;
                    self.store_state(slot, &mut live, before).await?;
                    self.announce(slot, &live, "state", None);
                }
            }
            "accept" => return Err(ApiError::conflict("there is no draw offer to accept")),
            "decline" => {
                if !opponent_offers {
                    return Err(ApiError::conflict("there is no draw offer to decline"));
                }
                let before = live.clone();
                live.draw_offer = None;
                live.version += 1;
                self.store_state(slot, &mut live, before).await?;
                self.announce(slot, &live, "state", None);
            }
            other => {
                return Err(ApiError::bad_request(format!(
                    "draw action {other:?} is not one of offer, accept, decline"
                )));
            }
        }
        Ok(self.view_of(&live, false))
    }

    /// After a change: sets the flag time and lets the engine move when it is its turn.
    async fn after_change(self: &Arc<Self>, slot: &Arc<GameSlot>) {
        let mut live = slot.game.lock().await;
        self.schedule(slot, &mut live);
    }

    /// When the sweeper must look at a game in memory next: its deadline, and on the
    /// computer's turn also when its move is overdue.
    fn sweep_deadline(&self, live: &LiveGame) -> u64 {
        let deadline = live.deadline(&self.settings);
        if live.phase == Phase::Playing && live.players[live.side_to_move()] == Player::Engine {
            deadline.min(live.turn_started.saturating_add(ENGINE_OVERDUE_MS))
        } else {
            deadline
        }
    }

    /// Sets the flag time of a game and starts the engine's search when it is its turn.
    fn schedule(self: &Arc<Self>, slot: &Arc<GameSlot>, live: &mut LiveGame) {
        let engine_to_move =
            live.phase == Phase::Playing && live.players[live.side_to_move()] == Player::Engine;
        let ply = live.moves.len();
        // One search per turn, however often the game is looked at.
        let start_search = engine_to_move && live.engine_search_ply != Some(ply);
        if start_search {
            live.engine_search_ply = Some(ply);
        }
        slot.deadline
            .store(self.sweep_deadline(live), Ordering::Relaxed);
        if !start_search {
            return;
        }
        let side = live.side_to_move();
        let hub = self.clone();
        let slot = slot.clone();
        tokio::spawn(async move {
            let searched = hub.engine_move(&slot, side, ply).await;
            let mut live = slot.game.lock().await;
            if !searched && live.engine_search_ply == Some(ply) {
                // Searched again only once the move is overdue, not at once: when another
                // instance is searching it, two instances restarting their searches on each
                // other's changes would never let either move.
                live.engine_search_ply = None;
            }
            slot.deadline
                .store(hub.sweep_deadline(&live), Ordering::Relaxed);
        });
    }

    /// Searches and plays the computer's move at `ply`; `false` when this instance did not
    /// (the game moved on, another instance searches it, or the search failed).
    async fn engine_move(self: &Arc<Self>, slot: &Arc<GameSlot>, side: Side, ply: usize) -> bool {
        let waiting = GaugeGuard::hold(&self.metrics.engine_waiting);
        let Some(_permit) = self.engine.slot().await else {
            return false;
        };
        drop(waiting);
        let (game, limits) = {
            let mut live = slot.game.lock().await;
            if live.moves.len() != ply || live.phase != Phase::Playing {
                return false;
            }
            // The computer's clock starts with its search, not while it waited. Storing that
            // is also what keeps a second instance from searching the same move.
            let before = live.clone();
            live.engine_waiting = false;
            live.turn_started = self.now();
            live.version += 1;
            if let Err(e) = self.store_state(slot, &mut live, before).await {
                if e.message != STALE && !e.is_unavailable() {
                    tracing::warn!(game = %live.id, "computer's search not started: {}", e.message);
                }
                return false;
            }
            slot.deadline
                .store(self.sweep_deadline(&live), Ordering::Relaxed);
            let time_left = live.clock.time_left(&live.control, side, 0);
            (
                live.game.clone(),
                engine_limits(live.engine_level, time_left),
            )
        };
        let running = GaugeGuard::hold(&self.metrics.engine_running);
        // Searches run on the blocking pool: the async workers keep serving meanwhile.
        let Ok(Some(reply)) = tokio::task::spawn_blocking(move || {
            game.best_move(&limits, Arc::new(AtomicBool::new(false)))
        })
        .await
        else {
            return false;
        };
        drop(running);
        let mut live = slot.game.lock().await;
        // The game may have moved on (resignation, abort, flag) while the engine thought.
        if live.moves.len() != ply || live.phase != Phase::Playing {
            return true;
        }
        if let Err(e) = self.play_locked(slot, &mut live, side, &reply.best).await {
            tracing::error!(
                game = %live.id,
                "engine move {} refused: {}",
                reply.best,
                e.message
            );
            return false;
        }
        true
    }

    /// Ends every game whose flag has fallen, and takes up overdue computer moves; the server
    /// runs this 20 times a second. On a shared database only the games this instance has
    /// claimed are its to end.
    pub async fn flag_sweep(self: &Arc<Self>) {
        let now = self.now();
        let shared = self.store.shared();
        let due: Vec<Arc<GameSlot>> = self
            .live_slots()
            .into_iter()
            .filter(|s| {
                s.deadline.load(Ordering::Relaxed) <= now
                    && (!shared || s.claimed_until.load(Ordering::Relaxed) > now)
            })
            .collect();
        for slot in due {
            self.sweep(&slot).await;
        }
    }

    /// Does what is due in one game: an abort, a flag, the computer's overdue move.
    async fn sweep(self: &Arc<Self>, slot: &Arc<GameSlot>) {
        let mut live = slot.game.lock().await;
        if live.phase == Phase::Finished {
            return;
        }
        if live.game.outcome().is_some() {
            // Ended by its last move, whose instance did not get to store the result.
            self.finish_by_rules(slot, &mut live).await;
            return;
        }
        let now = self.now();
        if let Some(abort_deadline) = live.abort_deadline(&self.settings) {
            if abort_deadline <= now {
                self.finish_or_retry(slot, &mut live, None, "aborted").await;
            } else {
                slot.deadline
                    .store(self.sweep_deadline(&live), Ordering::Relaxed);
            }
            return;
        }
        let side = live.side_to_move();
        let engine_turn = live.players[side] == Player::Engine;
        let elapsed = now.saturating_sub(live.turn_started);
        let flag_fell =
            live.clock_runs() && live.clock.time_left(&live.control, side, elapsed) == Some(0);
        let overdue = engine_turn && elapsed >= ENGINE_OVERDUE_MS;
        // On a shared database an overdue computer move is the searching instance's loss,
        // not the computer's: another instance searches it again.
        if flag_fell && !(overdue && self.store.shared()) {
            self.finish_or_retry(slot, &mut live, Some(1 - side), "time")
                .await;
        } else if overdue && live.engine_search_ply != Some(live.moves.len()) {
            tracing::warn!(game = %live.id, "the computer's move is overdue: searching it here");
            self.schedule(slot, &mut live);
        } else if overdue {
            // This instance's search is still waiting for a slot.
            slot.deadline
                .store(now.saturating_add(1000), Ordering::Relaxed);
        } else {
            slot.deadline
                .store(self.sweep_deadline(&live), Ordering::Relaxed);
        }
    }

    /// Ends a game for the sweeper; when the result cannot be stored the game stays as it is
    /// and the sweeper tries again a second later.
    async fn finish_or_retry(
        &self,
        slot: &GameSlot,
        live: &mut LiveGame,
        winner: Option<Side>,
        reason: &str,
    ) {
        if let Err(e) = self.finish(slot, live, winner, reason).await {
            if e.message == STALE {
                return;
            }
            if !e.is_unavailable() {
                tracing::warn!(
                    game = %live.id,
                    "not ended by {reason} yet, retrying in a second: {}",
                    e.message
                );
            }
            slot.deadline
                .store(self.now().saturating_add(1000), Ordering::Relaxed);
        }
    }

    /// On a shared database, claims the stored games that are due (for two seconds) so that
    /// this instance's sweeper, and no other's, deals with them.
    pub async fn claim_due_games(self: &Arc<Self>) {
        let now = self.now();
        let until = now.saturating_add(CLAIM_MS);
        let ids = match self
            .store
            .claim_due(now as i64, until as i64, CLAIMS_AT_ONCE)
            .await
        {
            Ok(ids) => ids,
            Err(e) => {
                if e.downcast_ref::<WritesRefused>().is_none() {
                    tracing::warn!("cannot claim due games: {e}");
                }
                return;
            }
        };
        for id in ids {
            match self.find(&id).await {
                Ok(slot) => {
                    slot.claimed_until.store(until, Ordering::Relaxed);
                    // Memory may be behind the row that made the game due.
                    let mut live = slot.game.lock().await;
                    if let Err(e) = self.refresh(&slot, &mut live).await {
                        tracing::warn!(game = %id, "cannot reload a due game: {}", e.message);
                    }
                }
                Err(e) => tracing::warn!(game = %id, "cannot load a due game: {}", e.message),
            }
        }
    }

    /// Runs [`Hub::flag_sweep`] forever, every 50 ms, and every ten seconds drops the
    /// finished games nobody looked at for a minute.
    pub async fn run_flag_sweeper(self: Arc<Self>) {
        let mut tick = tokio::time::interval(Duration::from_millis(50));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_eviction = Instant::now();
        let mut last_claim = Instant::now();
        loop {
            tick.tick().await;
            if self.store.shared() && last_claim.elapsed() >= Duration::from_millis(100) {
                self.claim_due_games().await;
                last_claim = Instant::now();
            }
            self.flag_sweep().await;
            if last_eviction.elapsed() >= Duration::from_secs(10) {
                self.evict_finished(FINISHED_KEPT_MS);
                last_eviction = Instant::now();
            }
        }
    }

    /// The seat a credential holds in a game, if any (for the WebSocket greeting).
    pub async fn seat_name(&self, slot: &GameSlot, who: &Credential<'_>) -> Option<&'static str> {
        slot.game.lock().await.viewer_seat(who)
    }

    /// Says a line in a game's chat: a player in the players' room, anyone else (logged in)
    /// in the spectators'. `account_name` is the logged-in speaker's name.
    pub async fn say(
        &self,
        slot: &GameSlot,
        who: &Credential<'_>,
        account_name: Option<&str>,
        text: &str,
    ) -> Result<ChatLine, ApiError> {
        let text = clean_line(text)?;
        let (game_id, room, author, sender) = {
            let live = slot.game.lock().await;
            match live.seat_for(who) {
                Some(side) => (
                    live.id.clone(),
                    Room::Players,
                    live.names[side].clone(),
                    live.accounts[side]
                        .clone()
                        .unwrap_or_else(|| format!("{}:{}", live.id, side_name(side))),
                ),
                None => match (who.account, account_name) {
                    (Some(account), Some(name)) => (
                        live.id.clone(),
                        Room::Spectators,
                        name.to_string(),
                        account.to_string(),
                    ),
                    _ => {
                        return Err(ApiError::forbidden(
                            "only the players and logged-in spectators can chat",
                        ));
                    }
                },
            }
        };
        if self.chat_senders.len() > 10_000 {
            self.chat_senders.retain_recent();
        }
        self.chat_senders.check_key(&sender).map_err(|refused| {
            ApiError::busy_for(
                "too many chat lines",
                refused.wait_time_from(DefaultClock::default().now()),
            )
        })?;
        let line = ChatLine {
            id: random_hex(8),
            room,
            author,
            text,
            at: self.now(),
        };
        let account = match room {
            Room::Players => who.account.filter(|a| *a == sender),
            Room::Spectators => who.account,
        };
        let notice = serde_json::to_string(&ChatNotice {
            game: game_id.clone(),
            from: self.instance.clone(),
            line: line.clone(),
        })
        .unwrap_or_default();
        let stored = self
            .store
            .insert_chat(&game_id, &line, account, &notice)
            .await
            .map_err(|e| ApiError::storing("the chat line", e))?;
        if !stored {
            return Err(ApiError::conflict("this game's chat is full"));
        }
        let _ = slot.chat.send(Arc::new(line.clone()));
        Ok(line)
    }

    /// The room a credential sees in a game, and its newest lines.
    pub async fn chat_history(
        &self,
        slot: &GameSlot,
        who: &Credential<'_>,
    ) -> Result<(Room, Vec<ChatLine>), ApiError> {
        let (game_id, room) = {
            let live = slot.game.lock().await;
            let room = if live.seat_for(who).is_some() {
                Room::Players
            } else {
                Room::Spectators
            };
            (live.id.clone(), room)
        };
        let lines = self
            .store
            .chat_lines(&game_id, room, HISTORY_LINES)
            .await
            .map_err(|e| ApiError::internal(format!("database: {e}")))?;
        Ok((room, lines))
    }

    /// Offers, accepts or declines a rematch after a game between people. When both want one,
    /// a new game starts with the same rules, clock and rating, colours swapped; each player's
    /// seat token (and login) of this game holds their seat in the new one.
    pub async fn rematch(
        self: &Arc<Self>,
        slot: &Arc<GameSlot>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, ApiError> {
        self.retry_stale(slot, || self.rematch_once(slot, who, action))
            .await
    }

    /// One try of the above.
    async fn rematch_once(
        self: &Arc<Self>,
        slot: &Arc<GameSlot>,
        who: &Credential<'_>,
        action: &str,
    ) -> Result<GameView, ApiError> {
        let mut live = slot.game.lock().await;
        let side = Self::seat(&live, who)?;
        if live.phase != Phase::Finished {
            return Err(ApiError::conflict(
                "a rematch is offered once the game is over",
            ));
        }
        if live.players.contains(&Player::Engine) {
            return Err(ApiError::conflict(
                "against the computer, start a new game instead",
            ));
        }
        if live.rematch_id.is_some() {
            return Ok(self.view_of(&live, false));
        }
        let opponent_offers = live.rematch_offer == Some(1 - side);
        match action {
            "offer" | "accept" if opponent_offers => {
                let rematch = self.start_rematch(&live).await?;
                let before = live.clone();
                live.rematch_id = Some(rematch.clone());
                live.rematch_offer = None;
                live.version += 1;
                let change = live.state_change(&self.settings, before.version);
                match self.store.set_rematch(&change, &rematch).await {
                    Ok(true) => {}
                    Ok(false) => {
                        // The new game stays unplayed and is aborted after its first-move
                        // time: the other instance's change (the other player's own accept,
                        // say) decides which rematch the players see.
                        *live = before;
                        return Err(self.stale(slot, &mut live).await);
                    }
                    Err(e) => {
                        *live = before;
                        return Err(ApiError::storing("the rematch", e));
                    }
                }
            }
            "offer" => {
                let before = live.clone();
                live.rematch_offer = Some(side);
                live.version += 1;
                self.store_state(slot, &mut live, before).await?;
            }
            "accept" => return Err(ApiError::conflict("there is no rematch offer to accept")),
            "decline" => {
                if !opponent_offers {
                    return Err(ApiError::conflict("there is no rematch offer to decline"));
                }
                let before = live.clone();
                live.rematch_offer = None;
                live.version += 1;
                self.store_state(slot, &mut live, before).await?;
            }
            other => {
                return Err(ApiError::bad_request(format!(
                    "rematch action {other:?} is not one of offer, accept, decline"
                )));
            }
        }
        self.announce(slot, &live, "state", None);
        Ok(self.view_of(&live, false))
    }

    /// Stores and starts the rematch of a finished game; its id.
    async fn start_rematch(self: &Arc<Self>, old: &LiveGame) -> Result<String, ApiError> {
        let game = HostedGame::new(
            old.game.variant(),
            &old.game.options_text(),
            Some(&old.game.start_sfen()),
        )
        .map_err(ApiError::from_rules)?;
        let swap = |pair: &[Option<String>; 2]| [pair[1].clone(), pair[0].clone()];
        let accounts = swap(&old.accounts);
        let mut ratings = [None, None];
        for (side, account) in accounts.iter().enumerate() {
            ratings[side] = self
                .seat_rating(account.as_deref(), &game, &old.control)
                .await?;
        }
        let now = self.now();
        let live = LiveGame {
            phase: Phase::Playing,
            players: [Player::Human, Player::Human],
            token_hashes: [old.token_hashes[1].clone(), old.token_hashes[0].clone()],
            accounts,
            names: [old.names[1].clone(), old.names[0].clone()],
            rated: old.rated,
            ratings,
            engine_level: old.engine_level,
            public: old.public,
            ..LiveGame::made(game, old.control, now)
        };
        let id = live.id.clone();
        self.store_new(live).await?;
        Ok(id)
    }

    /// Public games with an open seat.
    pub async fn lobby(&self) -> Vec<GameView> {
        let now = self.now();
        let mut out = Vec::new();
        for slot in self.live_slots() {
            let live = slot.game.lock().await;
            if live.public && live.phase == Phase::Waiting {
                out.push(live.summary(now, &self.settings));
            }
        }
        out.sort_by_key(|v| std::cmp::Reverse(v.created_at));
        out
    }

    /// Games in play (live) and the newest finished ones.
    pub async fn list(
        &self,
        status: Option<&str>,
        limit: usize,
    ) -> Result<Vec<GameView>, ApiError> {
        let now = self.now();
        let mut out = Vec::new();
        if status != Some("finished") {
            for slot in self.live_slots() {
                let live = slot.game.lock().await;
                if live.phase != Phase::Finished
                    && status.is_none_or(|s| s == live.phase.name())
                    && live.is_listed()
                {
                    out.push(live.summary(now, &self.settings));
                }
            }
        }
        if status.is_none() || status == Some("finished") {
            let rows = self
                .store
                .finished_games(limit as i64)
                .await
                .map_err(|e| ApiError::internal(format!("database: {e}")))?;
            for row in rows {
                if let Ok(slot) = self.find(&row.id).await {
                    let live = slot.game.lock().await;
                    if live.is_listed() {
                        out.push(live.summary(now, &self.settings));
                    }
                }
            }
        }
        out.sort_by_key(|v| std::cmp::Reverse(v.created_at));
        out.truncate(limit);
        Ok(out)
    }

    /// An account's games, newest first, optionally of one status.
    pub async fn account_games(
        &self,
        account_id: &str,
        status: Option<&str>,
        limit: usize,
    ) -> Result<Vec<GameView>, ApiError> {
        let ids = self
            .store
            .account_game_ids(account_id, status, limit as i64)
            .await
            .map_err(|e| ApiError::internal(format!("database: {e}")))?;
        let now = self.now();
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Ok(slot) = self.find(&id).await {
                out.push(slot.game.lock().await.summary(now, &self.settings));
            }
        }
        Ok(out)
    }

    /// How many games in play wait for a move of this account's: its games in play (from the
    /// database's index by account, not a walk over every game in memory) whose side to move
    /// is the account's.
    pub async fn your_turn_count(&self, account_id: &str) -> usize {
        let ids = match self
            .store
            .account_game_ids(account_id, Some("playing"), 1000)
            .await
        {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!("could not count the games waiting for a player: {e}");
                return 0;
            }
        };
        let mut count = 0;
        for id in ids {
            // Games in play are all in memory.
            let Some(slot) = self.slot(&id) else { continue };
            let live = slot.game.lock().await;
            let to_move = live.side_to_move();
            if live.phase == Phase::Playing && live.accounts[to_move].as_deref() == Some(account_id)
            {
                count += 1;
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hub over a fresh SQLite file (removed when the test ends).
    struct TestHub {
        hub: Arc<Hub>,
        path: std::path::PathBuf,
    }

    impl Drop for TestHub {
        fn drop(&mut self) {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", self.path.display()));
            }
        }
    }

    async fn test_hub(name: &str) -> TestHub {
        let path = std::env::temp_dir().join(format!(
            "tsubame-hub-{name}-{}-{}.db",
            std::process::id(),
            rand::thread_rng().r#gen::<u32>()
        ));
        let store = Store::open(&format!("sqlite://{}", path.display()))
            .await
            .expect("the test database opens");
        let hub = Hub::open(store, Settings::default())
            .await
            .expect("the hub opens");
        TestHub { hub, path }
    }

    async fn new_game(hub: &Arc<Hub>) -> SeatGrant {
        hub.create(NewGame {
            variant: Variant::Tori,
            options: String::new(),
            start_sfen: None,
            control: TimeControl::Unlimited,
            against_engine: false,
            engine_level: 1,
            creator_side: 0,
            creator: Sitter {
                account: None,
                name: "Guest-sente".into(),
            },
            rated: false,
            rating_range: None,
            public: true,
        })
        .await
        .expect("the game is created")
    }

    #[tokio::test]
    async fn a_rated_game_is_rated_once() {
        use crate::store::AccountRow;
        let test = test_hub("rated-once").await;
        let hub = &test.hub;
        for id in ["a1", "b2"] {
            let row = AccountRow {
                id: id.into(),
                name: format!("player-{id}"),
                password_hash: "$argon2id$unused".into(),
                created_at: 0,
            };
            assert!(hub.store().insert_account(&row).await.expect("stored"));
        }
        let sitter = |id: &str| Sitter {
            account: Some(id.into()),
            name: format!("player-{id}"),
        };
        let grant = hub
            .create(NewGame {
                variant: Variant::Tori,
                options: String::new(),
                start_sfen: None,
                control: TimeControl::Correspondence { days_per_move: 3 },
                against_engine: false,
                engine_level: 1,
                creator_side: 0,
                creator: sitter("a1"),
                rated: true,
                rating_range: None,
                public: true,
            })
            .await
            .expect("a rated correspondence seek");
        let slot = hub.find(&grant.game_id).await.expect("the game exists");
        hub.join(&slot, None, sitter("b2"), &Credential::default())
            .await
            .expect("the second account joins");
        let rated = RatedEnd {
            accounts: ["a1", "b2"],
            game: "tori",
            speed: "correspondence",
        };
        let version = slot.game.lock().await.version;
        let end_from = |from_version: i64| Change {
            id: grant.game_id.clone(),
            from_version,
            state: GameState {
                version: from_version + 1,
                ..GameState::default()
            },
            notice: String::new(),
        };
        let first = hub
            .store()
            .finish_rated_game(&end_from(version), Some(1), "resignation", 1, rated)
            .await
            .expect("stored");
        assert_eq!(first, Some([-162, 162]));
        let second = hub
            .store()
            .finish_rated_game(&end_from(version), Some(0), "resignation", 2, rated)
            .await
            .expect("answered");
        assert_eq!(
            second, None,
            "a change from a replaced version is not stored"
        );
        let third = hub
            .store()
            .finish_rated_game(&end_from(version + 1), Some(0), "resignation", 2, rated)
            .await
            .expect("answered");
        assert_eq!(third, None, "a finished game is not rated again");
        let ratings = hub.store().ratings_of("b2").await.expect("read");
        assert_eq!(ratings.len(), 1);
        assert_eq!(ratings[0].games, 1);
        assert_eq!(ratings[0].rating.rating.round(), 1662.0);
        assert_eq!(
            hub.store()
                .rating_history("a1", 10)
                .await
                .expect("read")
                .len(),
            1
        );
    }

    #[tokio::test]
    async fn finished_games_nobody_holds_leave_memory_and_come_back_whole() {
        let test = test_hub("evict").await;
        let hub = &test.hub;
        let finished = new_game(hub).await;
        let playing = new_game(hub).await;
        for grant in [&finished, &playing] {
            let slot = hub.find(&grant.game_id).await.expect("created games exist");
            let joiner = Sitter {
                account: None,
                name: "Guest-gote".into(),
            };
            hub.join(
                &slot,
                grant.invite.as_deref(),
                joiner,
                &Credential::default(),
            )
            .await
            .expect("the open seat is taken");
        }
        let slot = hub.find(&finished.game_id).await.expect("the game exists");
        let sente = Credential {
            token: Some(&finished.token),
            account: None,
        };
        hub.play(&slot, &sente, "4e4d")
            .await
            .expect("sente's first move is legal");
        let ended = hub
            .resign(&slot, &sente)
            .await
            .expect("a game in play can be resigned");

        // Held by a socket (here: `slot`), or looked at within the idle time: kept.
        assert_eq!(hub.evict_finished(0), 0);
        drop(slot);
        assert_eq!(hub.evict_finished(60_000), 0);
        // Nobody holds it and its idle time is over: it leaves; the game in play stays.
        assert_eq!(hub.evict_finished(0), 1);
        assert!(hub.slot(&finished.game_id).is_none());
        assert!(hub.slot(&playing.game_id).is_some());

        let reloaded = hub
            .find(&finished.game_id)
            .await
            .expect("stored games load");
        let live = reloaded.game.lock().await;
        let view = hub.view_of(&live, true);
        assert_eq!(view.status, ended.status);
        assert_eq!(view.result, ended.result);
        assert_eq!(live.moves().len(), 1);
    }
}
