//! A live game: its state and its transitions, its lock, its flag time and its watchers.
//!
//! Every change is stored before it is applied in memory and announced, so what a player
//! was told is always in the database. On a shared database each change is stored only over
//! the version of the game it was made from: of two instances changing a game at once, one
//! wins and the other reloads the game and checks the request again.

use super::error::GameError;
use super::messages::SocketMessage;
use super::services::{GameServices, Settings, random_hex};
use crate::chat::ChatLine;
use crate::clock::{ClockState, ClockView, SideClock, TimeControl};
use crate::game::{HostedGame, PlayedMove, RulesError};
use crate::ratings::{SeatRating, Speed};
use crate::store::{Change, GameRow, GameState, MoveRow, token_hash};
use rand::Rng;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{Mutex, broadcast};
use tsubame_rules::{Color, Variant};
use utoipa::ToSchema;

/// Who sits on a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
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
    pub(super) fn name(self) -> &'static str {
        match self {
            Player::Human => "human",
            Player::Engine => "engine",
            Player::Open => "open",
        }
    }
    pub(super) fn from_name(name: &str) -> Player {
        match name {
            "engine" => Player::Engine,
            "open" => Player::Open,
            _ => Player::Human,
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
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
    pub(super) fn name(self) -> &'static str {
        match self {
            Phase::Waiting => "waiting",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct GameResult {
    /// `sente`, `gote`, or none for a draw or an aborted game.
    #[schema(required = true, value_type = Option<Side>)]
    pub winner: Option<&'static str>,
    /// `checkmate`, `resignation`, `time`, `agreement`, `aborted`, ...
    pub reason: String,
}

/// A played move with its time and both clocks after it.
#[derive(Clone, Debug, Serialize, ToSchema)]
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
    pub(super) id: String,
    pub(super) game: HostedGame,
    pub(super) control: TimeControl,
    pub(super) clock: ClockState,
    /// When the running turn started (server milliseconds).
    pub(super) turn_started: u64,
    pub(super) phase: Phase,
    pub(super) result: Option<GameResult>,
    pub(super) players: [Player; 2],
    /// Each seat's token as its SHA-256 hash (hex), empty while nobody holds the seat: the
    /// plain token is handed to its player once and kept nowhere.
    pub(super) token_hashes: [String; 2],
    /// Each seat's account id, if an account holds it: its sessions act for the seat.
    pub(super) accounts: [Option<String>; 2],
    /// The names shown for each seat.
    pub(super) names: [String; 2],
    /// Whether the result changes the players' ratings.
    pub(super) rated: bool,
    /// Each seat's rating when the game started (an account's, in a game with a clock), and
    /// the change once a rated game is over.
    pub(super) ratings: [Option<SeatRating>; 2],
    /// A seek's rating range: who may join it.
    pub(super) rating_range: Option<(i64, i64)>,
    pub(super) engine_level: u8,
    pub(super) invite: String,
    pub(super) public: bool,
    pub(super) created_at: u64,
    pub(super) moves: Vec<MoveRecord>,
    pub(super) draw_offer: Option<Color>,
    /// The computer's search waits for a slot: its clock does not run meanwhile, since a
    /// computer opponent must not lose on time because the server is busy.
    pub(super) engine_waiting: bool,
    /// The ply for which a computer's search was started.
    pub(super) engine_search_ply: Option<usize>,
    /// After the game, the side that offers a rematch.
    pub(super) rematch_offer: Option<Color>,
    /// The rematch, once both agreed.
    pub(super) rematch_id: Option<String>,
    /// A challenge's account: the only one that may take the open seat, or decline it.
    pub(super) challenged: Option<String>,
    /// The tournament that paired the game.
    pub(super) tournament: Option<String>,
    /// Whether sente and gote berserked: half their main time, in a tournament.
    pub(super) berserk: [bool; 2],
    /// How many changes the game has had, as stored: a change is stored only over the version
    /// it was made from, so that of two instances changing the game at once one succeeds.
    pub(super) version: i64,
}

/// A game's lock, its flag time and its announcements.
pub struct GameRoom {
    /// The game.
    pub game: Mutex<LiveGame>,
    /// When the side to move's flag falls (server milliseconds), `u64::MAX` for never.
    pub(super) deadline: AtomicU64,
    /// Announcements to everybody watching: JSON text.
    pub events: broadcast::Sender<Arc<str>>,
    /// Chat lines as they are said; each socket passes on those of the room it sees.
    pub chat: broadcast::Sender<Arc<ChatLine>>,
    /// When the game was last looked up (server milliseconds): finished games nobody looked at
    /// for a while leave memory.
    pub(super) last_used: AtomicU64,
    /// On a shared database: until when this instance has claimed the game's due work (its
    /// flag, its expiry, an overdue computer move); the others leave it alone meanwhile.
    pub(super) claimed_until: AtomicU64,
}

/// A side of the board as the API names it: the schema of the fields that hold one (the
/// server writes them from the rules' `Color::name`).
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The first to move.
    Sente,
    /// The second.
    Gote,
}

/// Everything a client sees of a game (no secrets).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// Variant short name.
    #[schema(value_type = String, example = "tori")]
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
    #[schema(required = true)]
    pub result: Option<GameResult>,
    /// `sente` or `gote`.
    #[schema(value_type = Side)]
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
    #[schema(required = true)]
    pub check_square: Option<String>,
    /// The time control.
    pub time_control: TimeControl,
    /// Sente's clock now.
    pub sente_clock: ClockView,
    /// Gote's clock now.
    pub gote_clock: ClockView,
    /// Whose clock runs: nobody's until each side has made its first move.
    #[schema(required = true, value_type = Option<Side>)]
    pub clock_running: Option<&'static str>,
    /// Between people, before each side's first move: how long the side to move has left to
    /// make it before the game is aborted.
    #[schema(required = true)]
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
    #[schema(required = true)]
    pub sente_rating: Option<SeatRating>,
    /// Gote's rating.
    #[schema(required = true)]
    pub gote_rating: Option<SeatRating>,
    /// The game's speed (from its clock): what it is rated as.
    #[schema(required = true)]
    pub speed: Option<Speed>,
    /// A seek's rating range: the least and most rating of who may join.
    #[schema(required = true)]
    pub rating_range: Option<(i64, i64)>,
    /// After the game: the side that offers a rematch.
    #[schema(required = true, value_type = Option<Side>)]
    pub rematch_offer: Option<&'static str>,
    /// The rematch's game id, once both players agreed.
    #[schema(required = true)]
    pub rematch_id: Option<String>,
    /// A challenge: the name of the player it is for (who alone may accept or decline it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge_to: Option<String>,
    /// The tournament that paired the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament_id: Option<String>,
    /// Whether sente berserked (half the main time, for one more tournament point).
    pub sente_berserk: bool,
    /// Whether gote berserked.
    pub gote_berserk: bool,
    /// Engine strength (1 to 5) when an engine plays.
    pub engine_level: u8,
    /// The side that offers a draw.
    #[schema(required = true, value_type = Option<Side>)]
    pub draw_offer: Option<&'static str>,
    /// Listed in the lobby.
    pub public: bool,
    /// Unix milliseconds.
    pub created_at: u64,
}

