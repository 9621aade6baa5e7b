//! The engine as the protocols see it: a variant, rule options, a game (start position and moves
//! as text), engine options, and a search running in the background. Everything a protocol
//! needs in text form lives here, so each adapter only translates its own syntax.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use tsubame_engine::eval::EvalParams;
use tsubame_engine::limits::Limits;
use tsubame_engine::search::{Info, Outcome, search};
use tsubame_engine::tt::TranspositionTable;
use tsubame_rules::{
    Bitboard, Game, MoveKind, Options, Outcome as GameOutcome, Position, Tables, VariantSpec, tori,
    wa,
};

/// The games the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Tori shogi.
    Tori,
    /// Wa shogi.
    Wa,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 2] = [Variant::Tori, Variant::Wa];

    /// The rules' definition.
    pub fn spec(self) -> &'static VariantSpec {
        match self {
            Variant::Tori => tori::spec(),
            Variant::Wa => wa::spec(),
        }
    }

    /// The variant with this name: the rules' short name (`tori`) or the protocol name
    /// (`torishogi`), in any case.
    pub fn from_name(name: &str) -> Option<Variant> {
        let name = name.to_ascii_lowercase();
        Variant::ALL
            .into_iter()
            .find(|v| v.spec().name == name || v.spec().protocol_name == name)
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
struct GameState<B: Bitboard> {
    position: Position<B>,
    keys: Vec<u64>,
    checks: Vec<bool>,
    /// The same game as the rules keep it, for how it ended and for taking moves back.
    game: Game<B>,
}

impl<B: Bitboard> GameState<B> {
    fn new(
        tables: &'static Tables<B>,
        options: &Options,
        start: Start<'_>,
        moves: &[String],
    ) -> Result<Self, String> {
        let position = match start {
            Start::Sfen(text) => Position::from_sfen(tables, text, options.rule_set())
                .map_err(|e| format!("bad position: {e}"))?,
            Start::Fen(text) => Position::from_fen(tables, text, options.rule_set())
                .map_err(|e| format!("bad position: {e}"))?,
            Start::Initial => {
                Position::start(tables, options).map_err(|e| format!("bad start position: {e}"))?
            }
        };
        let mut state = GameState {
            game: Game::from_position(position.clone(), options.clone()),
            position,
            keys: Vec::new(),
            checks: Vec::new(),
        };
        for text in moves {
            state.play(text)?;
        }
        Ok(state)
    }

    fn play(&mut self, text: &str) -> Result<(), String> {
        let mv = self
            .position
            .parse_usi(text)
            .map_err(|e| format!("bad move: {e}"))?;
        // The rules' game refuses moves after its end (a repetition, say); the position
        // does not, and USI/UCI GUIs may go on past what these rules call the end.
        if self.game.outcome().is_none() {
            self.game.play(mv).map_err(|e| format!("bad move: {e}"))?;
        } else {
            self.game = Game::from_position(self.position.clone(), self.game.options().clone());
            self.game.play(mv).map_err(|e| format!("bad move: {e}"))?;
        }
        self.keys.push(self.position.key());
        self.checks.push(self.position.in_check());
        self.position.make_move(mv);
        Ok(())
    }

    fn undo(&mut self) -> bool {
        if self.keys.is_empty() || self.game.undo().is_none() {
            return false;
        }
        self.keys.pop();
        self.checks.pop();
        self.position = self.game.position().clone();
        true
    }

    fn targets_from(&self, square: &str) -> Vec<Target> {
        let geometry = self.position.tables().geometry;
        let mut out = Vec::new();
        for mv in self.position.legal_moves() {
            if let MoveKind::Normal { from, to, promote } = mv.kind()
                && geometry.name(from).to_string() == square
            {
                out.push(Target {
                    to: geometry.name(to).to_string(),
                    capture: self.position.piece_at(to).is_some(),
                    promotion: promote,
                });
            }
        }
        out
    }
}

/// A destination of a piece, for showing where it may go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The destination square, USI text (`3d`).
    pub to: String,
    /// Whether the move captures.
    pub capture: bool,
    /// Whether this is the promoting move to that square.
    pub promotion: bool,
}

