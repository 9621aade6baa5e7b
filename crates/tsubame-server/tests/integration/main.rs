//! The play server's integration tests, one binary: each module starts the real `tsubame-server`
//! binary against SQLite and, when `TSUBAME_TEST_POSTGRES` names a server, PostgreSQL, and talks
//! to it over HTTP and WebSockets as a browser would (`common` holds the shared clients).

#[macro_use]
mod common;

mod account_tools;
mod accounts;
mod arena;
mod challenges;
mod disk_full;
mod engine_requests;
mod game_analysis;
mod imports;
mod instances;
mod limits_race;
mod openapi;
mod puzzles;
mod server;
mod session_ends;
mod slow_clients;
mod socket_limits;
mod workers;