/// What a request presents to act for a seat: the seat's token, a logged-in account, or both.
#[derive(Clone, Copy, Debug, Default)]
pub struct Credential<'a> {
    /// The seat's secret token.
    pub token: Option<&'a str>,
    /// The id of the account logged in.
    pub account: Option<&'a str>,
}

pub(super) fn random_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::thread_rng();
    (0..10)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

/// After how long a computer's move that has not come counts as lost with the instance that
/// was searching it, and another instance searches it: well past the longest level's search
/// (3 s) and a short wait for a search slot.
pub(super) const ENGINE_OVERDUE_MS: u64 = 10_000;

impl LiveGame {
    /// Whether the game appears in game lists: a public game, or one against the computer
    /// (which nobody can join). A private game between people is seen only by those who have
    /// its link.
    pub(super) fn is_listed(&self) -> bool {
        self.public || self.players.contains(&Player::Engine)
    }

    pub(super) fn side_to_move(&self) -> Color {
        if self.game.sente_to_move() {
            Color::Sente
        } else {
            Color::Gote
        }
    }

    /// Whether the side to move's clock runs: as on the play sites, each side's first move is
    /// free, and the clocks start with the second move of the side that moved first.
    pub(super) fn clock_runs(&self) -> bool {
        self.phase == Phase::Playing
            && self.control != TimeControl::Unlimited
            && self.moves.len() >= 2
            && !self.engine_waiting
    }

