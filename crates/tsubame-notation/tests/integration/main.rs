//! The notation's integration tests, one binary: records, SFEN and move texts read and written,
//! round trips, arbitrary text refused cleanly and in linear time, and Fairy-Stockfish's SAN (pyffish).

mod arbitrary_text;
mod hodges;
mod linear_time;
mod record_text;
mod records;
mod round_trip;
mod san_pyffish;
mod tenjiku;
mod tenjiku_records;
mod wa;
