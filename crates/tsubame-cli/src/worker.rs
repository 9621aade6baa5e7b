//! `tsubame worker`: takes a play server's engine jobs (the computer's moves, finished games'
//! analyses, mate searches, the analysis board's searches) over HTTP and answers them with the
//! engine, on as many threads as asked. The jobs are questions in the JSON of
//! `tsubame analyse --json`, answered by the same code; while a job is searched its lease is
//! renewed (with a game's analysis, its progress too), and a job whose lease was lost (the
//! server gave it to another worker) is stopped and not answered.

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Take a play server's engine jobs (a server started with --engine-workers).
#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The server's address, e.g. `https://shogi.example.org`.
    #[arg(long, env = "TSUBAME_SERVER")]
    server: String,
    /// This worker's key, from `tsubame admin worker-key add NAME` on the server (better given
    /// as TSUBAME_WORKER_KEY, which other users cannot read from the process list).
    #[arg(long, env = "TSUBAME_WORKER_KEY", hide_env_values = true)]
    key: String,
    /// Jobs searched at once, one core each.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
}

/// Why a request to the server failed.
enum Failure {
    /// The server refused the key: nothing more can be done.
    Key(String),
    /// The lease no longer holds the job.
    LeaseLost,
    /// The server refused the request as it is (an answer it does not take): sending it
    /// again changes nothing.
    Refused(String),
    /// Anything else (the network, the server restarting): tried again later.
    Passing(String),
}

/// The server and the key.
#[derive(Clone)]
struct Server {
    agent: ureq::Agent,
    base: String,
    authorization: String,
}

/// A leased job.
struct Job {
    id: String,
    attempt: i64,
    question: String,
    lease: String,
    lease_ms: u64,
}

impl Server {
    fn post(&self, path: &str, body: Value) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.base);
        match self
            .agent
            .post(&url)
            .set("Authorization", &self.authorization)
            .send_json(body)
        {
            Ok(response) => response
                .into_json()
                .map_err(|e| Failure::Passing(format!("{url}: an unreadable answer: {e}"))),
            Err(ureq::Error::Status(status, response)) => {
                let text = response
                    .into_json::<Value>()
                    .ok()
                    .and_then(|body| body["error"].as_str().map(str::to_string))
                    .unwrap_or_default();
                Err(match status {
                    401 => Failure::Key(text),
                    409 if path.ends_with("/renew") || path.ends_with("/answer") => {
                        Failure::LeaseLost
                    }
                    400..=499 if status != 408 && status != 429 => {
                        Failure::Refused(format!("{url}: {status} {text}"))
                    }
                    _ => Failure::Passing(format!("{url}: {status} {text}")),
                })
            }
            Err(e) => Err(Failure::Passing(format!("{url}: {e}"))),
        }
    }

    fn lease(&self) -> Result<Option<Job>, Failure> {
        let answer = self.post("/api/worker/lease", json!({ "wait_ms": 20_000 }))?;
        let job = &answer["job"];
        if job.is_null() {
            return Ok(None);
        }
        let text = |name: &str| {
            job[name]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| Failure::Passing(format!("a leased job without its {name}")))
        };
        Ok(Some(Job {
            id: text("id")?,
            attempt: job["attempt"].as_i64().unwrap_or(1),
            question: text("question")?,
            lease: text("lease")?,
            lease_ms: job["lease_ms"].as_u64().unwrap_or(6_000).max(300),
        }))
    }
}

