//! Search and evaluation for every game of the rules library.

#![deny(missing_docs)]

pub mod eval;
pub mod tt;
