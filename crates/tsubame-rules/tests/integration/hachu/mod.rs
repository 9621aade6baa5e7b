//! HaChu 0.21 (`/usr/games/hachu`, Debian package `hachu`, installed by
//! `scripts/install-test-deps`) as a child process speaking XBoard, and the translation between
//! its squares and ours (`rules/wa-shogi.md`, "Board, sides, coordinates"). Shared by
//! `hachu_wa.rs` and `hachu_selfplay.rs`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};
use tsubame_rules::{Square, wa};

pub const HACHU: &str = "/usr/games/hachu";
pub const SIZE: usize = 11;

// ---------------------------------------------------------------------------------------------
// Squares. HaChu squares are numbered `rank * 11 + file` with file 0 = `a` and rank 0 = `1`.

/// Our square shown as HaChu square `index`, on the board turned 180 degrees if `turned`.
pub fn from_hachu(index: usize, turned: bool) -> Square {
    let (rank, file) = (index / SIZE, index % SIZE);
    let (our_file, our_rank) = if turned {
        (file + 1, rank)
    } else {
        (SIZE - file, SIZE - 1 - rank)
    };
    wa::tables()
        .geometry
        .square(our_file as u8, our_rank as u8)
        .expect("HaChu square on the board")
}

pub fn hachu_name(index: usize) -> String {
    format!(
        "{}{}",
        (b'a' + (index % SIZE) as u8) as char,
        index / SIZE + 1
    )
}

pub fn our_name(square: Square) -> String {
    wa::tables().geometry.name(square).to_string()
}

// ---------------------------------------------------------------------------------------------
// The process.

pub fn hachu_missing() -> Option<String> {
    (!Path::new(HACHU).exists()).then(|| {
        format!(
            "HaChu is not installed at {HACHU}; run scripts/install-test-deps \
             (it installs the Debian package hachu)"
        )
    })
}

/// Why no line came from HaChu.
pub enum ReadError {
    /// Nothing arrived before the deadline.
    Timeout,
    /// HaChu closed its output, so it has exited or is about to.
    Exited,
}

/// A HaChu child process that is killed, at the latest, when this is dropped.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Engine {
    /// Starts HaChu. The error says why it could not be started.
    pub fn start() -> Result<Engine, String> {
        let mut child = Command::new(HACHU)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {HACHU}: {e}"))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::channel();
        // A reader thread lets the wait for each line time out; it ends when HaChu's stdout
        // closes, which killing the child guarantees.
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Engine {
            child,
            stdin,
            lines,
        })
    }

    /// Writes `text` (whole lines) and flushes it.
    pub fn send(&mut self, text: &str) -> Result<(), String> {
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(text.as_bytes())
                .and_then(|()| stdin.flush()),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "HaChu's input is already closed",
            )),
        };
        written.map_err(|e| format!("writing to HaChu failed: {e} ({})", self.exit_status()))
    }

    /// Closes HaChu's input, which it reads as the end of the session.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line HaChu writes, waiting until `deadline` at most.
    pub fn next_line(&mut self, deadline: Instant) -> Result<String, ReadError> {
        match self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(line) => Ok(line),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(ReadError::Timeout),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(ReadError::Exited),
        }
    }

    /// Waits briefly for the child to exit and describes how it ended; kills it if it has not.
    pub fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Err(e) => return format!("status unknown: {e}"),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    return "still running; killed".to_string();
                }
                Ok(None) => thread::sleep(Duration::from_millis(5)),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Once the child has been waited for, `kill` sends nothing.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// Running many HaChu comparisons at once.

/// What [`in_parallel`] gives: each job's result with its index, in order, and the workers'
/// tallies added up.
pub struct Parallel<T, C> {
    pub results: Vec<(usize, T)>,
    pub tally: C,
}

/// Runs `job(i, tally)` for `i` in `0..jobs` on `workers` threads, each keeping its own tally
/// (added into the others' by `add`). It stops at the first error (returned, with any others
/// met meanwhile), or once `enough` says the results so far are enough.
pub fn in_parallel<T: Send, C: Default + Send>(
    jobs: usize,
    workers: usize,
    job: impl Fn(usize, &mut C) -> Result<T, String> + Sync,
    add: impl Fn(&mut C, &C) + Sync,
    enough: impl Fn(&[(usize, T)]) -> bool + Sync,
) -> Result<Parallel<T, C>, String> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    let tally = Mutex::new(C::default());
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut mine = C::default();
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= jobs {
                        break;
                    }
                    match job(index, &mut mine) {
                        Ok(result) => {
                            let mut all = results.lock().expect("no panics while held");
                            all.push((index, result));
                            if enough(&all) {
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                        Err(e) => {
                            errors.lock().expect("no panics while held").push(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                add(&mut tally.lock().expect("no panics while held"), &mine);
            });
        }
    });
    let errors = errors.into_inner().expect("no panics while held");
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let mut results = results.into_inner().expect("no panics while held");
    results.sort_by_key(|(index, _)| *index);
    Ok(Parallel {
        results,
        tally: tally.into_inner().expect("no panics while held"),
    })
}
