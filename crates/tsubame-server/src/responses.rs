//! The API's answers as types: what each endpoint and each game socket message sends, so that
//! the JSON a client gets, the handlers that build it and the OpenAPI document
//! (`/api/openapi.json`, see `openapi.rs`) come from one definition.

use crate::accounts::Account;
use crate::chat::{ChatLine, Room};
/// The game socket's messages live with the game rooms that announce them.
pub use crate::hub::SocketMessage;
use crate::hub::{GameResult, GameView};
use crate::ratings::RatingPool;
use serde::Serialize;
use utoipa::ToSchema;

/// Every error: one sentence naming what was wrong.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// What was wrong, in English.
    pub error: String,
    /// What kind of refusal it is (`game.not-your-turn`), for a client to word it in its own
    /// language; absent for a malformed request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The values the refusal's sentence names, by name, as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<std::collections::HashMap<String, String>>)]
    pub params: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A game of the list (`/api/variants`): its board, pieces, options and rules.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct VariantInfo {
    /// Short name (`tori`, `wa`, `tenjiku`).
    pub name: &'static str,
    /// Title.
    pub title: &'static str,
    /// Board files.
    pub files: u8,
    /// Board ranks.
    pub ranks: u8,
    /// Whether the site hosts it.
    pub available: bool,
    /// The start position.
    pub start_sfen: &'static str,
    /// The kinds of piece, promoted forms included.
    pub roles: Vec<RoleInfo>,
    /// The rule options.
    pub options: Vec<OptionInfo>,
    /// Whether captured pieces return to play.
    pub drops: bool,
    /// Ranks of the promotion zone.
    pub promotion_zone: u8,
    /// Whether promotion on entering the last ranks is forced.
    pub promotion_compulsory: bool,
    /// The pools its games are rated in.
    pub rating_pools: &'static [RatingPool],
}

/// A kind of piece.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RoleInfo {
    /// Its English name.
    pub name: &'static str,
    /// Its SFEN letters (sente's).
    pub sfen: &'static str,
    /// Its Hodges abbreviation.
    pub hodges: &'static str,
    /// Its kanji.
    pub kanji: &'static str,
    /// Whether losing it loses the game.
    pub royal: bool,
    /// The SFEN of the kind it promotes to.
    #[schema(required = true)]
    pub promotes_to: Option<&'static str>,
    /// The SFEN of the kind it promotes from.
    #[schema(required = true)]
    pub promoted_from: Option<&'static str>,
    /// Its moves as a Betza string.
    pub betza: &'static str,
    /// Its ordinary moves, read from the Betza string.
    pub moves: Vec<RoleMove>,
    /// What a Tenjiku kind does beyond them; none elsewhere.
    #[schema(required = true)]
    pub powers: Option<TenjikuPowers>,
    /// Where it may be dropped.
    pub drop: DropInfo,
}

/// One ordinary move: a vector from sente's side, leapt once or slid along.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RoleMove {
    /// Files to the left (negative: to the right).
    pub left: i8,
    /// Ranks forward (negative: back).
    pub forward: i8,
    /// Whether it slides along the vector.
    pub slide: bool,
    /// For a slide, the most steps (0: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u8>,
}

/// What a Tenjiku kind does beyond its Betza moves, from the rules library's own table.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TenjikuPowers {
    /// Its lion power: `full`, `lion-hawk`, or lion moves along some lines.
    #[schema(required = true)]
    pub lion: Option<LionPower>,
    /// The reach of its area move (0: none).
    pub area: u8,
    /// Its range jump.
    #[schema(required = true)]
    pub range_jump: Option<RangeJump>,
    /// Whether it moves as the tetrarch (chariot soldier's) does.
    pub tetrarch: bool,
    /// Whether it burns (the fire demon).
    pub burns: bool,
    /// Whether it has the free eagle's extra moves.
    pub free_eagle: bool,
    /// Its rank among the jumping generals.
    pub rank: u8,
}

/// A lion power.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum LionPower {
    /// `full` or `lion-hawk`.
    Named(&'static str),
    /// Lion moves along these directions.
    Line {
        /// The directions, as (left, forward) unit vectors.
        line: Vec<[i8; 2]>,
    },
}

/// A range jump: over any pieces of a lower rank along these directions.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RangeJump {
    /// The directions, as (left, forward) unit vectors.
    pub directions: Vec<[i8; 2]>,
    /// The rank it jumps from.
    pub level: u8,
}

/// Where a kind may be dropped.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DropInfo {
    /// The far ranks it may not be dropped on.
    pub barred_far_ranks: u8,
    /// The most of its kind one side may have on a file; none: no limit.
    #[schema(required = true)]
    pub max_per_file: Option<u8>,
    /// Whether a drop of it may not mate.
    pub mate_restricted: bool,
}