    /// Between people, before both have moved: when the side to move's first-move time ends.
    pub(super) fn first_move_deadline(&self, settings: &Settings) -> Option<u64> {
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
    pub(super) fn abort_deadline(&self, settings: &Settings) -> Option<u64> {
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
                (self.players[self.side_to_move().index()] == Player::Human)
                    .then(|| self.turn_started.saturating_add(settings.seek_expiry_ms))
            }),
        }
    }

    /// When the sweeper must look at the game next: the flag time of the running turn, or
    /// when an unstarted game is aborted; `u64::MAX` when neither applies.
    pub(super) fn deadline(&self, settings: &Settings) -> u64 {
        if let Some(deadline) = self.abort_deadline(settings) {
            return deadline;
        }
        if !self.clock_runs() {
            return u64::MAX;
        }
        match self
            .clock
            .time_left(&self.control, self.side_to_move().index(), 0)
        {
            Some(left) => self.turn_started.saturating_add(left),
            None => u64::MAX,
        }
    }

    /// When an instance must look at the stored game next: its deadline, or for the
    /// computer's turn when its move is overdue (the instance searching it has stopped), so
    /// that another instance takes the search up.
    pub(super) fn due_at(&self, settings: &Settings) -> Option<i64> {
        if self.phase == Phase::Playing
            && self.players[self.side_to_move().index()] == Player::Engine
        {
            return i64::try_from(self.turn_started.saturating_add(ENGINE_OVERDUE_MS)).ok();
        }
        match self.deadline(settings) {
            u64::MAX => None,
            deadline => i64::try_from(deadline).ok(),
        }
    }

    /// When the sweeper must look at the game next: its deadline, and on the computer's turn
    /// also when its move is overdue.
    pub(super) fn sweep_deadline(&self, settings: &Settings) -> u64 {
        let deadline = self.deadline(settings);
        if self.phase == Phase::Playing
            && self.players[self.side_to_move().index()] == Player::Engine
        {
            deadline.min(self.turn_started.saturating_add(ENGINE_OVERDUE_MS))
        } else {
            deadline
        }
    }

    /// The game's next version: a copy to change, then to store, and to put in place of this
    /// one only once it is stored ([`GameRoom::settle`]).
    pub(super) fn next_version(&self) -> LiveGame {
        let mut next = self.clone();
        next.version += 1;
        next
    }

    /// The stored state of the game as it is in memory.
    pub(super) fn state(&self, settings: &Settings) -> GameState {
        GameState {
            version: self.version,
            turn_started_at: i64::try_from(self.turn_started).unwrap_or(i64::MAX),
            draw_offer: self.draw_offer.map(Color::name),
            rematch_offer: self.rematch_offer.map(Color::name),
            engine_waiting: self.engine_waiting,
            due_at: self.due_at(settings),
        }
    }

    /// The change that leads from version `from_version` to the game as it is in memory
    /// (whose version is the next), with the notice for other instances.
    pub(super) fn change(&self, settings: &Settings, from_version: i64, notice: &Notice) -> Change {
        Change {
            id: self.id.clone(),
            from_version,
            state: self.state(settings),
            notice: serde_json::to_string(notice).unwrap_or_default(),
        }
    }

    /// The change that leads from version `from_version` to the game as it is in memory,
    /// for a change that adds no move.
    pub(super) fn state_change(&self, settings: &Settings, from_version: i64) -> Change {
        self.change(settings, from_version, &Notice::of(&self.id, self.version))
    }

    /// Takes over what the stored row says about everything but the moves.
    pub(super) fn take_row(&mut self, row: &GameRow) {
        self.phase = match row.status.as_str() {
            "waiting" => Phase::Waiting,
            "finished" => Phase::Finished,
            _ => Phase::Playing,
        };
        self.result = row.reason.as_ref().map(|reason| GameResult {
            winner: row
                .winner
                .as_deref()
                .and_then(Color::from_name)
                .map(Color::name),
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
        self.challenged = row.challenged_account.clone();
        self.tournament = row.tournament_id.clone();
        self.berserk = row.berserk;
        self.settle_berserk();
        self.version = row.state.version;
        self.draw_offer = row.state.draw_offer.and_then(Color::from_name);
        self.rematch_offer = row.state.rematch_offer.and_then(Color::from_name);
        self.engine_waiting = row.state.engine_waiting;
    }

    /// Plays a stored move onto the game.
    pub(super) fn take_move(&mut self, mv: &MoveRow) -> Result<(), RulesError> {
        let played = self.game.play(&mv.usi)?;
        let record = move_record(mv, played);
        self.clock = record.clocks;
        self.moves.push(record);
        self.settle_berserk();
        Ok(())
    }

    /// The accounts whose waiting list ([`super::ChallengeList`]) this game may have changed:
    /// a challenge's (the challenger's and the challenged one's), and an arena game's players
    /// while it starts (until each side has moved) and at its end; none for another game.
    pub(super) fn waiting_list_accounts(&self) -> Option<Arc<[String]>> {
        if let Some(challenged) = self.challenged.as_ref() {
            return Some(
                self.accounts
                    .iter()
                    .flatten()
                    .chain([challenged])
                    .cloned()
                    .collect(),
            );
        }
        let starting = self.moves.len() <= 2 || self.phase == Phase::Finished;
        (self.tournament.is_some() && starting)
            .then(|| self.accounts.iter().flatten().cloned().collect())
    }

    /// Whether each side has made a move: before that, a resignation aborts the game and
    /// no ending rates it.
    pub(super) fn started_by_both(&self) -> bool {
        self.moves.len() >= 2
    }

    /// The side that made the first move.
    pub(super) fn first_mover(&self) -> Color {
        let to_move = self.side_to_move();
        if self.moves.len().is_multiple_of(2) {
            to_move
        } else {
            !to_move
        }
    }

    /// The moves `side` has made.
    pub(super) fn moves_of(&self, side: Color) -> usize {
        let plies = self.moves.len();
        if side == self.first_mover() {
            plies.div_ceil(2)
        } else {
            plies / 2
        }
    }

    /// A berserking side's clock before its first move: half the main time. (From its first
    /// move on, the clocks stored with each move carry it.)
    pub(super) fn settle_berserk(&mut self) {
        let main_ms = match self.control {
            TimeControl::Byoyomi { main_ms, .. } | TimeControl::Fischer { main_ms, .. } => main_ms,
            _ => return,
        };
        for side in 0..2 {
            if self.berserk[side] && self.moves_of(Color::ALL[side]) == 0 {
                let clock = &mut self.clock.sides[side];
                clock.remaining_ms = clock.remaining_ms.min(main_ms / 2);
            }
        }
    }

    pub(super) fn seat_of(&self, token: &str) -> Option<Color> {
        let presented = token_hash(token);
        // Both seats are compared every time so the answer takes the same time either way.
        // An empty hash (a seat nobody holds) never equals a 64-digit one.
        let matches: Vec<bool> = self
            .token_hashes
            .iter()
            .map(|hash| constant_time_eq(hash.as_bytes(), presented.as_bytes()))
            .collect();
        matches.iter().position(|&m| m).map(|seat| Color::ALL[seat])
    }

    /// A game just made at `now`, with no seat taken, no move and no offer: the caller sets
    /// its seats and settings.
    pub(super) fn made(game: HostedGame, control: TimeControl, now: u64) -> LiveGame {
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
            challenged: None,
            tournament: None,
            berserk: [false, false],
            version: 0,
            game,
        }
    }

    /// The row of a game that has just been made (no move played yet).
    pub(super) fn new_row(&self, settings: &Settings) -> Result<GameRow, GameError> {
        let started = self.phase == Phase::Playing;
        Ok(GameRow {
            id: self.id.clone(),
            variant: self.game.variant().name().to_string(),
            options: self.game.options_text(),
            start_sfen: self.game.start_sfen(),
            time_control: serde_json::to_string(&self.control)
                .map_err(|e| GameError::Corrupt(e.to_string()))?,
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
            challenged_account: self.challenged.clone(),
            tournament_id: self.tournament.clone(),
            berserk: self.berserk,
            state: self.state(settings),
        })
    }

    /// The seat a credential acts for: the token's, else the logged-in account's. Only a
    /// person's seat can be acted for.
    pub(super) fn seat_for(&self, who: &Credential) -> Option<Color> {
        let by_token = who.token.and_then(|token| self.seat_of(token));
        let by_account = || {
            who.account.and_then(|account| {
                self.accounts
                    .iter()
                    .position(|seated| seated.as_deref() == Some(account))
                    .map(|seat| Color::ALL[seat])
            })
        };
        by_token
            .or_else(by_account)
            .filter(|&side| self.players[side.index()] == Player::Human)
    }

    /// The seat the viewer holds, if any: what a page shows as "you".
    pub fn viewer_seat(&self, who: &Credential) -> Option<&'static str> {
        self.seat_for(who).map(Color::name)
    }

    /// The client's view at server time `now`; `with_moves` includes the move list.
    pub fn view(&self, now: u64, settings: &Settings, with_moves: bool) -> GameView {
        let (files, ranks) = self.game.variant().board_size();
        let running = self.clock_runs();
        let to_move = self.side_to_move();
        let elapsed = now.saturating_sub(self.turn_started);
        let clock_of = |side: Color| {
            let spent = if running && side == to_move {
                elapsed
            } else {
                0
            };
            self.clock.display(&self.control, side.index(), spent)
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
            side_to_move: to_move.name(),
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
            sente_clock: clock_of(Color::Sente),
            gote_clock: clock_of(Color::Gote),
            clock_running: running.then(|| to_move.name()),
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
            rematch_offer: self.rematch_offer.map(Color::name),
            rematch_id: self.rematch_id.clone(),
            challenge_to: self.challenged.as_ref().and_then(|_| {
                let open = self.players.iter().position(|&p| p == Player::Open)?;
                self.names.get(open).cloned()
            }),
            tournament_id: self.tournament.clone(),
            sente_berserk: self.berserk[0],
            gote_berserk: self.berserk[1],
            engine_level: self.engine_level,
            draw_offer: self.draw_offer.map(Color::name),
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

pub(super) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A stored move as the game's record holds it.
pub(super) fn move_record(mv: &MoveRow, played: PlayedMove) -> MoveRecord {
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
pub(super) struct Notice {
    pub(super) id: String,
    pub(super) version: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) moved: Option<MovedNotice>,
}

impl Notice {
    /// The notice of a change that adds no move.
    pub(super) fn of(id: &str, version: i64) -> Notice {
        Notice {
            id: id.to_string(),
            version,
            moved: None,
        }
    }
}

/// A move in a [`Notice`], with the state it led to.
#[derive(Debug, Serialize, serde::Deserialize)]
pub(super) struct MovedNotice {
    pub(super) row: MoveRow,
    pub(super) turn_started_at: u64,
    pub(super) engine_waiting: bool,
}

pub(super) fn move_row(record: &MoveRecord) -> MoveRow {
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

/// What a change of a game is announced as to its watchers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Announcement {
    /// The whole game, with its moves.
    State,
    /// One move: the game without its moves, the move in `last`.
    Move,
    /// The end: the whole game, the last move in `last`.
    End,
}

impl Announcement {
    fn message(self, game: GameView) -> SocketMessage {
        let game = Box::new(game);
        match self {
            Announcement::State => SocketMessage::State { game },
            Announcement::Move => SocketMessage::Move { game },
            Announcement::End => SocketMessage::End { game },
        }
    }
}

impl GameRoom {
    /// The room of a game, looked up at `now`.
    pub(super) fn new(live: LiveGame, now: u64, settings: &Settings) -> GameRoom {
        let (events, _) = broadcast::channel(64);
        let (chat, _) = broadcast::channel(32);
        GameRoom {
            deadline: AtomicU64::new(live.sweep_deadline(settings)),
            claimed_until: AtomicU64::new(0),
            game: Mutex::new(live),
            events,
            chat,
            last_used: AtomicU64::new(now),
        }
    }

    /// Sets when the sweeper looks at the game next, from the game as it is.
    pub(super) fn reschedule(&self, live: &LiveGame, settings: &Settings) {
        self.deadline
            .store(live.sweep_deadline(settings), Ordering::Relaxed);
    }

    /// The seat a credential acts for, or an error naming what is wrong.
    pub(super) fn seat(live: &LiveGame, who: &Credential) -> Result<Color, GameError> {
        if who.token.is_none() && who.account.is_none() {
            return Err(GameError::NoCredential);
        }
        live.seat_for(who).ok_or_else(|| {
            if who.token.is_some() {
                GameError::TokenHoldsNoSeat
            } else {
                GameError::AccountHoldsNoSeat
            }
        })
    }

    /// Puts `next`, the game's next version made from `live` by [`LiveGame::next_version`],
    /// in place of `live` once storing it succeeded. Otherwise the game in memory stays as it
    /// was stored (reloaded when another instance changed it first), and the error says why:
    /// no change can leave memory ahead of the database, whatever fields it touches.
    pub(super) async fn settle(
        &self,
        svc: &GameServices,
        live: &mut LiveGame,
        next: LiveGame,
        stored: anyhow::Result<bool>,
        what: &'static str,
    ) -> Result<(), GameError> {
        match stored {
            Ok(true) => {
                *live = next;
                Ok(())
            }
            Ok(false) => Err(self.stale(svc, live).await),
            Err(e) => Err(GameError::Storing { what, error: e }),
        }
    }

    /// Stores `next`, a next version of `live` that adds nothing but its state, and puts it in
    /// place (see [`GameRoom::settle`]).
    pub(super) async fn store_state(
        &self,
        svc: &GameServices,
        live: &mut LiveGame,
        next: LiveGame,
    ) -> Result<(), GameError> {
        let change = next.state_change(&svc.settings, live.version);
        let stored = svc.store.change_state(&change).await;
        self.settle(svc, live, next, stored, "the change").await
    }

    /// Runs `attempt`, and once more when it lost the race with another instance's change
    /// (the game has been reloaded by then), or when on a shared database it was refused
    /// (409, 403, or 422 from the rules) while this instance had not yet heard of the game's
    /// latest change (two moves behind, a move legal in the stored game looks illegal here): the
    /// request is checked again on the game as stored (a move after the opponent's offer, a
    /// move sent here just after the opponent's move was made on another instance, a seat
    /// taken on another instance).
    pub(super) async fn retry_stale<T, Attempt>(
        &self,
        svc: &GameServices,
        mut attempt: impl FnMut() -> Attempt,
    ) -> Result<T, GameError>
    where
        Attempt: std::future::Future<Output = Result<T, GameError>>,
    {
        match attempt().await {
            Err(GameError::Stale) => attempt().await,
            Err(e) if svc.store.shared() && e.depends_on_the_game() => {
                {
                    let mut live = self.game.lock().await;
                    let version = live.version;
                    if self.refresh(svc, &mut live).await.is_err() || live.version == version {
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
    pub(super) async fn stale(&self, svc: &GameServices, live: &mut LiveGame) -> GameError {
        match self.refresh(svc, live).await {
            Ok(()) => GameError::Stale,
            Err(e) => e,
        }
    }

    /// Brings a game in memory up to its stored version: the moves stored since, then the
    /// row; announces what changed to this instance's watchers.
    pub(super) async fn refresh(
        &self,
        svc: &GameServices,
        live: &mut LiveGame,
    ) -> Result<(), GameError> {
        let (row, moves) = svc
            .store
            .game_since(&live.id, live.moves.len() as i64)
            .await
            .map_err(GameError::Database)?
            .ok_or_else(|| GameError::unknown_game(&live.id))?;
        if row.state.version <= live.version && moves.is_empty() {
            return Ok(());
        }
        let (plies, phase) = (live.moves.len(), live.phase);
        for mv in &moves {
            live.take_move(mv).map_err(|e| GameError::Damaged {
                id: live.id.clone(),
                error: e.to_string(),
            })?;
        }
        live.take_row(&row);
        if let Ok(turn_started) = u64::try_from(row.state.turn_started_at)
            && turn_started > 0
        {
            live.turn_started = turn_started;
        }
        self.announce_catch_up(svc, live, plies, phase);
        Ok(())
    }

    /// Tells this instance's watchers of a game what changed elsewhere: the game's end, the
    /// one new move, or the whole game.
    pub(super) fn announce_catch_up(
        &self,
        svc: &GameServices,
        live: &LiveGame,
        plies: usize,
        phase: Phase,
    ) {
        self.reschedule(live, &svc.settings);
        if live.phase == Phase::Playing && live.game.outcome().is_some() {
            // The move ended the game by the rules: its instance stores the result next, and
            // that change announces the end (a sweep stores it if that instance stopped).
            return;
        }
        // The games_ended metric counts the ends this instance stored, not those it hears of.
        if live.phase == Phase::Finished && phase != Phase::Finished {
            self.announce(svc, live, Announcement::End, live.moves.last().cloned());
        } else if live.moves.len() == plies + 1 && live.phase == phase {
            self.announce(svc, live, Announcement::Move, live.moves.last().cloned());
        } else {
            self.announce(svc, live, Announcement::State, None);
        }
    }

    pub(super) fn announce(
        &self,
        svc: &GameServices,
        live: &LiveGame,
        kind: Announcement,
        last: Option<MoveRecord>,
    ) {
        let mut view = live.view(svc.now(), &svc.settings, kind != Announcement::Move);
        view.last = last;
        // Nobody listening is fine.
        let _ = self.events.send(Arc::from(kind.message(view).text()));
        if let Some(accounts) = live.waiting_list_accounts() {
            svc.challenge_changed(accounts);
        }
    }
}
