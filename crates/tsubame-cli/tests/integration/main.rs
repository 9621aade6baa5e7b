//! The `tsubame` command's integration tests, one binary: each module runs the real binary (engine
//! protocols, matches, tuning, network data, puzzles, tsume, analysis, terminal play, workers).

mod analyse_convert;
mod engine_protocols;
mod match_runner;
mod nnue_generate;
mod puzzles_command;
mod terminal_play;
mod tsume_command;
mod tune;
#[cfg(feature = "server")]
mod workers;