#[derive(Clone, Debug)]
enum AnyGame {
    Tori(GameState<u64>),
    Wa(GameState<u128>),
}

/// What a finished search reports, as text.
#[derive(Clone, Debug, PartialEq)]
pub struct BestMove {
    /// The move (USI text), or `None` when the side to move has no legal move.
    pub best: Option<String>,
    /// The expected reply.
    pub ponder: Option<String>,
}

/// One iteration's report with the principal variation as USI text.
#[derive(Clone, Debug, PartialEq)]
pub struct InfoText {
    /// The engine's report.
    pub info: Info,
    /// The principal variation, USI move text.
    pub pv: Vec<String>,
}

/// Engine options and the game, shared by every protocol.
pub struct Session {
    variant: Variant,
    options: Options,
    game: AnyGame,
    hash_mib: usize,
    threads: usize,
    tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    running: Option<JoinHandle<()>>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

fn pv_text<B: Bitboard>(position: &Position<B>, info: &Info) -> Vec<String> {
    let mut walk = position.clone();
    let mut out = Vec::new();
    for &mv in &info.pv {
        if !walk.is_legal(mv) {
            break;
        }
        out.push(walk.to_usi(mv));
        walk.make_move(mv);
    }
    out
}

fn run_search<B: Bitboard>(
    state: &GameState<B>,
    limits: Limits,
    tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    threads: usize,
    on_info: &mut dyn FnMut(InfoText),
) -> BestMove {
    let params = EvalParams::for_variant(state.position.tables().spec);
    let position = &state.position;
    let Outcome { best, ponder, .. } = search(
        position,
        &state.keys,
        &state.checks,
        &limits,
        &params,
        tt,
        stop,
        threads,
        &mut |info| {
            on_info(InfoText {
                pv: pv_text(position, info),
                info: info.clone(),
            })
        },
    );
    let best_text = best.map(|m| position.to_usi(m));
    let ponder_text = match (best, ponder) {
        (Some(b), Some(p)) => {
            let mut after = position.clone();
            after.make_move(b);
            after.is_legal(p).then(|| after.to_usi(p))
        }
        _ => None,
    };
    BestMove {
        best: best_text,
        ponder: ponder_text,
    }
}

impl Session {
    /// Tori shogi at default options, a 64 MiB table, one thread.
    pub fn new() -> Session {
        let variant = Variant::Tori;
        let options = Options::defaults(variant.spec());
        let game = AnyGame::Tori(
            GameState::new(tori::tables(), &options, Start::Initial, &[])
                .unwrap_or_else(|e| panic!("{e}")),
        );
        Session {
            variant,
            options,
            game,
            hash_mib: 64,
            threads: 1,
            tt: Arc::new(TranspositionTable::new(64)),
            stop: Arc::new(AtomicBool::new(false)),
            running: None,
        }
    }

    /// The current variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The rule options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Switches the game; rule options go back to the new game's defaults and the game to its
    /// start.
    pub fn set_variant(&mut self, variant: Variant) -> Result<(), String> {
        self.wait();
        self.variant = variant;
        self.options = Options::defaults(variant.spec());
        self.set_position(Start::Initial, &[])
    }

    /// Sets a rule option of the current variant.
    pub fn set_rule_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.wait();
        self.options.set(name, value).map_err(|e| e.to_string())
    }

    /// Sets the table size in MiB (1 to 65536).
    pub fn set_hash(&mut self, mib: usize) -> Result<(), String> {
        if !(1..=65_536).contains(&mib) {
            return Err(format!("hash size {mib} MiB is out of range (1 to 65536)"));
        }
        self.wait();
        self.hash_mib = mib;
        self.tt = Arc::new(TranspositionTable::new(mib));
        Ok(())
    }