/// A rule option.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct OptionInfo {
    /// Its name.
    pub name: &'static str,
    /// What it is for.
    pub help: &'static str,
    /// Its values, the first the default.
    pub values: Vec<&'static str>,
    /// For a number option, its range.
    #[schema(required = true)]
    pub number: Option<NumberRange>,
}

/// The range of a number option.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct NumberRange {
    /// The least value.
    pub min: u32,
    /// The most.
    pub max: u32,
}

/// A game with the seat the logged-in viewer's account holds in it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameForViewer {
    /// The game.
    #[serde(flatten)]
    pub game: GameView,
    /// `sente` or `gote` when the viewer's account holds that seat.
    #[schema(required = true, value_type = Option<crate::hub::Side>)]
    pub you: Option<&'static str>,
}

/// A game's chat as the viewer sees it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChatHistory {
    /// The room the viewer sees: the players', or the spectators'.
    pub room: Room,
    /// Its newest lines, oldest first.
    pub lines: Vec<ChatLine>,
}

/// A position checked for a board editor.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CheckedPosition {
    /// Whether it is a position a game can start from.
    pub playable: bool,
    /// Every rule it breaks, or why it cannot be read, in words; empty when playable.
    pub problems: Vec<String>,
    /// The same problems, one for one, as a code and its particulars, for a UI that names
    /// them in its own language.
    pub details: Vec<PositionProblem>,
    /// The position as SFEN, written canonically, when playable.
    #[schema(required = true)]
    pub sfen: Option<String>,
    /// The play site's FEN (Tori and Wa), when playable.
    #[schema(required = true)]
    pub fen: Option<String>,
    /// How many legal moves the side to move has (none: the game is over at once).
    pub legal_moves: usize,
    /// Whether the side to move is in check.
    pub check: bool,
}

/// One problem of a position, by code: `missing-royal`, `several-royals`,
/// `impossible-hand-piece`, `hand-without-drops`, `too-many-pieces`, `too-many-of-family`,
/// `impossible-square`, `dead-piece`, `deferral-on-unpromotable`, `too-many-on-file`,
/// `opponent-in-check`, `zero-ply`, `syntax` (the text does not read as a position) or `other`;
/// the fields that code speaks of are set.
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
pub struct PositionProblem {
    /// What kind of problem.
    pub code: &'static str,
    /// The problem in words (as in `problems`).
    pub text: String,
    /// The side concerned, `sente` or `gote`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::hub::Side>)]
    pub side: Option<String>,
    /// The piece kind's name, as in the game's `roles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub piece: Option<String>,
    /// The square, as the game names squares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub square: Option<String>,
    /// The file's number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<u32>,
    /// How many there are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// How many there may be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

/// A game replayed: every position, the moves in each notation and the export forms.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReplayedGame {
    /// The game's short name.
    pub variant: String,
    /// Board files.
    pub files: u8,
    /// Board ranks.
    pub ranks: u8,
    /// Rule options, `name=value,...`.
    pub options: String,
    /// The start position.
    pub start_sfen: String,
    /// The moves, USI text.
    pub usi: Vec<String>,
    /// The game as a USI `position` line.
    pub usi_record: String,
    /// The moves in Hodges notation.
    pub hodges: Vec<String>,
    /// The moves numbered in pairs, as books print them.
    pub hodges_text: String,
    /// The moves in Japanese notation (Tori).
    #[schema(required = true)]
    pub japanese: Option<Vec<String>>,
    /// The moves in the play site's short form (Tori).
    #[schema(required = true)]
    pub short: Option<Vec<String>>,
    /// The squares each move removed pieces from.
    pub removed: Vec<Vec<String>>,
    /// Every position, the start first.
    pub positions: Vec<String>,
    /// In each position, the checked royal piece's square (none when nobody is in check).
    pub checks: Vec<Option<String>>,
    /// Whether each move gives check.
    pub gives_check: Vec<bool>,
    /// The last position as Fairy-Stockfish's FEN (Tori).
    #[schema(required = true)]
    pub fen: Option<String>,
    /// The start as FEN (Tori).
    #[schema(required = true)]
    pub start_fen: Option<String>,
    /// How the game ended by the rules, if it did.
    #[schema(required = true)]
    pub outcome: Option<RulesOutcome>,
    /// The legal moves in the last position.
    pub legal_moves: Vec<String>,
    /// The last position.
    pub sfen: String,
    /// The game in the record formats.
    pub exports: Exports,
}

/// How a game ended by its moves.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RulesOutcome {
    /// `sente` or `gote`; none for a draw.
    #[schema(required = true, value_type = Option<crate::hub::Side>)]
    pub winner: Option<&'static str>,
    /// Why (`checkmate`, `repetition`, ...).
    pub reason: &'static str,
}

