//! The state of a game in the terminal: the game, cursor, selection, input line, clocks and
//! the engine's thinking. Keys go in, state comes out; drawing is in `view`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};
use tsubame_engine::limits::{Clock, Limits};
use tsubame_notation::record::{Record, RecordMove, Replay, move_to_usi};
use tsubame_protocol::session::{Session, Target};
use tsubame_rules::{Color, EndReason, Options, Outcome};

/// Main time and byo-yomi period of each player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Main time.
    pub main: Duration,
    /// The period every move must be made in once main time is spent.
    pub byoyomi: Duration,
}

impl std::str::FromStr for TimeControl {
    type Err = String;

    /// `MAIN+BYO` in seconds (`600+30`, also `600+30b`), or `MAIN` alone.
    fn from_str(text: &str) -> Result<TimeControl, String> {
        let bad = || {
            format!("bad time control {text:?}: expected MAIN+BYOYOMI in seconds, such as 600+30")
        };
        let (main, byoyomi) = match text.split_once('+') {
            Some((main, byo)) => (main, byo.strip_suffix('b').unwrap_or(byo)),
            None => (text, "0"),
        };
        let seconds = |s: &str| -> Result<Duration, String> {
            let value: f64 = s.trim().parse().map_err(|_| bad())?;
            if !(0.0..=86_400.0).contains(&value) {
                return Err(bad());
            }
            Ok(Duration::from_secs_f64(value))
        };
        let control = TimeControl {
            main: seconds(main)?,
            byoyomi: seconds(byoyomi)?,
        };
        if control.main.is_zero() && control.byoyomi.is_zero() {
            return Err(bad());
        }
        Ok(control)
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}+{}b", self.main.as_secs(), self.byoyomi.as_secs())
    }
}

/// One player's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerClock {
    /// Main time left.
    pub main: Duration,
    /// Time left in the current byo-yomi period.
    pub period: Duration,
}

/// How a game in the terminal is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// Rule options, handicap included.
    pub options: Options,
    /// Engine strength, 1 to 20.
    pub level: u32,
    /// Which sides people play: `[sente, gote]`.
    pub human: [bool; 2],
    /// Clocks, if any.
    pub time: Option<TimeControl>,
    /// Where `save` writes without a file name.
    pub save_path: PathBuf,
}

/// What the engine thread reports.
struct Reply {
    generation: u64,
    hint: bool,
    best: Option<String>,
}

/// A game in the terminal.
pub struct App {
    /// The setup.
    pub config: Config,
    session: Session,
    /// The game so far, as it is saved.
    pub record: Record,
    /// The record replayed: Hodges text and checks of every move.
    pub replay: Replay,
    /// The cursor: file (1 = sente's right) and rank index (0 = rank a).
    pub cursor: (u8, u8),
    /// The square of the selected piece, USI text.
    pub selected: Option<String>,
    /// An empty square chosen with the cursor for a drop, waiting for the piece's letter.
    pub drop_square: Option<String>,
    /// Where the selected piece may go.
    pub targets: Vec<Target>,
    /// The input line.
    pub input: String,
    /// The last message for the player.
    pub message: String,
    /// Pieces as Latin letters instead of kanji.
    pub latin: bool,
    /// The board seen from gote's side.
    pub flipped: bool,
    /// Clocks of sente and gote.
    pub clocks: Option<[PlayerClock; 2]>,
    last_tick: Instant,
    /// Whether the engine is thinking, and whether for a hint.
    pub thinking: Option<bool>,
    generation: u64,
    replies: Receiver<Reply>,
    sender: Sender<Reply>,
    /// How the game ended.
    pub ended: Option<Outcome>,
    /// Whether the player asked to leave.
    pub quit: bool,
}

fn side_index(color: Color) -> usize {
    match color {
        Color::Sente => 0,
        Color::Gote => 1,
    }
}

