//! The rules' integration tests, one binary: perft against the reference counts, every piece's
//! moves, the rule options, bad input, property tests, and the differential tests against
//! Fairy-Stockfish (pyffish), HaChu and the independent Tenjiku generator.

mod diagrams;
mod hachu;
mod tenjiku_oracle;

mod bad_input;
mod hachu_selfplay;
mod hachu_wa;
mod large_board;
mod perft;
mod pieces;
mod properties;
mod pyffish_differential;
mod rules;
mod tenjiku;
mod tenjiku_differential;
mod tenjiku_pieces;
mod wa;
