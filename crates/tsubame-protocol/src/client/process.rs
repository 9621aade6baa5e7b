//! An engine child process: lines in, lines out, with deadlines. Engines are untrusted, so
//! nothing here trusts their output: unreadable bytes are replaced, unexpected lines skipped,
//! and every wait has a deadline. Dropping the handle kills the process.

use super::{ClientError, EngineSpec, Protocol};
use crate::dialect::{UCI, USI};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long an engine may take to answer `usi`/`uci` and `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest line kept from an engine; longer lines are cut, so a runaway engine cannot fill
/// memory.
const MAX_LINE: usize = 64 * 1024;

/// Why an engine gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process exited or closed its pipes.
    Exited,
    /// No answer before the deadline.
    Timeout,
}

/// A running engine.
pub struct Engine {
    child: Child,
    /// The protocol it speaks.
    pub protocol: Protocol,
    input: ChildStdin,
    lines: Receiver<String>,
    /// The name from `id name` (`myname` in XBoard), or the command.
    pub name: String,
    /// For an XBoard engine, what it said it understands and how much of the game it knows.
    pub xboard: Option<XboardState>,
}

/// What the match knows about an XBoard engine: the features it announced and the number of
/// the game's moves it has been told or has played itself (XBoard engines keep the game).
#[derive(Clone, Debug, Default)]
pub struct XboardState {
    /// `feature usermove=1`: moves are sent as `usermove <move>`.
    pub usermove: bool,
    /// `feature ping=1`: `ping N` is answered by `pong N` once earlier commands are done.
    pub ping: bool,
    /// `feature setboard=1`: positions can be set with `setboard <FEN>`.
    pub setboard: bool,
    /// How many moves of the current game the engine has.
    pub known_moves: usize,
    pings: u32,
}

/// What an engine answered when asked to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Its move, in its protocol's text (`bestmove <text>`, XBoard's `move <text>`).
    Move(String),
    /// `resign` (USI's `bestmove resign`, UCI's `bestmove (none)`, XBoard's `resign`).
    Resign,
    /// A result line (`1-0 {...}`, `0-1 {...}`, `1/2-1/2 {...}`) instead of a move.
    Claim(String),
    /// `Illegal move ...`: the engine refused a move the match sent it.
    Rejected(String),
}

/// The value of `name=` in an XBoard `feature` line: a quoted string or one word.
fn feature_value<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let start = line
        .match_indices(name)
        .find(|(at, _)| *at == 0 || line.as_bytes().get(at - 1) == Some(&b' '))
        .map(|(at, _)| at + name.len())?;
    let rest = line.get(start..)?.strip_prefix('=')?;
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next(),
        None => rest.split_whitespace().next(),
    }
}

impl Engine {
    /// Starts the engine and does the handshake: protocol greeting, variant, rule options,
    /// `isready`.
    pub fn start(
        spec: &EngineSpec,
        variant: &str,
        options: &[(String, String)],
    ) -> Result<Engine, ClientError> {
        let (program, arguments) = spec
            .command
            .split_first()
            .ok_or(ClientError::EmptyCommand)?;
        let mut child = Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ClientError::Spawn {
                command: spec.command.join(" "),
                reason: e.to_string(),
            })?;
        let (Some(input), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ClientError::Pipes);
        };
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader
                    .by_ref()
                    .take(MAX_LINE as u64)
                    .read_until(b'\n', &mut buffer)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buffer).trim().to_string();
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut engine = Engine {
            child,
            protocol: spec.protocol,
            input,
            lines,
            name: spec.command.join(" "),
            xboard: None,
        };
        let describe = |what: &'static str, failure: Failure| match failure {
            Failure::Exited => ClientError::ExitedBefore(what),
            Failure::Timeout => ClientError::NoAnswer {
                what,
                seconds: HANDSHAKE_TIMEOUT.as_secs(),
            },
        };
        let Some(dialect) = spec.protocol.dialect() else {
            engine
                .xboard_handshake(options, &spec.options)
                .map_err(|f| describe("feature done=1", f))?;
            return Ok(engine);
        };
        let (hello, ok, variant_option) = (dialect.hello, dialect.ok, dialect.variant_option);
        engine.send(hello).map_err(|f| describe(ok, f))?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        loop {
            let line = engine.next_line(deadline).map_err(|f| describe(ok, f))?;
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.trim().to_string();
            }
            if line == ok {
                break;
            }
        }
        engine
            .send(&format!("setoption name {variant_option} value {variant}"))
            .map_err(|f| describe("readyok", f))?;
        for (name, value) in options.iter().chain(&spec.options) {
            engine
                .send(&format!("setoption name {name} value {value}"))
                .map_err(|f| describe("readyok", f))?;
        }
        engine.ready().map_err(|f| describe("readyok", f))?;
        Ok(engine)
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        writeln!(self.input, "{line}")
            .and_then(|()| self.input.flush())
            .map_err(|_| Failure::Exited)
    }

    /// The next line, waiting at most until `deadline`.
    pub fn next_line(&mut self, deadline: Instant) -> Result<String, Failure> {
        let wait = deadline.saturating_duration_since(Instant::now());
        self.lines.recv_timeout(wait).map_err(|e| match e {
            RecvTimeoutError::Timeout => Failure::Timeout,
            RecvTimeoutError::Disconnected => Failure::Exited,
        })
    }

    /// `xboard`, `protover 2`, the features up to `feature done=1`, then the options as
    /// `option NAME=VALUE`. The variant is chosen per game, after `new`.
    fn xboard_handshake(
        &mut self,
        rule_options: &[(String, String)],
        engine_options: &[(String, String)],
    ) -> Result<(), Failure> {
        self.send("xboard")?;
        self.send("protover 2")?;
        let mut state = XboardState::default();
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        loop {
            let line = self.next_line(deadline)?;
            let Some(features) = line.strip_prefix("feature ") else {
                continue;
            };
            let flag = |name: &str| feature_value(features, name) == Some("1");
            state.usermove |= flag("usermove");
            state.ping |= flag("ping");
            state.setboard |= flag("setboard");
            if let Some(name) = feature_value(features, "myname") {
                self.name = name.to_string();
            }
            if flag("done") {
                break;
            }
        }
        for (name, value) in rule_options.iter().chain(engine_options) {
            self.send(&format!("option {name}={value}"))?;
        }
        self.xboard = Some(state);
        self.ready()
    }

    /// Sends `isready` and waits for `readyok`; an XBoard engine gets `ping N` and is waited
    /// for until `pong N` (without the ping feature there is nothing to wait for). Either
    /// way, lines left over from the last game are read and dropped here.
    pub fn ready(&mut self) -> Result<(), Failure> {
        if let Some(state) = &mut self.xboard {
            if !state.ping {
                return Ok(());
            }
            state.pings += 1;
            let number = state.pings;
            let pong = format!("pong {number}");
            self.send(&format!("ping {number}"))?;
            let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
            while self.next_line(deadline)? != pong {}
            return Ok(());
        }
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        while self.next_line(deadline)? != "readyok" {}
        Ok(())
    }

    /// Waits for the answer to `go`: in USI and UCI the `bestmove` line (its move, or its word
    /// for having none), in XBoard the move, a resignation, a result claim or the rejection of
    /// a move it was sent. Thinking output and other lines are skipped.
    pub fn answer(&mut self, deadline: Instant) -> Result<Reply, Failure> {
        if self.protocol.dialect().is_none() {
            return self.xboard_reply(deadline);
        }
        loop {
            let line = self.next_line(deadline)?;
            let mut words = line.split_whitespace();
            if words.next() == Some("bestmove") {
                return Ok(match words.next() {
                    // Either dialect's word for having no move.
                    Some(word) if word == USI.no_move || word == UCI.no_move => Reply::Resign,
                    Some(text) => Reply::Move(text.to_string()),
                    None => Reply::Move(String::new()),
                });
            }
        }
    }

    fn xboard_reply(&mut self, deadline: Instant) -> Result<Reply, Failure> {
        loop {
            let line = self.next_line(deadline)?;
            if let Some(text) = line.strip_prefix("move ") {
                return Ok(Reply::Move(text.trim().to_string()));
            }
            if line == "resign" || line.starts_with("tellics resign") {
                return Ok(Reply::Resign);
            }
            if ["1-0", "0-1", "1/2-1/2"]
                .iter()
                .any(|result| line.split_whitespace().next() == Some(result))
            {
                return Ok(Reply::Claim(line));
            }
            if line.starts_with("Illegal move") {
                return Ok(Reply::Rejected(line));
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // A well-behaved engine gets a moment to exit by itself; any other is killed.
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
