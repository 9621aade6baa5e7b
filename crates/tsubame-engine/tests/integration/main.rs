//! The engine's integration tests, one binary: searches and the tsume solver.

mod search;
mod tsume;