impl App {
    /// A new game.
    pub fn new(config: Config, session: Session, record: Record) -> Result<App, String> {
        let replay = record.replay().map_err(|e| e.to_string())?;
        let (width, height) = session.board_size();
        let (sender, replies) = channel();
        let flipped = !config.human[0] && config.human[1];
        let clocks = config.time.map(|t| {
            [PlayerClock {
                main: t.main,
                period: t.byoyomi,
            }; 2]
        });
        let mut app = App {
            config,
            session,
            record,
            replay,
            cursor: (width.div_ceil(2), height.saturating_sub(1)),
            selected: None,
            drop_square: None,
            targets: Vec::new(),
            input: String::new(),
            message: "Type a move (USI or Hodges) or use the arrow keys and Enter.".into(),
            latin: false,
            flipped,
            clocks,
            last_tick: Instant::now(),
            thinking: None,
            generation: 0,
            replies,
            sender,
            ended: None,
            quit: false,
        };
        app.ended = app.session.outcome();
        Ok(app)
    }

    /// The current position as SFEN.
    pub fn sfen(&self) -> String {
        self.session.sfen()
    }

    /// The board's files and ranks.
    pub fn board_size(&self) -> (u8, u8) {
        self.session.board_size()
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        if self.session.sente_to_move() {
            Color::Sente
        } else {
            Color::Gote
        }
    }

    fn human_to_move(&self) -> bool {
        self.config.human[side_index(self.side_to_move())]
    }

    /// The USI name of the cursor's square.
    pub fn cursor_square(&self) -> String {
        format!("{}{}", self.cursor.0, char::from(b'a' + self.cursor.1))
    }