    /// Sets the number of search threads (1 to 256).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        if !(1..=256).contains(&threads) {
            return Err(format!("thread count {threads} is out of range (1 to 256)"));
        }
        self.threads = threads;
        Ok(())
    }

    /// Forgets everything learnt in earlier games.
    pub fn new_game(&mut self) {
        self.wait();
        self.tt.clear();
    }

    /// Sets the game: a start and moves in USI text. On error the previous game stays.
    pub fn set_position(&mut self, start: Start<'_>, moves: &[String]) -> Result<(), String> {
        self.wait();
        self.game = match self.variant {
            Variant::Tori => {
                AnyGame::Tori(GameState::new(tori::tables(), &self.options, start, moves)?)
            }
            Variant::Wa => AnyGame::Wa(GameState::new(wa::tables(), &self.options, start, moves)?),
        };
        Ok(())
    }

    /// The board's files and ranks.
    pub fn board_size(&self) -> (u8, u8) {
        let spec = self.variant.spec();
        (spec.width, spec.height)
    }

    /// The current position as SFEN.
    pub fn sfen(&self) -> String {
        match &self.game {
            AnyGame::Tori(g) => g.position.to_sfen(),
            AnyGame::Wa(g) => g.position.to_sfen(),
        }
    }

    /// Legal moves of the current position, as USI text, sorted.
    pub fn legal_moves(&self) -> Vec<String> {
        let mut moves: Vec<String> = match &self.game {
            AnyGame::Tori(g) => g
                .position
                .legal_moves()
                .into_iter()
                .map(|m| g.position.to_usi(m))
                .collect(),
            AnyGame::Wa(g) => g
                .position
                .legal_moves()
                .into_iter()
                .map(|m| g.position.to_usi(m))
                .collect(),
        };
        moves.sort();
        moves
    }

    /// Plays one move (USI text) after the current position. On error nothing changes.
    pub fn play(&mut self, usi: &str) -> Result<(), String> {
        self.wait();
        match &mut self.game {
            AnyGame::Tori(g) => g.play(usi),
            AnyGame::Wa(g) => g.play(usi),
        }
    }

    /// Takes back the last move; `false` when the game is at its start.
    pub fn undo(&mut self) -> bool {
        self.wait();
        match &mut self.game {
            AnyGame::Tori(g) => g.undo(),
            AnyGame::Wa(g) => g.undo(),
        }
    }

    /// How the game ended under the rules (mate, stalemate, repetition, ...), if it has.
    pub fn outcome(&self) -> Option<GameOutcome> {
        match &self.game {
            AnyGame::Tori(g) => g.game.outcome(),
            AnyGame::Wa(g) => g.game.outcome(),
        }
    }

    /// The legal board moves of the piece on `square` (USI text, `3e`); none for an empty or
    /// unknown square or a piece of the side not to move.
    pub fn targets_from(&self, square: &str) -> Vec<Target> {
        match &self.game {
            AnyGame::Tori(g) => g.targets_from(square),
            AnyGame::Wa(g) => g.targets_from(square),
        }
    }

    /// Whether sente is to move.
    pub fn sente_to_move(&self) -> bool {
        let side = match &self.game {
            AnyGame::Tori(g) => g.position.side_to_move(),
            AnyGame::Wa(g) => g.position.side_to_move(),
        };
        side == tsubame_rules::Color::Sente
    }

    /// Starts a search in the background. `on_info` receives each iteration, `on_done` the
    /// result; both run on the search thread.
    pub fn go(
        &mut self,
        limits: Limits,
        mut on_info: impl FnMut(InfoText) + Send + 'static,
        on_done: impl FnOnce(BestMove) + Send + 'static,
    ) {
        self.wait();
        self.stop.store(false, Ordering::Relaxed);
        let game = self.game.clone();
        let tt = self.tt.clone();
        let stop = self.stop.clone();
        let threads = self.threads;
        self.running = Some(std::thread::spawn(move || {
            let result = match &game {
                AnyGame::Tori(g) => run_search(g, limits, tt, stop, threads, &mut on_info),
                AnyGame::Wa(g) => run_search(g, limits, tt, stop, threads, &mut on_info),
            };
            on_done(result);
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
