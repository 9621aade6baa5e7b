//! Protocol adapters around the engine: USI (with `USI_Variant`), UCI (with `UCI_Variant`, in
//! Fairy-Stockfish's conventions) and XBoard (CECP, as HaChu speaks it). Protocol quirks (colour
//! names, coordinates, piece letters) live here and nowhere else.

#![deny(missing_docs)]

pub mod client;
pub mod coords;
pub mod dialect;
pub mod front;
pub mod lines;
pub mod session;
pub mod usi;
pub mod xboard;
