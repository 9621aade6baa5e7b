//! The puzzles' integration tests, one binary: every shipped puzzle sound and confirmed by the engine, mining reproducible, the deep check's verdicts.

mod deep;
mod puzzles;
