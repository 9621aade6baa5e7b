//! Human notation.