/// A game in the notation library's record formats; a form a format cannot hold is null.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Exports {
    /// The canonical record.
    #[schema(required = true)]
    pub record: Option<String>,
    /// KIF (Tori).
    #[schema(required = true)]
    pub kif: Option<String>,
    /// The play site's PGN (Tori).
    #[schema(required = true)]
    pub pgn: Option<String>,
}

/// A stored game's record.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StoredGameRecord {
    /// The replayed moves.
    #[serde(flatten)]
    pub game: ReplayedGame,
    /// The game's id.
    pub id: String,
    /// The result, once over.
    #[schema(required = true)]
    pub result: Option<GameResult>,
}

/// The games of an imported file.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Imported {
    /// The format read: `canonical`, `kif`, `pgn` or `hodges`.
    pub format: &'static str,
    /// Each game, in file order.
    pub games: Vec<ImportedGame>,
}

/// One imported game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ImportedGame {
    /// The replayed moves.
    #[serde(flatten)]
    pub game: ReplayedGame,
    /// What the record says about the game.
    pub tags: ImportTags,
}

/// What a record says about its game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ImportTags {
    /// Sente's name.
    #[schema(required = true)]
    pub sente: Option<String>,
    /// Gote's name.
    #[schema(required = true)]
    pub gote: Option<String>,
    /// When it was played.
    #[schema(required = true)]
    pub date: Option<String>,
    /// Its clock, as written.
    #[schema(required = true)]
    pub time_control: Option<String>,
    /// The result token (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: &'static str,
    /// Why it ended.
    #[schema(required = true)]
    pub reason: Option<&'static str>,
    /// The format read.
    pub format: &'static str,
}

/// Who is logged in, after a sign-up, login or logout.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AccountAnswer {
    /// The account; none when logged out.
    #[schema(required = true)]
    pub account: Option<Account>,
}

/// Who is logged in, and how many of their games wait for their move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WhoAmI {
    /// The account; none for a visitor.
    #[schema(required = true)]
    pub account: Option<Account>,
    /// Games in play waiting for the account's move.
    pub your_turn: usize,
}

/// A player's page.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerPage {
    /// The user name.
    pub username: String,
    /// When the account was made, unix milliseconds.
    pub joined: i64,
    /// Finished games.
    pub games: i64,
    /// A rating per game and speed played.
    pub ratings: Vec<PlayerRating>,
    /// The newest rating changes, newest first.
    pub history: Vec<RatingChange>,
    /// A puzzle rating per game the player has tried puzzles of.
    pub puzzle_ratings: Vec<PlayerPuzzleRating>,
    /// Whether an administrator closed the account.
    pub closed: bool,
    /// Whether the logged-in viewer blocks this player.
    pub blocked: bool,
    /// Whether the player was on the site within the last minute.
    pub online: bool,
}

/// A player blocked or unblocked.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BlockAnswer {
    /// The player.
    pub username: String,
    /// Whether the viewer blocks them now.
    pub blocked: bool,
}

/// An account's progress on one game's learn path.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LearnProgress {
    /// The game.
    pub variant: String,
    /// Each lesson done (`lesson capture`: 1) and each piece drill's best stars (`F alone`: 1
    /// to 3).
    pub items: std::collections::BTreeMap<String, u8>,
    /// Items of the request that the game's path does not have, not recorded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<String>,
}

/// The players an account blocks.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BlockList {
    /// Newest first.
    pub blocked: Vec<BlockedPlayer>,
}

/// One blocked player.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BlockedPlayer {
    /// The player.
    pub username: String,
    /// Since when, unix milliseconds.
    pub since: i64,
}

/// A report filed.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReportFiled {
    /// The report's id.
    pub id: String,
}

/// Reports, for administrators.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReportList {
    /// Open ones oldest first, resolved ones newest first.
    pub reports: Vec<ReportView>,
}

/// A report as an administrator sees it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReportView {
    /// The report's id.
    pub id: String,
    /// Who reported (`[deleted]` for a deleted account).
    pub reporter: String,
    /// Who was reported.
    pub reported: String,
    /// `cheating`, `abuse`, `name` or `other`.
    pub reason: String,
    /// What the reporter wrote.
    pub text: String,
    /// The game it is about.
    #[schema(required = true)]
    pub game_id: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// When it was resolved, unix milliseconds; none while open.
    #[schema(required = true)]
    pub resolved_at: Option<i64>,
    /// The administrator who resolved it.
    #[schema(required = true)]
    pub resolved_by: Option<String>,
    /// What was done.
    #[schema(required = true)]
    pub resolution: Option<String>,
    /// Whether the reported account is closed now.
    pub reported_closed: bool,
    /// Until when the reported account's chat is muted, unix milliseconds; none when not.
    #[schema(required = true)]
    pub reported_muted_until: Option<i64>,
}

