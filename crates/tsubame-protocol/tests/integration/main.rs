//! The engine protocols' integration tests, one binary: garbage refused cleanly, and XBoard's Tenjiku moves.

mod garbage;
mod xboard_tenjiku_moves;