    /// Handles one key.
    pub fn handle_key(&mut self, key: KeyEvent) {
        let control = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('q' | 'c') if control => self.quit = true,
            KeyCode::Char('u') if control => self.undo(),
            KeyCode::Char('e') if control => self.hint(),
            KeyCode::Char('r') if control => self.resign(),
            KeyCode::Char('s') if control => self.save(None),
            KeyCode::Tab => self.latin = !self.latin,
            KeyCode::Esc => {
                self.input.clear();
                self.drop_square = None;
                self.selected = None;
                self.targets.clear();
            }
            KeyCode::Backspace => {
                self.input.pop();
            }
            KeyCode::Enter => {
                if self.input.trim().is_empty() {
                    self.input.clear();
                    self.select_at_cursor();
                } else {
                    let text = std::mem::take(&mut self.input);
                    self.submit(text.trim());
                }
            }
            KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down => {
                self.move_cursor(key.code)
            }
            KeyCode::Char(c)
                if !control
                    && (c.is_ascii_graphic() || c == ' ')
                    && self.input.chars().count() < 60 =>
            {
                self.input.push(c);
            }
            _ => {}
        }
    }

    fn move_cursor(&mut self, code: KeyCode) {
        let (width, height) = self.board_size();
        let (file, rank) = self.cursor;
        // On screen the highest file is on the left and rank a at the top, unless flipped.
        let sign: i16 = if self.flipped { -1 } else { 1 };
        let (df, dr) = match code {
            KeyCode::Left => (sign, 0),
            KeyCode::Right => (-sign, 0),
            KeyCode::Up => (0, -sign),
            KeyCode::Down => (0, sign),
            _ => (0, 0),
        };
        let new_file = (i16::from(file) + df).clamp(1, i16::from(width));
        let new_rank = (i16::from(rank) + dr).clamp(0, i16::from(height) - 1);
        self.cursor = (
            u8::try_from(new_file).unwrap_or(file),
            u8::try_from(new_rank).unwrap_or(rank),
        );
    }

    fn select_at_cursor(&mut self) {
        let square = self.cursor_square();
        if let Some(from) = self.selected.clone() {
            // The piece's own square cancels the selection (a Tenjiku pass is typed).
            let mut fitting: Vec<&Target> = self
                .targets
                .iter()
                .filter(|t| t.to == square && t.to != from)
                .collect();
            // A plain move before one capturing on the way (those are typed, `6f5e6d`); where
            // promotion is optional the promoting move is taken, typing the move with '='
            // declines.
            fitting.sort_by_key(|t| (t.via.is_some(), !t.promotion));
            if let Some(target) = fitting.first() {
                let usi = format!(
                    "{from}{}{}{}",
                    target.via.as_deref().unwrap_or(""),
                    target.to,
                    if target.promotion { "+" } else { "" }
                );
                self.selected = None;
                self.targets.clear();
                self.try_move(&usi);
                return;
            }
            if from == square {
                self.selected = None;
                self.targets.clear();
                return;
            }
        }
        if !self.can_move_now() {
            return;
        }
        let targets = self.session.targets_from(&square);
        let drops: Vec<String> = self
            .session
            .legal_moves()
            .into_iter()
            .filter_map(|m| m.strip_suffix(&format!("*{square}")).map(str::to_string))
            .collect();
        self.drop_square = None;
        if targets.is_empty() && !drops.is_empty() {
            self.message = format!("drop on {square}: type {} and Enter", drops.join(" or "));
            self.drop_square = Some(square);
            self.selected = None;
            self.targets.clear();
        } else if targets.is_empty() {
            self.message = format!("no piece of yours on {square} can move");
            self.selected = None;
            self.targets.clear();
        } else {
            self.message = format!("{square} selected: move the cursor to a marked square, Enter");
            self.selected = Some(square);
            self.targets = targets;
        }
    }

    fn can_move_now(&mut self) -> bool {
        if let Some(outcome) = self.ended {
            self.message = format!("the game is over: {outcome}");
            return false;
        }
        if !self.human_to_move() {
            self.message = "the engine is to move; wait for it".into();
            return false;
        }
        true
    }

    /// Reads a command or a move from the input line.
    pub fn submit(&mut self, text: &str) {
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        match word {
            "undo" => self.undo(),
            "hint" => self.hint(),
            "resign" => self.resign(),
            "save" => self.save((!rest.trim().is_empty()).then(|| PathBuf::from(rest.trim()))),
            "quit" | "exit" => self.quit = true,
            "kanji" => self.latin = false,
            "latin" => self.latin = true,
            "flip" => self.flipped = !self.flipped,
            "help" => {
                self.message = "commands: undo hint resign save [FILE] kanji latin flip quit".into()
            }
            _ => {
                if self.can_move_now() {
                    // A piece letter alone drops it on the square chosen with the cursor.
                    let text = match self.drop_square.take() {
                        Some(square) if text.chars().all(|c| c.is_ascii_alphabetic()) => {
                            let piece = if text.len() == 1 {
                                text.to_ascii_uppercase()
                            } else {
                                text.to_string()
                            };
                            format!("{piece}*{square}")
                        }
                        _ => text.to_string(),
                    };
                    match move_to_usi(&self.config.options, &self.session.sfen(), &text) {
                        Ok(usi) => self.try_move(&usi),
                        Err(reason) => self.message = reason.to_string(),
                    }
                }
            }
        }
    }

    fn try_move(&mut self, usi: &str) {
        if let Err(reason) = self.play_move(usi) {
            self.message = reason;
        }
    }

    /// Plays a move (USI text) for the side to move.
    pub fn play_move(&mut self, usi: &str) -> Result<(), String> {
        let mover = self.side_to_move();
        self.session.play(usi)?;
        self.generation += 1;
        self.thinking = None;
        self.record.moves.push(RecordMove {
            usi: usi.to_string(),
            comment: None,
            think_ms: None,
        });
        self.replay = self.record.replay().map_err(|e| e.to_string())?;
        if let (Some(clocks), Some(time)) = (self.clocks.as_mut(), self.config.time) {
            clocks[side_index(mover)].period = time.byoyomi;
        }
        self.selected = None;
        self.targets.clear();
        let written = self
            .replay
            .steps
            .last()
            .map_or(usi.to_string(), |s| s.hodges.clone());
        self.message = format!("{mover} played {written}");
        if let Some(outcome) = self.session.outcome() {
            self.finish(outcome);
        }
        Ok(())
    }

    fn finish(&mut self, outcome: Outcome) {
        self.ended = Some(outcome);
        self.record.set_outcome(Some(outcome));
        self.generation += 1;
        self.session.stop();
        self.thinking = None;
        self.message = format!("game over: {outcome}");
    }

    fn undo(&mut self) {
        self.generation += 1;
        self.session.wait();
        self.thinking = None;
        // Against the engine, back to the player's own turn.
        let mut taken = 0;
        while self.session.undo() {
            self.record.moves.pop();
            taken += 1;
            if self.human_to_move() {
                break;
            }
        }
        if taken == 0 {
            self.message = "nothing to take back".into();
            return;
        }
        self.ended = None;
        self.record.set_outcome(None);
        if let Ok(replay) = self.record.replay() {
            self.replay = replay;
        }
        self.selected = None;
        self.targets.clear();
        self.message = format!("took back {taken} move(s)");
    }

    fn resign(&mut self) {
        if self.ended.is_some() {
            return;
        }
        let side = if self.human_to_move() {
            self.side_to_move()
        } else if self.config.human[0] {
            Color::Sente
        } else {
            Color::Gote
        };
        self.finish(Outcome {
            winner: Some(!side),
            reason: EndReason::Resignation,
        });
    }

    fn save(&mut self, path: Option<PathBuf>) {
        let path = path.unwrap_or_else(|| self.config.save_path.clone());
        let written = self
            .record
            .to_canonical()
            .map_err(|e| e.to_string())
            .and_then(|text| std::fs::write(&path, text).map_err(|e| e.to_string()));
        self.message = match written {
            Ok(()) => format!("saved to {}", path.display()),
            Err(reason) => format!("cannot save to {}: {reason}", path.display()),
        };
    }

    fn limits(&self, hint: bool) -> Limits {
        let level = self.config.level.clamp(1, 20);
        let depth = Some(level + 1);
        let side = side_index(self.side_to_move());
        match (self.clocks, hint) {
            (Some(clocks), false) => Limits {
                depth,
                clock: clocks.get(side).map(|c| Clock {
                    remaining: c.main,
                    byoyomi: c.period,
                    increment: Duration::ZERO,
                }),
                ..Limits::default()
            },
            _ => Limits {
                depth,
                move_time: Some(Duration::from_millis(150 * u64::from(level))),
                ..Limits::default()
            },
        }
    }

    fn hint(&mut self) {
        if !self.can_move_now() || self.thinking.is_some() {
            return;
        }
        self.start_search(true);
        self.message = "thinking about a hint...".into();
    }

    fn start_search(&mut self, hint: bool) {
        let limits = self.limits(hint);
        let sender = self.sender.clone();
        let generation = self.generation;
        self.thinking = Some(hint);
        self.session.go(
            limits,
            |_| {},
            move |best| {
                let _ = sender.send(Reply {
                    generation,
                    hint,
                    best: best.best,
                });
            },
        );
    }

    /// Advances clocks, takes the engine's replies and starts it when it is to move.
    pub fn tick(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last_tick);
        self.last_tick = now;
        if self.ended.is_none() {
            let side = self.side_to_move();
            if let Some(clock) = self
                .clocks
                .as_mut()
                .and_then(|c| c.get_mut(side_index(side)))
            {
                let from_main = elapsed.min(clock.main);
                clock.main -= from_main;
                let rest = elapsed - from_main;
                if rest > clock.period {
                    clock.period = Duration::ZERO;
                    self.finish(Outcome {
                        winner: Some(!side),
                        reason: EndReason::Time,
                    });
                } else {
                    clock.period -= rest;
                }
            }
        }
        while let Ok(reply) = self.replies.try_recv() {
            if reply.generation != self.generation {
                continue;
            }
            self.thinking = None;
            if reply.hint {
                self.message = match reply.best {
                    Some(usi) => {
                        let line = tsubame_notation::record::hodges_line(
                            &self.config.options,
                            &self.session.sfen(),
                            std::slice::from_ref(&usi),
                        );
                        format!("hint: {}", line.first().unwrap_or(&usi))
                    }
                    None => "hint: no legal move".into(),
                };
            } else {
                match reply.best {
                    Some(usi) => self.try_move(&usi),
                    None => self.resign_engine(),
                }
            }
        }
        if self.ended.is_none() && self.thinking.is_none() && !self.human_to_move() {
            self.start_search(false);
        }
    }

    fn resign_engine(&mut self) {
        let side = self.side_to_move();
        self.finish(Outcome {
            winner: Some(!side),
            reason: EndReason::Resignation,
        });
    }

    /// Stops the engine before leaving.
    pub fn shut_down(&mut self) {
        self.generation += 1;
        self.session.wait();
    }
}
