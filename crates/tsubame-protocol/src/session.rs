//! The engine as the protocols see it: a variant, rule options, a game (start position and moves
//! as text), engine options, and a search running in the background. Everything a protocol
//! needs in text form lives here, so each adapter only translates its own syntax.

use crate::dialect::{XboardFenError, xboard_fen_to_sfen};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;
use tsubame_engine::eval::{EvalParams, Evaluation};
use tsubame_engine::limits::Limits;
use tsubame_engine::nnue::{Network, NetworkError};
use tsubame_engine::params::ParamError;
use tsubame_engine::search::{Info, SearchMemory, SearchRequest, search_any};
use tsubame_engine::search_params::{SearchParams, SearchParamsError};
use tsubame_engine::strength::Level;
use tsubame_engine::tsume::{MateLimits, MateResult, solve_any};
use tsubame_engine::tt::{TableError, TranspositionTable};
use tsubame_rules::tenjiku::TenjikuPosition;
use tsubame_rules::{
    AnyGame, AnyGameError, AnyPosition, Bitboard, Color, MoveError, OptionError, Options,
    Outcome as GameOutcome, RepetitionRule, SetupError, Square, Variant,
};

/// Why the session refused a command; on any of these nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The rule options allow no start position (a handicap, say).
    #[error("bad start position: {0}")]
    Start(SetupError),
    /// The SFEN or FEN given is no position of the game.
    #[error("bad position: {0}")]
    Position(SetupError),
    /// XBoard's FEN text is no position.
    #[error("bad position: {0}")]
    XboardFen(#[from] XboardFenError),
    /// A move is no move of its position.
    #[error("bad move: {0}")]
    Move(#[from] MoveError),
    /// The rules' game refused a move (after its end, a repetition where that is illegal).
    #[error("bad move: {0}")]
    Game(#[from] AnyGameError),
    /// A rule option or its value is unknown.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// The rule options belong to no game of this engine.
    #[error("{0} is not a game of this engine")]
    UnknownGame(&'static str),
    /// A hash size outside 1 to 65536 MiB.
    #[error("hash size {0} MiB is out of range (1 to 65536)")]
    Hash(usize),
    /// A hash size larger than the memory this machine has free.
    #[error("hash size {asked} MiB is more than the {available} MiB of memory available")]
    HashBeyondMemory {
        /// The size asked for.
        asked: usize,
        /// Memory available, in MiB.
        available: usize,
    },
    /// The table's memory could not be allocated.
    #[error(transparent)]
    HashAllocation(#[from] TableError),
    /// A thread count outside 1 to 256.
    #[error("thread count {0} is out of range (1 to 256)")]
    Threads(usize),
    /// The parameter file cannot be read.
    #[error("cannot read parameter file {path}: {reason}")]
    EvalFileUnreadable {
        /// The path given.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// The network file is refused.
    #[error("{path}: {error}")]
    Network {
        /// The path given.
        path: String,
        /// What is wrong with it.
        error: NetworkError,
    },
    /// The parameter file's content is refused.
    #[error("{path}: {error}")]
    EvalFile {
        /// The path given.
        path: String,
        /// What is wrong with it.
        error: ParamError,
    },
    /// The search parameters are refused.
    #[error("search parameters: {0}")]
    SearchParams(#[from] SearchParamsError),
}

/// The protocols answer with text: a refusal becomes its message.
impl From<SessionError> for String {
    fn from(error: SessionError) -> String {
        error.to_string()
    }
}

/// Where a game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start<'a> {
    /// The variant's start position for the rule options.
    Initial,
    /// A SFEN.
    Sfen(&'a str),
    /// A Fairy-Stockfish / play-site FEN.
    Fen(&'a str),
}

/// A game as text, checked against the rules.
#[derive(Clone, Debug)]
struct GameText {
    /// The current position; a GUI may play on past what the rules call the end.
    position: AnyPosition,
    /// Keys of the positions before the current one, for the search's repetition rule.
    keys: Vec<u64>,
    /// Whether the side to move was in check in each of those positions.
    checks: Vec<bool>,
    /// The same game as the rules keep it, for how it ended and for taking moves back.
    game: AnyGame,
}

impl GameText {
    fn new(options: &Options, start: Start<'_>, moves: &[String]) -> Result<Self, SessionError> {
        let position = match start {
            Start::Initial => AnyPosition::start(options).map_err(SessionError::Start)?,
            Start::Sfen(text) => {
                AnyPosition::from_sfen(options, text).map_err(SessionError::Position)?
            }
            Start::Fen(text) => match AnyPosition::from_fen(options, text) {
                // A game without a FEN of its own (Tenjiku) gets XBoard's board text.
                Err(SetupError::NoFen(_)) => {
                    AnyPosition::from_sfen(options, &xboard_fen_to_sfen(text)?)
                }
                other => other,
            }
            .map_err(SessionError::Position)?,
        };
        let mut state = GameText {
            game: AnyGame::from_position(position.clone(), options.clone()),
            position,
            keys: Vec::new(),
            checks: Vec::new(),
        };
        for text in moves {
            state.play(text)?;
        }
        Ok(state)
    }

    fn sfen(&self) -> String {
        self.position.to_sfen()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.position
            .legal_moves()
            .into_iter()
            .map(|m| self.position.to_usi(m))
            .collect()
    }

    fn play(&mut self, text: &str) -> Result<(), SessionError> {
        let mv = self.position.parse_usi(text)?;
        // The rules' game refuses moves after its end (a repetition, say); USI/UCI GUIs may go
        // on past it, so the game starts again from here. Not where repeating any earlier
        // position is illegal (Tenjiku): that needs the whole history, which a restart loses.
        let restarts = self.game.variant().spec().repetition != RepetitionRule::Illegal;
        if self.game.outcome().is_some() && restarts {
            self.game = AnyGame::from_position(self.position.clone(), self.game.options().clone());
        }
        self.game.play(mv)?;
        self.keys.push(self.position.key());
        self.checks.push(self.position.in_check());
        // The game took it, so it is legal here too.
        self.position.play_unchecked(mv);
        Ok(())
    }

    fn undo(&mut self) -> bool {
        if self.keys.is_empty() || self.game.undo().is_none() {
            return false;
        }
        self.keys.pop();
        self.checks.pop();
        self.position = self.game.position();
        true
    }

    fn outcome(&self) -> Option<GameOutcome> {
        self.game.outcome()
    }

    fn side_to_move(&self) -> Color {
        self.position.side_to_move()
    }

    /// Every move of the piece on `square`, with where it goes and what it does there.
    fn targets_from(&self, square: &str) -> Vec<Target> {
        let position = &self.position;
        let geometry = position.geometry();
        let Some(from) = geometry.parse_square(square) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for mv in position.moves_from(from) {
            let to = mv.to();
            let occupied = position.piece_at(to).is_some();
            out.push(Target {
                to: geometry.name(to).to_string(),
                via: mv.middle().map(|m| geometry.name(m).to_string()),
                capture: mv.middle().is_some() || (to != from && occupied),
                occupied,
                promotion: mv.is_promotion(),
            });
        }
        out
    }

    /// An empty neighbour of `square` through which a pass from it can be written as a step
    /// out and back; only Tenjiku has passes.
    fn pass_via(&self, square: &str) -> Option<String> {
        let AnyPosition::Tenjiku(position) = &self.position else {
            return None;
        };
        let square = position.geometry().parse_square(square)?;
        pass_via(position, square).map(|via| position.geometry().name(via).to_string())
    }

    fn mate(&self, limits: &MateLimits) -> MateAnswer {
        let report = solve_any(&self.position, limits, &mut |_| {});
        let line = match &report.result {
            MateResult::Mate(line) => self.position.line_to_usi(line),
            _ => Vec::new(),
        };
        MateAnswer {
            result: report.result,
            line,
            nodes: report.nodes,
            elapsed: report.elapsed,
        }
    }
}

/// A destination of a piece, for showing where it may go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The destination square, USI text (`3d`).
    pub to: String,
    /// Where the move captures on its way, for a Tenjiku lion-type move (`5e` in `6f5e6d`).
    pub via: Option<String>,
    /// Whether the move captures.
    pub capture: bool,
    /// Whether the destination holds a piece before the move: a piece captured there, or the
    /// mover itself when it ends where it started (igui, a pass).
    pub occupied: bool,
    /// Whether this is the promoting move to that square.
    pub promotion: bool,
}

/// The first empty neighbour of `square` (lowest square index first), through which XBoard
/// text writes a pass from `square` as a step out and back; `None` when every neighbour is
/// occupied.
pub fn pass_via(position: &TenjikuPosition, square: Square) -> Option<Square> {
    position
        .neighbours(square)
        .iter()
        .filter_map(|index| u8::try_from(index).ok().map(Square::from_index))
        .find(|&neighbour| position.piece_at(neighbour).is_none())
}

/// What a finished search reports, as text.
#[derive(Clone, Debug, PartialEq)]
pub struct BestMove {
    /// The move (USI text), or `None` when the side to move has no legal move.
    pub best: Option<String>,
    /// The expected reply.
    pub ponder: Option<String>,
}

/// What a mate search found, with the line as USI text.
#[derive(Clone, Debug, PartialEq)]
pub struct MateAnswer {
    /// The solver's answer.
    pub result: MateResult,
    /// The mate's moves as USI text (empty without a mate).
    pub line: Vec<String>,
    /// Positions searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: std::time::Duration,
}

/// The longest mate a `go mate` looks for, in attacker moves: far past what a search of
/// checks settles in a game's time, so only the clock or `stop` ends the search.
pub const MATE_SEARCH_MOVES: u32 = 63;

/// One iteration's report with the principal variation as USI text.
#[derive(Clone, Debug, PartialEq)]
pub struct InfoText {
    /// The engine's report.
    pub info: Info,
    /// The principal variation, USI move text.
    pub pv: Vec<String>,
    /// Which line this is when several were asked for (MultiPV); none for one line.
    pub multipv: Option<u32>,
}

/// Engine options and the game, shared by every protocol.
pub struct Session {
    options: Options,
    game: GameText,
    hash_mib: usize,
    threads: usize,
    evaluation: Evaluation,
    /// A strength level every search is held to and chooses its move by; none for full
    /// strength without a cap.
    level: Option<Level>,
    /// How many best lines a search reports (MultiPV).
    lines: u32,
    network_file: Option<Arc<Network>>,
    eval_file: Option<tsubame_engine::params::ParamFile>,
    /// The `SearchParams` option: `name=value` pairs (checked when set) over the game's own
    /// set ([`SearchParams::for_variant`]).
    search_overrides: String,
    tt: Arc<TranspositionTable>,
    /// The game's move and correction histories, kept from move to move like the table.
    memory: Arc<SearchMemory>,
    stop: Arc<AtomicBool>,
    running: Option<JoinHandle<()>>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// A search as `go` hands it to its thread: the game and everything the search is held to,
/// owned; [`SearchJob::run`] lends it to the engine as its [`SearchRequest`].
struct SearchJob {
    game: GameText,
    eval: EvalParams,
    search: SearchParams,
    /// The limits, already held to the level's.
    limits: Limits,
    tt: Arc<TranspositionTable>,
    memory: Arc<SearchMemory>,
    stop: Arc<AtomicBool>,
    threads: usize,
    /// The level that chooses the move played; none at full strength.
    level: Option<Level>,
}

/// The most lines a search may be asked for (MultiPV): more than any position has moves
/// in Tori or Wa, and a bound on the work of one search in Tenjiku.
pub const MAX_LINES: u32 = 500;

impl SearchJob {
    /// Searches the game's position (its earlier positions counting for repetition) and
    /// reports as text.
    fn run(self, on_info: &mut dyn FnMut(InfoText)) -> BestMove {
        let position = &self.game.position;
        let limits = &self.limits;
        let outcome = search_any(
            SearchRequest {
                position,
                history_keys: &self.game.keys,
                history_checks: &self.game.checks,
                limits,
                eval: &self.eval,
                search: Some(&self.search),
                tt: self.tt,
                stop: self.stop,
                threads: self.threads,
                memory: Some(self.memory),
            },
            &mut |info| {
                on_info(InfoText {
                    pv: position.line_to_usi(&info.pv),
                    multipv: (limits.lines > 1).then_some(info.multipv),
                    info: info.clone(),
                })
            },
        );
        // A level may play another of its best moves than the first; the reply expected is
        // then unknown.
        let best = match self.level {
            Some(level) => level.choose(&outcome, rand::random()),
            None => outcome.best,
        };
        let ponder = outcome.ponder.filter(|_| best == outcome.best);
        let ponder_text = match (best, ponder) {
            (Some(best), Some(ponder)) => position.line_to_usi(&[best, ponder]).get(1).cloned(),
            _ => None,
        };
        BestMove {
            best: best.map(|m| position.to_usi(m)),
            ponder: ponder_text,
        }
    }
}

impl Session {
    /// Tori shogi at default options, a 64 MiB table, one thread.
    pub fn new() -> Session {
        let options = Variant::Tori.default_options();
        let game = GameText::new(&options, Start::Initial, &[])
            .unwrap_or_else(|e| unreachable!("the built-in start position is valid: {e}"));
        Session {
            options,
            game,
            hash_mib: 64,
            threads: 1,
            evaluation: Evaluation::default(),
            level: None,
            lines: 1,
            network_file: None,
            eval_file: None,
            search_overrides: String::new(),
            tt: Arc::new(TranspositionTable::new(64)),
            memory: Arc::new(SearchMemory::default()),
            stop: Arc::new(AtomicBool::new(false)),
            running: None,
        }
    }

    /// The current variant: the game's.
    pub fn variant(&self) -> Variant {
        self.game.game.variant()
    }

    /// The rule options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Switches the game; rule options go back to the new game's defaults and the game to its
    /// start.
    pub fn set_variant(&mut self, variant: Variant) -> Result<(), SessionError> {
        self.wait();
        self.options = variant.default_options();
        self.set_position(Start::Initial, &[])
    }

    /// Switches to the game and rule choices of `options`, at their start position; on error
    /// (a start position the options do not allow) nothing changes.
    pub fn set_options(&mut self, options: Options) -> Result<(), SessionError> {
        self.wait();
        if Variant::of(&options).is_none() {
            return Err(SessionError::UnknownGame(options.variant().title));
        }
        self.game = GameText::new(&options, Start::Initial, &[])?;
        self.options = options;
        Ok(())
    }

    /// Sets a rule option of the current variant.
    pub fn set_rule_option(&mut self, name: &str, value: &str) -> Result<(), SessionError> {
        self.wait();
        Ok(self.options.set(name, value)?)
    }

    /// Sets the table size in MiB (1 to 65536).
    pub fn set_hash(&mut self, mib: usize) -> Result<(), SessionError> {
        if !(1..=65_536).contains(&mib) {
            return Err(SessionError::Hash(mib));
        }
        if let Some(available) = available_memory_mib()
            && mib > available
        {
            return Err(SessionError::HashBeyondMemory {
                asked: mib,
                available,
            });
        }
        self.wait();
        self.tt = Arc::new(TranspositionTable::try_new(mib)?);
        self.hash_mib = mib;
        Ok(())
    }

    /// Sets the number of search threads (1 to 256).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), SessionError> {
        if !(1..=256).contains(&threads) {
            return Err(SessionError::Threads(threads));
        }
        self.threads = threads;
        Ok(())
    }

    /// How many best moves each search reports with their lines (MultiPV), 1 to 500.
    pub fn set_lines(&mut self, lines: u32) {
        self.lines = lines.clamp(1, MAX_LINES);
    }

    /// Holds every search to a strength level (1 weakest to [`Level::MAX`], the play server's
    /// computer levels); 0 plays at full strength without a cap.
    pub fn set_level(&mut self, level: u8) {
        self.level = Level::new(level.min(Level::MAX));
    }

    /// Chooses the evaluation: classical, the network, or material only (the baseline
    /// strength is measured against).
    pub fn set_evaluation(&mut self, evaluation: Evaluation) {
        self.wait();
        self.evaluation = evaluation;
    }

    /// The evaluation chosen.
    pub fn evaluation(&self) -> Evaluation {
        self.evaluation
    }

    /// Sets the search's margins and reductions from `name=value` pairs (see
    /// [`tsubame_engine::search_params`]); the parameters not named take their defaults, and an
    /// empty text or `<empty>` restores them all. On error nothing changes.
    pub fn set_search_params(&mut self, text: &str) -> Result<(), SessionError> {
        let text = if text == "<empty>" { "" } else { text };
        // Every game's set has the same names and ranges, so text good over one is good
        // over each.
        SearchParams::DEFAULT.with_pairs(text)?;
        self.wait();
        self.search_overrides = text.to_string();
        Ok(())
    }

    /// The search parameters in force for the current game: its own set with the
    /// `SearchParams` option's pairs over it.
    pub fn search_params(&self) -> SearchParams {
        let own = SearchParams::for_variant(self.variant());
        own.with_pairs(&self.search_overrides)
            .unwrap_or_else(|_| own.clone())
    }

    /// Reads a network file ([`tsubame_engine::nnue::Network`]) or a parameter file (see
    /// [`tsubame_engine::params`]); either applies whenever its game is played. A network
    /// also switches the evaluation to it. An empty path or `<empty>` goes back to the
    /// built-in parameters and network. On error nothing changes.
    pub fn set_eval_file(&mut self, path: &str) -> Result<(), SessionError> {
        self.wait();
        let path = path.trim();
        if path.is_empty() || path == "<empty>" {
            self.eval_file = None;
            self.network_file = None;
            return Ok(());
        }
        let bytes = std::fs::read(path).map_err(|e| SessionError::EvalFileUnreadable {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        if tsubame_engine::nnue::is_network_file(&bytes) {
            let network = Network::from_bytes(&bytes).map_err(|error| SessionError::Network {
                path: path.to_string(),
                error,
            })?;
            self.network_file = Some(Arc::new(network));
            self.evaluation = Evaluation::Network;
            return Ok(());
        }
        let refused = |error: ParamError| SessionError::EvalFile {
            path: path.to_string(),
            error,
        };
        let text = String::from_utf8(bytes).map_err(|_| SessionError::EvalFileUnreadable {
            path: path.to_string(),
            reason: "neither a network file nor a UTF-8 parameter file".to_string(),
        })?;
        let file = tsubame_engine::params::ParamFile::parse(&text).map_err(refused)?;
        let variant = Variant::from_name(&file.variant)
            .ok_or_else(|| refused(ParamError::UnknownVariant(file.variant.clone())))?;
        file.apply(&EvalParams::for_variant(variant.spec()))
            .map_err(refused)?;
        self.eval_file = Some(file);
        Ok(())
    }

    /// The evaluation parameters of the current game: built in, or from the parameter file,
    /// or given the game's network, as asked; material only is the game's fixed baseline
    /// ([`EvalParams::material_baseline`]), whatever file is loaded.
    fn eval_params(&self) -> EvalParams {
        let spec = self.variant().spec();
        // The weights are built only where they play: the baseline never reads them.
        let full = || {
            let built_in = EvalParams::for_variant(spec);
            match &self.eval_file {
                Some(file) if file.variant == spec.protocol_name => {
                    file.apply(&built_in).unwrap_or(built_in)
                }
                _ => built_in,
            }
        };
        match self.evaluation {
            Evaluation::Material => EvalParams::material_baseline(spec),
            Evaluation::Classical => full(),
            Evaluation::Network => EvalParams {
                network: self
                    .network_file
                    .clone()
                    .filter(|n| n.variant() == self.variant())
                    .or_else(|| Network::built_in(&self.options)),
                ..full()
            },
        }
    }

    /// Forgets everything learnt in earlier games.
    pub fn new_game(&mut self) {
        self.wait();
        self.tt.clear();
        self.memory.clear();
    }

    /// Sets the game: a start and moves in USI text. On error the previous game stays.
    pub fn set_position(&mut self, start: Start<'_>, moves: &[String]) -> Result<(), SessionError> {
        self.wait();
        self.game = GameText::new(&self.options, start, moves)?;
        Ok(())
    }

    /// The board's files and ranks.
    pub fn board_size(&self) -> (u8, u8) {
        let spec = self.variant().spec();
        (spec.width, spec.height)
    }

    /// The current position as SFEN.
    pub fn sfen(&self) -> String {
        self.game.sfen()
    }

    /// Legal moves of the current position, as USI text, sorted.
    pub fn legal_moves(&self) -> Vec<String> {
        let mut moves = self.game.legal_moves();
        moves.sort();
        moves
    }

    /// Plays one move (USI text) after the current position. On error nothing changes.
    pub fn play(&mut self, usi: &str) -> Result<(), SessionError> {
        self.wait();
        self.game.play(usi)
    }

    /// Takes back the last move; `false` when the game is at its start.
    pub fn undo(&mut self) -> bool {
        self.wait();
        self.game.undo()
    }

    /// How the game ended under the rules (mate, stalemate, repetition, ...), if it has.
    pub fn outcome(&self) -> Option<GameOutcome> {
        self.game.outcome()
    }

    /// The legal board moves of the piece on `square` (USI text, `3e`); none for an empty or
    /// unknown square or a piece of the side not to move.
    pub fn targets_from(&self, square: &str) -> Vec<Target> {
        self.game.targets_from(square)
    }

    /// An empty neighbour of `square` (USI text) through which a pass of the piece there can be
    /// written as a step out and back (XBoard's form); `None` outside Tenjiku or when every
    /// neighbour is occupied.
    pub fn pass_via(&self, square: &str) -> Option<String> {
        self.game.pass_via(square)
    }

    /// Whether sente is to move.
    pub fn sente_to_move(&self) -> bool {
        self.game.side_to_move() == Color::Sente
    }

    /// Starts a search in the background. `on_info` receives each iteration, `on_done` the
    /// result; both run on the search thread.
    pub fn go(
        &mut self,
        limits: Limits,
        mut on_info: impl FnMut(InfoText) + Send + 'static,
        on_done: impl FnOnce(BestMove) + Send + 'static,
    ) {
        let limits = Limits {
            started: limits.started.or_else(|| Some(Instant::now())),
            ..limits
        };
        let limits = Limits {
            lines: self.lines,
            ..limits
        };
        let level = self.level.map(|level| level.for_variant(self.variant()));
        let limits = match level {
            Some(level) => level.limits(limits),
            None => limits,
        };
        self.wait();
        self.stop.store(false, Ordering::Relaxed);
        let job = SearchJob {
            game: self.game.clone(),
            eval: self.eval_params(),
            search: self.search_params(),
            limits,
            tt: self.tt.clone(),
            memory: self.memory.clone(),
            stop: self.stop.clone(),
            threads: self.threads,
            level,
        };
        self.running = Some(std::thread::spawn(move || {
            on_done(job.run(&mut on_info));
        }));
    }

    /// Starts a mate search (a tsume: every attacking move a check) in the background for the
    /// side to move, within `time` or until stopped; `on_done` receives the answer on the
    /// search thread.
    pub fn go_mate(
        &mut self,
        time: Option<std::time::Duration>,
        on_done: impl FnOnce(MateAnswer) + Send + 'static,
    ) {
        self.wait();
        self.stop.store(false, Ordering::Relaxed);
        let game = self.game.clone();
        let limits = MateLimits {
            max_moves: MATE_SEARCH_MOVES,
            time,
            nodes: None,
            stop: Some(self.stop.clone()),
            table_mib: self.hash_mib,
        };
        let finished = self.stop.clone();
        self.running = Some(std::thread::spawn(move || {
            let answer = game.mate(&limits);
            // Answered, the search is over: a `go` that follows at once need not wait for this
            // thread to end.
            finished.store(true, Ordering::Relaxed);
            on_done(answer);
        }));
    }

    /// Asks a running search to stop (it still reports its result).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// A handle that stops the running search from another thread (for timers).
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Whether a search is running.
    pub fn searching(&self) -> bool {
        self.running.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Waits for a running search to finish, stopping it first.
    pub fn wait(&mut self) {
        if let Some(handle) = self.running.take() {
            self.stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
        }
    }
}

/// A thread-safe line writer the protocols print through.
pub type Output = Arc<Mutex<Box<dyn std::io::Write + Send>>>;

/// Writes one line and flushes; a failed write is ignored (the GUI has gone away).
pub fn say(output: &Output, line: &str) {
    if let Ok(mut out) = output.lock() {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

/// Memory the system can give without swapping, in MiB (Linux's `MemAvailable`); `None` where
/// it cannot be read, and the allocation itself is then the only check.
fn available_memory_mib() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: usize = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_engine::nnue::Network;

    fn temp_file(name: &str, bytes: &[u8]) -> String {
        let path =
            std::env::temp_dir().join(format!("tsubame-session-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn a_network_file_switches_to_the_network_for_its_game_only() {
        let mut session = Session::new();
        assert_eq!(session.evaluation(), Evaluation::Network);
        session.set_evaluation(Evaluation::Classical);
        let network = Network::uniform(Variant::Tori, 40).unwrap();
        let path = temp_file("tori.nnue", &network.to_bytes());
        session.set_eval_file(&path).unwrap();
        assert_eq!(session.evaluation(), Evaluation::Network);
        assert_eq!(session.eval_params().network.as_deref(), Some(&network));
        // Wa plays its built-in networks, the Tori file notwithstanding: with drops (its
        // default) one, without drops the other. Tenjiku has none: its classical evaluation
        // plays.
        session.set_options(Variant::Wa.default_options()).unwrap();
        let with_drops = session
            .eval_params()
            .network
            .expect("Wa's network with drops");
        assert_eq!(
            Some(with_drops),
            Network::built_in(&Variant::Wa.default_options())
        );
        session
            .set_options(Variant::Tenjiku.default_options())
            .unwrap();
        assert_eq!(session.eval_params().network, None);
        let without_drops = Options::parse(Variant::Wa.spec(), "drops=off").unwrap();
        session.set_options(without_drops.clone()).unwrap();
        let wa_network = session.eval_params().network.expect("Wa's network");
        assert_ne!(
            Some(&wa_network),
            Network::built_in(&Variant::Wa.default_options()).as_ref()
        );
        assert_eq!(Some(wa_network), Network::built_in(&without_drops));
        session
            .set_options(Variant::Tori.default_options())
            .unwrap();
        session.set_evaluation(Evaluation::Classical);
        assert_eq!(session.eval_params().network, None);
        // Without a file the game's built-in network evaluates.
        session.set_eval_file("<empty>").unwrap();
        session.set_evaluation(Evaluation::Network);
        assert_eq!(
            session.eval_params().network,
            Network::built_in(&Variant::Tori.default_options())
        );
        assert!(session.eval_params().network.is_some());
        let _ = std::fs::remove_file(path);
    }

    /// The `SearchParams` option sets its pairs over each game's own set, follows the game
    /// when it changes, and refuses bad text without losing what was set.
    #[test]
    fn search_params_are_set_over_the_games_own() {
        let mut session = Session::new();
        assert_eq!(session.search_params(), SearchParams::TORI);
        session.set_search_params("lmr_divisor=200").unwrap();
        let tori = session.search_params();
        assert_eq!(tori.lmr_divisor, 200);
        assert_eq!(tori.delta_margin, SearchParams::TORI.delta_margin);
        session.set_options(Variant::Wa.default_options()).unwrap();
        let wa = session.search_params();
        assert_eq!(wa.lmr_divisor, 200);
        assert_eq!(wa.delta_margin, SearchParams::WA.delta_margin);
        assert!(session.set_search_params("lmr_divisor=1").is_err());
        assert!(session.set_search_params("no_such=3").is_err());
        assert_eq!(session.search_params().lmr_divisor, 200);
        session.set_search_params("<empty>").unwrap();
        assert_eq!(session.search_params(), SearchParams::WA);
    }

    /// Every form of network file loads: with output buckets and with royal buckets too.
    #[test]
    fn networks_with_output_or_royal_buckets_load_as_networks() {
        use tsubame_engine::nnue::{HIDDEN, Layout, OUTPUT_BUCKETS, RoyalBuckets};
        let inputs = Layout::for_variant(Variant::Tori).unwrap().inputs();
        let royal = RoyalBuckets::by_ranks(Variant::Tori, &[1, 1, 5]).unwrap();
        let w2 = vec![1; 2 * HIDDEN * OUTPUT_BUCKETS];
        let b2 = vec![7; OUTPUT_BUCKETS];
        let output_buckets = Network::from_parts(
            Variant::Tori,
            vec![0; inputs * HIDDEN],
            vec![3; HIDDEN],
            w2.clone(),
            b2.clone(),
        )
        .unwrap();
        let royal_buckets = Network::from_parts_with_royal(
            Variant::Tori,
            royal.clone(),
            vec![0; royal.buckets() * inputs * HIDDEN],
            vec![3; HIDDEN],
            w2,
            b2,
        )
        .unwrap();
        for (name, network) in [("output", output_buckets), ("royal", royal_buckets)] {
            let mut session = Session::new();
            session.set_evaluation(Evaluation::Classical);
            let path = temp_file(&format!("{name}.nnue"), &network.to_bytes());
            session.set_eval_file(&path).unwrap();
            assert_eq!(session.evaluation(), Evaluation::Network);
            assert_eq!(session.eval_params().network.as_deref(), Some(&network));
            let _ = std::fs::remove_file(path);
        }
        // A network file of a form this build does not know is named as such.
        let mut session = Session::new();
        let path = temp_file("future.nnue", b"TSBNNUE9\x04tori");
        let error = session.set_eval_file(&path).unwrap_err();
        assert!(error.to_string().contains("TSBNNUE9"), "{error}");
        let _ = std::fs::remove_file(path);
    }

    /// Strength is measured against material only, so it must not move with the weights it
    /// measures: Tenjiku's built-in values are fitted, its baseline counts the standard ones.
    #[test]
    fn material_only_counts_the_standard_piece_values_whatever_the_weights() {
        let mut session = Session::new();
        session
            .set_options(Variant::Tenjiku.default_options())
            .unwrap();
        let spec = Variant::Tenjiku.spec();
        session.set_evaluation(Evaluation::Classical);
        assert_ne!(
            session.eval_params().board_value,
            EvalParams::derived(spec).board_value
        );
        session.set_evaluation(Evaluation::Material);
        let baseline = session.eval_params();
        assert_eq!(baseline, EvalParams::derived(spec).material_only());
        assert_eq!(baseline.mop_up_margin, 0);
        // A parameter file changes the evaluation, not the baseline.
        let path = temp_file(
            "tenjiku.json",
            br#"{"variant": "tenjiku", "params": {"tempo": 77}}"#,
        );
        session.set_eval_file(&path).unwrap();
        assert_eq!(session.eval_params(), baseline);
        session.set_evaluation(Evaluation::Classical);
        assert_eq!(session.eval_params().tempo, 77);
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn a_damaged_network_file_is_refused_and_nothing_changes() {
        let mut session = Session::new();
        let mut bytes = Network::uniform(Variant::Tori, 40).unwrap().to_bytes();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x10;
        let path = temp_file("damaged.nnue", &bytes);
        let error = session.set_eval_file(&path).unwrap_err();
        assert!(error.to_string().contains("damaged"), "{error}");
        assert_eq!(session.evaluation(), Evaluation::default());
        let binary = temp_file("binary", &[0xff, 0xfe, 0x00, 0x01]);
        let error = session.set_eval_file(&binary).unwrap_err();
        assert!(error.to_string().contains("neither a network"), "{error}");
        for p in [path, binary] {
            let _ = std::fs::remove_file(p);
        }
    }
}