/// Percent-encodes a job id for a path (ids are the server's own, but a worker trusts no one).
fn path_part(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b':' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// Searches a job, renewing its lease meanwhile, and sends the answer (or gives the job back
/// when the engine refuses the question).
fn work_on(server: &Server, job: Job) -> Result<(), Failure> {
    eprintln!(
        "tsubame worker: job {} taken (lease {})",
        job.id, job.attempt
    );
    let path = format!("/api/worker/jobs/{}", path_part(&job.id));
    // The search sets `stop` itself when it ends; `lost` is set only when the lease is.
    let stop = Arc::new(AtomicBool::new(false));
    let lost = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(AtomicU64::new(0));
    let (done, finished) = mpsc::channel::<()>();
    let renewer = {
        let server = server.clone();
        let stop = stop.clone();
        let lost = lost.clone();
        let progress = progress.clone();
        let path = path.clone();
        let lease = job.lease.clone();
        let every = Duration::from_millis(job.lease_ms / 3);
        std::thread::spawn(move || {
            loop {
                match finished.recv_timeout(every) {
                    Err(RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
                let renewal = match progress.load(Ordering::Relaxed) {
                    0 => json!({ "lease": lease }),
                    done => json!({ "lease": lease, "progress": done }),
                };
                match server.post(&format!("{path}/renew"), renewal) {
                    Ok(_) => {}
                    Err(Failure::LeaseLost | Failure::Key(_) | Failure::Refused(_)) => {
                        lost.store(true, Ordering::Relaxed);
                        stop.store(true, Ordering::Relaxed);
                        return;
                    }
                    // The next renewal may get through before the lease runs out.
                    Err(Failure::Passing(e)) => eprintln!("tsubame worker: renewing: {e}"),
                }
            }
        })
    };
    let started = Instant::now();
    // A game's analysis tells its progress (`{"done": 3, ...}`) as each position is done.
    let mut on_progress = |told: &str| {
        if let Some(count) = serde_json::from_str::<Value>(told)
            .ok()
            .and_then(|told| told["done"].as_u64())
        {
            progress.store(count, Ordering::Relaxed);
        }
    };
    let answered =
        tsubame_analysis::request::answer_until(&job.question, &mut on_progress, stop.clone());
    let _ = done.send(());
    let _ = renewer.join();
    if lost.load(Ordering::Relaxed) {
        eprintln!(
            "tsubame worker: job {} went to another worker; stopped",
            job.id
        );
        return Ok(());
    }
    let took = started.elapsed().as_millis();
    match answered {
        Ok(answer) => {
            let best = serde_json::from_str::<Value>(&answer)
                .ok()
                .and_then(|value| value["best"].as_str().map(str::to_string))
                .unwrap_or_default();
            // A lost answer costs the player a whole search: sent again while the network
            // fails, within the job's lease.
            let mut tries = 0;
            loop {
                match server.post(
                    &format!("{path}/answer"),
                    json!({ "lease": job.lease, "answer": answer }),
                ) {
                    Ok(_) => {
                        eprintln!(
                            "tsubame worker: job {} answered in {took} ms {best}",
                            job.id
                        );
                        return Ok(());
                    }
                    Err(Failure::Passing(e)) if tries < 5 => {
                        tries += 1;
                        eprintln!("tsubame worker: answering: {e}; again");
                        std::thread::sleep(Duration::from_millis(200 * tries));
                    }
                    Err(Failure::LeaseLost) => {
                        eprintln!("tsubame worker: job {} went to another worker", job.id);
                        return Ok(());
                    }
                    Err(Failure::Refused(e)) => {
                        // A refused answer has ended the lease already; any other refusal
                        // gives the job to another worker.
                        eprintln!("tsubame worker: job {}: answer refused: {e}", job.id);
                        let _ = server.post(
                            &format!("{path}/give-back"),
                            json!({ "lease": job.lease, "error": e }),
                        );
                        return Ok(());
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Err(refusal) => {
            eprintln!(
                "tsubame worker: job {} cannot be answered: {refusal}",
                job.id
            );
            server
                .post(
                    &format!("{path}/give-back"),
                    json!({ "lease": job.lease, "error": refusal.to_string() }),
                )
                .map(|_| ())
        }
    }
}

/// One thread's jobs, one after another, until the key is refused.
fn work(server: &Server) -> Result<()> {
    let mut pause = Duration::from_secs(1);
    loop {
        let outcome = server
            .lease()
            .and_then(|job| job.map_or(Ok(()), |job| work_on(server, job)));
        match outcome {
            Ok(()) => pause = Duration::from_secs(1),
            Err(Failure::Key(text)) => bail!("the server refused this worker's key: {text}"),
            Err(Failure::LeaseLost) => {}
            Err(Failure::Passing(e) | Failure::Refused(e)) => {
                eprintln!("tsubame worker: {e}; trying again in {} s", pause.as_secs());
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(30));
            }
        }
    }
}

/// Runs the worker until its key is refused.
pub fn run(args: &WorkerArgs) -> Result<()> {
    let base = args.server.trim().trim_end_matches('/').to_string();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        bail!("--server {base:?}: an http:// or https:// address");
    }
    let key = args.key.trim();
    if key.is_empty() || !key.is_ascii() || key.chars().any(|c| c.is_ascii_control()) {
        bail!("--key: not a worker key (from `tsubame admin worker-key add NAME`)");
    }
    let server = Server {
        agent: ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(10))
            // A lease request waits up to 20 s for a job.
            .timeout_read(Duration::from_secs(40))
            .timeout_write(Duration::from_secs(20))
            .build(),
        base,
        authorization: format!("Bearer {key}"),
    };
    eprintln!(
        "tsubame worker: taking jobs from {} on {} thread(s)",
        server.base, args.threads
    );
    let threads: Vec<_> = (0..args.threads)
        .map(|_| {
            let server = server.clone();
            std::thread::spawn(move || work(&server))
        })
        .collect();
    let mut first_error = None;
    for thread in threads {
        let ended = thread
            .join()
            .map_err(|_| anyhow::anyhow!("a worker thread failed"))
            .and_then(|ended| ended);
        if let Err(e) = ended {
            first_error.get_or_insert(e);
        }
    }
    match first_error {
        Some(e) => Err(e).context("the worker stopped"),
        None => Ok(()),
    }
}
