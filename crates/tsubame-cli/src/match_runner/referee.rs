//! The rules' game as the match sees it, for every variant: start it, play USI text, tell how
//! it stands.

use anyhow::Result;
use tsubame_rules::tenjiku::TenjikuGame;
use tsubame_rules::{Bitboard, Color, Game, Move, Options, Status, Tables, VariantSpec};

/// A game the match adjudicates.
pub trait Referee: Sized {
    /// What building a game needs (a variant's tables).
    type Context: Copy + Send + Sync;
    /// The variant's definition.
    fn spec(context: Self::Context) -> &'static VariantSpec;
    /// The start position of these options (handicaps applied).
    fn start(context: Self::Context, options: &Options) -> Result<Self>;
    /// A game from a position given as SFEN.
    fn from_sfen(context: Self::Context, sfen: &str, options: &Options) -> Result<Self>;
    /// The legal moves.
    fn legal_moves(&self) -> Vec<Move>;
    /// Plays a legal move; `false` if the rules refuse it.
    fn play_move(&mut self, mv: Move) -> bool;
    /// Plays a move written as USI text.
    fn play_text(&mut self, text: &str) -> Result<(), String>;
    /// A move of the current position as USI text.
    fn move_text(&self, mv: Move) -> String;
    /// How the game stands.
    fn status(&self) -> Status;
    /// The current position as SFEN.
    fn sfen(&self) -> String;
    /// The start position as FEN for UCI engines, where the game has one.
    fn start_fen(&self) -> Option<String>;
    /// The side to move.
    fn side_to_move(&self) -> Color;
    /// `color` resigns.
    fn resign(&mut self, color: Color);
    /// `color` lost on time.
    fn lose_on_time(&mut self, color: Color);
}

impl<B: Bitboard> Referee for Game<B> {
    type Context = &'static Tables<B>;

    fn spec(tables: Self::Context) -> &'static VariantSpec {
        tables.spec
    }
    fn start(tables: Self::Context, options: &Options) -> Result<Self> {
        Ok(Game::new(tables, options.clone())?)
    }
    fn from_sfen(tables: Self::Context, sfen: &str, options: &Options) -> Result<Self> {
        Ok(Game::from_sfen(tables, sfen, options.clone())?)
    }
    fn legal_moves(&self) -> Vec<Move> {
        Game::legal_moves(self)
    }
    fn play_move(&mut self, mv: Move) -> bool {
        self.play(mv).is_ok()
    }
    fn play_text(&mut self, text: &str) -> Result<(), String> {
        self.play_usi(text).map(|_| ()).map_err(|e| e.to_string())
    }
    fn move_text(&self, mv: Move) -> String {
        self.position().to_usi(mv)
    }
    fn status(&self) -> Status {
        Game::status(self)
    }
    fn sfen(&self) -> String {
        self.position().to_sfen()
    }
    fn start_fen(&self) -> Option<String> {
        Some(self.start().to_fen())
    }
    fn side_to_move(&self) -> Color {
        self.position().side_to_move()
    }
    fn resign(&mut self, color: Color) {
        Game::resign(self, color);
    }
    fn lose_on_time(&mut self, color: Color) {
        Game::lose_on_time(self, color);
    }
}

impl Referee for TenjikuGame {
    type Context = ();

    fn spec((): Self::Context) -> &'static VariantSpec {
        tsubame_rules::tenjiku::spec()
    }
    fn start((): Self::Context, options: &Options) -> Result<Self> {
        Ok(TenjikuGame::new(options.clone()))
    }
    fn from_sfen((): Self::Context, sfen: &str, options: &Options) -> Result<Self> {
        Ok(TenjikuGame::from_sfen(sfen, options.clone())?)
    }
    fn legal_moves(&self) -> Vec<Move> {
        TenjikuGame::legal_moves(self)
    }
    fn play_move(&mut self, mv: Move) -> bool {
        self.play(mv).is_ok()
    }
    fn play_text(&mut self, text: &str) -> Result<(), String> {
        self.play_usi(text).map(|_| ()).map_err(|e| e.to_string())
    }
    fn move_text(&self, mv: Move) -> String {
        self.position().to_usi(mv)
    }
    fn status(&self) -> Status {
        TenjikuGame::status(self)
    }
    fn sfen(&self) -> String {
        self.position().to_sfen()
    }
    fn start_fen(&self) -> Option<String> {
        None
    }
    fn side_to_move(&self) -> Color {
        self.position().side_to_move()
    }
    fn resign(&mut self, color: Color) {
        TenjikuGame::resign(self, color);
    }
    fn lose_on_time(&mut self, color: Color) {
        TenjikuGame::lose_on_time(self, color);
    }
}