/// An account as an administrator left it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ModeratedAccount {
    /// The player.
    pub username: String,
    /// Whether the account is closed.
    pub closed: bool,
    /// Until when its chat is muted, unix milliseconds; none when not.
    #[schema(required = true)]
    pub muted_until: Option<i64>,
}

/// A player's puzzle rating in one game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerPuzzleRating {
    /// `tori`, `wa` or `tenjiku`.
    pub variant: String,
    /// Whole points.
    pub rating: i64,
    /// The rating deviation, whole points.
    pub deviation: i64,
    /// Whether it is still provisional.
    pub provisional: bool,
    /// Rated attempts (each puzzle's first).
    pub attempts: i64,
}

/// A player's rating in one category.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerRating {
    /// `tori`, `wa`, `wa-nodrops` or `tenjiku`.
    pub game: String,
    /// `blitz`, `rapid`, `classical` or `correspondence`.
    pub speed: String,
    /// Whole points.
    pub rating: i64,
    /// The rating deviation, whole points.
    pub deviation: i64,
    /// Whether it is still provisional.
    pub provisional: bool,
    /// Rated games in the category.
    pub games: i64,
}

/// A point of a rating history.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RatingChange {
    /// The category's game.
    pub game: String,
    /// The category's speed.
    pub speed: String,
    /// The game whose result made it.
    pub game_id: String,
    /// The rating after it.
    pub rating: i64,
    /// When, unix milliseconds.
    pub at: i64,
}

/// A puzzle: from `sfen` the side to move finds `moves[0]`, the opponent replies `moves[1]`,
/// and so on; the line ends with the player's move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PuzzleAnswer {
    /// The puzzle's id.
    pub id: String,
    /// The game (`tori`, `wa`, `tenjiku`).
    pub variant: String,
    /// Rule options as `name=value` pairs separated by commas (empty for the defaults).
    pub options: String,
    /// The start position, the player to move.
    pub sfen: String,
    /// The whole solution, USI, the player's move first.
    pub moves: Vec<String>,
    /// What it practises.
    pub themes: Vec<String>,
    /// Its difficulty as a rating, moved by every rated attempt.
    pub rating: i64,
    /// Rated attempts so far.
    pub plays: i64,
    /// Later answers as good as the solution's: playing one solves the puzzle there.
    pub also: Vec<OtherAnswer>,
}

/// A later answer of a puzzle as good as the solution's.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct OtherAnswer {
    /// Where in the line: the index of the solution's move it stands for.
    pub index: usize,
    /// The move, USI.
    #[serde(rename = "move")]
    pub usi: String,
}

/// A puzzle in a list: everything but its solution (one puzzle's page, `GET
/// /api/puzzles/{id}`, has that), so that a list is no answer sheet.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PuzzleSummary {
    /// The puzzle's id.
    pub id: String,
    /// The game (`tori`, `wa`, `tenjiku`).
    pub variant: String,
    /// Rule options as `name=value` pairs separated by commas (empty for the defaults).
    pub options: String,
    /// The start position, the player to move.
    pub sfen: String,
    /// How many moves the player makes in the solution.
    pub player_moves: usize,
    /// What it practises.
    pub themes: Vec<String>,
    /// Its difficulty as a rating, moved by every rated attempt.
    pub rating: i64,
    /// Rated attempts so far.
    pub plays: i64,
}

/// A page of puzzles.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PuzzleList {
    /// The puzzles, easiest first, without their solutions.
    pub puzzles: Vec<PuzzleSummary>,
    /// How many match, over every page.
    pub total: i64,
}

/// A player's puzzle rating before and after an attempt.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub struct PuzzleRatingChange {
    /// Before, whole points.
    pub before: i64,
    /// After.
    pub after: i64,
    /// Whether it is still uncertain.
    pub provisional: bool,
}

/// What an attempt did.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AttemptAnswer {
    /// Whether it was solved.
    pub solved: bool,
    /// Whether it was rated (an account's first attempt at a puzzle the server handed it).
    pub rated: bool,
    /// The player's puzzle rating change, when rated.
    #[schema(required = true)]
    pub rating: Option<PuzzleRatingChange>,
    /// Why an account's attempt was not rated: `not-handed-out` (a puzzle opened from a
    /// list or a link), `tried-before`, `too-fast` (solved sooner than a person could play
    /// it), `too-many` (past the rated attempts a minute); none when rated, and for a guest.
    #[schema(required = true)]
    pub unrated: Option<&'static str>,
    /// The same in a sentence.
    #[schema(required = true)]
    pub unrated_reason: Option<&'static str>,
    /// The puzzle's rating now.
    pub puzzle_rating: i64,
}
