//! An engine child process: lines in, lines out, with deadlines. Engines are untrusted, so
//! nothing here trusts their output: unreadable bytes are replaced, unexpected lines skipped,
//! and every wait has a deadline. Dropping the handle kills the process.

use super::{EngineSpec, Protocol};
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
    input: ChildStdin,
    lines: Receiver<String>,
    /// The name from `id name`, or the command.
    pub name: String,
}

impl Engine {
    /// Starts the engine and does the handshake: protocol greeting, variant, rule options,
    /// `isready`.
    pub fn start(
        spec: &EngineSpec,
        variant: &str,
        options: &[(String, String)],
    ) -> Result<Engine, String> {
        let (program, arguments) = spec
            .command
            .split_first()
            .ok_or("the engine command is empty")?;
        let mut child = Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", spec.command.join(" ")))?;
        let (Some(input), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the engine's pipes could not be opened".into());
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
            input,
            lines,
            name: spec.command.join(" "),
        };
        let (hello, ok, variant_option) = match spec.protocol {
            Protocol::Usi => ("usi", "usiok", "USI_Variant"),
            Protocol::Uci => ("uci", "uciok", "UCI_Variant"),
        };
        let describe = |what: &str, failure: Failure| match failure {
            Failure::Exited => format!("the engine exited before {what}"),
            Failure::Timeout => format!("no {what} within {}s", HANDSHAKE_TIMEOUT.as_secs()),
        };
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
        for (name, value) in options {
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

    /// Sends `isready` and waits for `readyok`.
    pub fn ready(&mut self) -> Result<(), Failure> {
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        while self.next_line(deadline)? != "readyok" {}
        Ok(())
    }

    /// Waits for a `bestmove` line and returns the words after `bestmove` (empty when there
    /// are none); every other line is skipped.
    pub fn best_move(&mut self, deadline: Instant) -> Result<Vec<String>, Failure> {
        loop {
            let line = self.next_line(deadline)?;
            let mut words = line.split_whitespace();
            if words.next() == Some("bestmove") {
                return Ok(words.map(str::to_string).collect());
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
