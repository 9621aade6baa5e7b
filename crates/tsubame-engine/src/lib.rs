//! Search and evaluation for every game of the rules library.
//!
//! The engine knows no protocol: [`search::search`] takes a [`search::SearchRequest`] (a
//! position, the game's earlier positions for the repetition rules, [`limits::Limits`],
//! evaluation weights, the search's margins ([`search_params::SearchParams`]) and a shared
//! transposition table), reports each iteration through a callback and returns the best move.
//!
//! ```
//! use std::sync::Arc;
//! use tsubame_engine::{eval::EvalParams, limits::Limits, tt::TranspositionTable};
//! use tsubame_engine::search::{SearchRequest, search};
//! use tsubame_rules::{tori, Options, Position};
//!
//! // Gote's phoenix on 1a is hemmed in; a falcon dropped on 1b, guarded by the crane, mates.
//! let rules = Options::defaults(tori::spec()).rule_set();
//! let position = Position::from_sfen(tori::tables(), "5sk/5s1/6C/7/7/7/K6 b F 1", rules).unwrap();
//! let params = EvalParams::for_variant(tori::spec());
//! let limits = Limits { depth: Some(3), ..Limits::default() };
//! let tt = Arc::new(TranspositionTable::new(4));
//! let outcome = search(SearchRequest::new(&position, &limits, &params, tt), &mut |_| {});
//! assert_eq!(outcome.best.map(|m| position.to_usi(m)).as_deref(), Some("F*1b"));
//! ```

#![deny(missing_docs)]

pub mod bench;
pub mod clock;
pub mod eval;
pub mod game;
mod history;
pub mod limits;
mod movepick;
pub mod nnue;
pub mod params;
pub mod search;
pub mod search_params;
pub mod strength;
pub mod tsume;
pub mod tt;
