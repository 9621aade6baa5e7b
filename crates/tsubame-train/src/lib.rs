//! Training tools for the engine: what makes its weights, kept out of the engine itself, which
//! knows nothing of training.
//!
//! - [`data`]: self-play games at a fixed node count from seeded random openings, appended to
//!   a file that a stopped run resumes, and the labelled positions training reads from it;
//! - [`games`]: the games file, a few bytes a position, and the converter from the first
//!   format;
//! - [`positions`]: the labelled positions training reads, and the first format, which stored
//!   them whole;
//! - [`relabel`]: stored games searched again, deeper or with another evaluation, for labels
//!   of another depth on the same positions;
//! - [`train`]: training a network ([`tsubame_engine::nnue::Network`]) on those positions;
//! - [`tune`]: fitting the classical evaluation's weights to self-play results;
//! - [`spsa`]: tuning the search's margins by SPSA over games between two settings.
//!
//! ```
//! use tsubame_train::train::FloatNetwork;
//! use tsubame_rules::{Options, Variant, tori};
//!
//! // A network trained from random weights is quantized into the engine's integer network.
//! let network = FloatNetwork::random(Variant::Tori, 1, 7).unwrap().quantize();
//! let position = tori::start(&Options::defaults(tori::spec())).unwrap();
//! assert_eq!(network.variant(), Variant::Tori);
//! assert!(network.evaluate(&position).abs() < 3000);
//! ```

#![deny(missing_docs)]

pub mod data;
pub mod games;
pub mod positions;
pub mod relabel;
pub mod spsa;
pub mod train;
pub mod tune;
