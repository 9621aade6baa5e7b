//! Protocol adapters around the engine: USI (with `USI_Variant`); UCI and XBoard follow the same
//! shape. Protocol quirks (colour names, coordinates, piece letters) live here and nowhere else.

#![deny(missing_docs)]

pub mod session;
pub mod usi;
