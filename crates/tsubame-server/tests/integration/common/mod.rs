//! What the server's integration tests share: databases to test against (SQLite, and
//! PostgreSQL when `TSUBAME_TEST_POSTGRES` names a server), the server process, HTTP and
//! WebSocket clients.
#![allow(dead_code, unused_macros, unused_imports)] // each test binary uses its own part of it

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// Where a test's games are stored.
pub enum Db {
    Sqlite(tempdir::Dir),
    Postgres(String),
}

pub mod tempdir {
    /// A directory removed when dropped.
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            let path = std::env::temp_dir().join(format!(
                "tsubame-server-test-{}-{:x}",
                std::process::id(),
                rand_u64()
            ));
            std::fs::create_dir_all(&path).expect("temp dir");
            Dir(path)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    pub fn rand_u64() -> u64 {
        use std::hash::{BuildHasher, RandomState};
        RandomState::new().hash_one(std::time::SystemTime::now())
    }
}

impl Db {
    pub fn sqlite() -> Db {
        Db::Sqlite(tempdir::Dir::new())
    }

    /// A fresh database on the test PostgreSQL server, if there is one; under `CI=true` a
    /// missing server fails the test instead of skipping it.
    pub fn postgres() -> Option<Db> {
        let Ok(base) = std::env::var("TSUBAME_TEST_POSTGRES") else {
            missing_under_ci("the test PostgreSQL server (TSUBAME_TEST_POSTGRES)");
            return None;
        };
        let name = format!("tsubame_test_{:x}", tempdir::rand_u64());
        runtime().block_on(async {
            use sqlx::Connection;
            let mut conn = sqlx::PgConnection::connect(&base)
                .await
                .expect("connect to the test PostgreSQL");
            sqlx::Executor::execute(&mut conn, format!("CREATE DATABASE {name}").as_str())
                .await
                .expect("create a test database");
        });
        let (prefix, _) = base.rsplit_once('/').expect("postgres URL with a database");
        Some(Db::Postgres(format!("{prefix}/{name}")))
    }

    pub fn url(&self) -> String {
        match self {
            Db::Sqlite(dir) => format!("sqlite://{}", dir.0.join("games.db").display()),
            Db::Postgres(url) => url.clone(),
        }
    }

    /// Runs `work` on a pool of its own over the database, then closes the pool.
    fn with_pool<T>(&self, work: impl AsyncFnOnce(&sqlx::AnyPool) -> T) -> T {
        let url = self.url();
        runtime().block_on(async {
            sqlx::any::install_default_drivers();
            let pool = sqlx::AnyPool::connect(&url)
                .await
                .expect("open the database");
            let result = work(&pool).await;
            pool.close().await;
            result
        })
    }

    /// Stored moves of a game: (ply, usi).
    pub fn stored_moves(&self, game: &str) -> Vec<(i64, String)> {
        self.with_pool(async |pool| {
            sqlx::query_as("SELECT ply, usi FROM moves WHERE game_id = $1 ORDER BY ply")
                .bind(game)
                .fetch_all(pool)
                .await
                .expect("read moves")
        })
    }

    /// The stored status, winner and reason of a game.
    pub fn stored_result(&self, game: &str) -> (String, Option<String>, Option<String>) {
        self.with_pool(async |pool| {
            sqlx::query_as("SELECT status, winner, reason FROM games WHERE id = $1")
                .bind(game)
                .fetch_one(pool)
                .await
                .expect("read the game")
        })
    }
}

impl Db {
    /// Runs one statement on the database (with the server stopped).
    pub fn execute(&self, statement: &str, binds: &[&str]) {
        self.with_pool(async |pool| {
            let mut query = sqlx::query(statement);
            for bind in binds {
                query = query.bind(*bind);
            }
            query.execute(pool).await.expect("run the statement");
        })
    }

    /// How many rows a table holds now.
    pub fn count_rows(&self, table: &str) -> i64 {
        let statement = format!("SELECT COUNT(*) FROM {table}");
        self.with_pool(async |pool| {
            let (count,): (i64,) = sqlx::query_as(&statement)
                .fetch_one(pool)
                .await
                .expect("count the rows");
            count
        })
    }

    /// Every text the `games` table holds for a game, column by column.
    pub fn stored_game_texts(&self, game: &str) -> Vec<String> {
        use sqlx::{Column, Row};
        self.with_pool(async |pool| {
            let row = sqlx::query("SELECT * FROM games WHERE id = $1")
                .bind(game)
                .fetch_one(pool)
                .await
                .expect("read the game");
            row.columns()
                .iter()
                .filter_map(|column| row.try_get::<Option<String>, _>(column.ordinal()).ok())
                .flatten()
                .collect()
        })
    }

    /// The stored token hashes of a game: (sente, gote, whether marked hashed).
    pub fn stored_token_hashes(&self, game: &str) -> (String, String, i64) {
        self.with_pool(async |pool| {
            sqlx::query_as(
                "SELECT sente_token_hash, gote_token_hash, tokens_hashed FROM games WHERE id = $1",
            )
            .bind(game)
            .fetch_one(pool)
            .await
            .expect("read the game")
        })
    }
}

/// SHA-256 in lowercase hex, computed here independently of the server's code.
pub fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A test that would skip for want of `what` fails instead when `CI=true`: CI must run it.
pub fn missing_under_ci(what: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what} is missing, and CI=true: the test cannot be skipped"
    );
}

/// The resident memory of a process, in bytes (`VmRSS` of `/proc/PID/status`).
pub fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmRSS")
        * 1024
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The server process.
pub struct Server {
    pub child: Child,
    pub base: String,
    pub addr: String,
}

impl Server {
    pub fn start(db: &Db) -> Server {
        Server::start_with(db, &[])
    }

    pub fn start_with(db: &Db, extra_args: &[&str]) -> Server {
        Server::spawn(db, extra_args, None)
    }

    /// A server logging at `info` in JSON into a pipe, and that pipe.
    pub fn start_with_json_log(db: &Db) -> (Server, std::process::ChildStderr) {
        let mut server = Server::spawn(db, &["--log-format", "json"], Some("info"));
        let log = server.child.stderr.take().expect("stderr");
        (server, log)
    }

    /// Starts the server binary; with `log_level`, its log goes into a pipe, else only
    /// warnings and errors go to the test's standard error.
    pub fn spawn(db: &Db, extra_args: &[&str], log_level: Option<&str>) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tsubame-server"))
            .args([
                "--listen",
                "127.0.0.1:0",
                "--database",
                &db.url(),
                "--threads",
                "2",
            ])
            .args(extra_args)
            .env("TSUBAME_LOG", log_level.unwrap_or("warn"))
            .stdout(Stdio::piped())
            .stderr(if log_level.is_some() {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .expect("start tsubame-server");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the address");
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Server {
            child,
            base: format!("http://{addr}"),
            addr,
        }
    }

    /// SIGKILL: no chance to flush or say goodbye.
    /// Sends SIGTERM and waits for the process to end; its exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < until, "the server did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn kill9(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("wait");
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        response(ureq::get(&format!("{}{path}", self.base)).call())
    }

    pub fn post(&self, path: &str, body: Value) -> (u16, Value) {
        response(ureq::post(&format!("{}{path}", self.base)).send_json(body))
    }

    pub fn post_raw(&self, path: &str, body: &[u8]) -> (u16, Value) {
        response(ureq::post(&format!("{}{path}", self.base)).send_bytes(body))
    }

    /// A game's socket: a spectator's, or with a token, a seat's after its `auth` message
    /// (the answering `hello` is left for the test to read).
    pub fn socket(&self, game: &str, token: Option<&str>) -> Socket {
        socket_at(&self.addr, game, token)
    }

    /// Plays `moves` in game `id` from its start, sente first, each acknowledged.
    pub fn play_moves(&self, id: &str, sente: &str, gote: &str, moves: &[&str]) {
        for (index, usi) in moves.iter().enumerate() {
            let token = if index % 2 == 0 { sente } else { gote };
            let (status, body) = self.post(
                &format!("/api/games/{id}/moves"),
                json!({"token": token, "move": usi}),
            );
            assert_eq!(status, 200, "move {} ({usi}): {body}", index + 1);
        }
    }

    /// Creates a game between two people and seats both: (id, sente token, gote token).
    pub fn two_player_game(&self, variant: &str, clock: Value) -> (String, String, String) {
        let (status, created) = self.post(
            "/api/games",
            json!({"variant": variant, "opponent": "human", "clock": clock}),
        );
        assert_eq!(status, 201, "{created}");
        let id = created["game_id"].as_str().expect("id").to_string();
        let (status, joined) = self.post(
            &format!("/api/games/{id}/join"),
            json!({"invite": created["invite"]}),
        );
        assert_eq!(status, 200, "{joined}");
        assert_eq!(joined["seat"], "gote");
        let sente = created["token"].as_str().expect("token").to_string();
        let gote = joined["token"].as_str().expect("token").to_string();
        (id, sente, gote)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn response(result: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    match result {
        Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null)),
        Err(e) => panic!("request failed: {e}"),
    }
}

/// A game's socket at `addr` (the server's, or a proxy's): a spectator's, or with a token, a
/// seat's after its `auth` message.
pub fn socket_at(addr: &str, game: &str, token: Option<&str>) -> Socket {
    let mut socket = Socket::connect(format!("ws://{addr}/api/games/{game}/ws"));
    if let Some(token) = token {
        socket.send(json!({"type": "auth", "token": token, "id": "auth"}));
    }
    socket
}

pub struct Socket(pub WebSocket<MaybeTlsStream<TcpStream>>);

impl Socket {
    /// Opens a socket whose reads give up after 200 ms, so that waits can check their time.
    pub fn connect(request: impl tungstenite::client::IntoClientRequest) -> Socket {
        let (socket, _) = tungstenite::connect(request).expect("websocket");
        if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
            stream
                .set_read_timeout(Some(Duration::from_millis(200)))
                .expect("timeout");
        }
        Socket(socket)
    }

    /// The next message, or `None` when none came within the read timeout; an error says
    /// why the socket failed.
    pub fn next_message(&mut self) -> Result<Option<Message>, String> {
        match self.0.read() {
            Ok(message) => Ok(Some(message)),
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e.to_string()),
        }
    }

    pub fn send(&mut self, value: Value) {
        self.0
            .send(Message::Text(value.to_string().into()))
            .expect("send");
    }

    /// Reads messages until one satisfies `want` (within `limit`), returning it.
    pub fn wait_for(&mut self, limit: Duration, want: impl Fn(&Value) -> bool) -> Value {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            match self.next_message() {
                Ok(Some(Message::Text(text))) => {
                    let value: Value = serde_json::from_str(text.as_str()).expect("json");
                    if want(&value) {
                        return value;
                    }
                }
                Ok(_) => {}
                Err(e) => panic!("websocket: {e}"),
            }
        }
        panic!("no wanted message within {limit:?}");
    }

    /// Reads until the server closes the socket; the close code.
    pub fn wait_for_close(&mut self, limit: Duration) -> Option<u16> {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            match self.next_message() {
                Ok(Some(Message::Close(frame))) => {
                    // Sends the answering close, as a well-behaved client does.
                    let _ = self.0.flush();
                    return frame.map(|f| u16::from(f.code));
                }
                Ok(_) => {}
                Err(e) => panic!("websocket closed without a close frame: {e}"),
            }
        }
        panic!("the socket was not closed within {limit:?}");
    }
}

/// A Tori game between two people that gote wins by checkmate on the 120th move.
pub const TORI_GAME: &str = "3d3c 4b3c 5e5d 5c5d 4g3f 4a3b S*3d 3c2b S*4d 5a4b 4d4c 4b4c 3f2f S*3c \
S*4d 4c4b 4f3f S*1d 1e1d 1c1d 3d3c 2b3c S*3d 3c2b S*6b S*1f 1g1f S*1e S*1b 1a1b 4d4c 4b4c 4e4d \
4c4d 6b6a+ 1e1f+ 2f1f R*1e 1f2f S*6b P*1g S*7f 7g7f S*5f 5g5f 5d5e 5f4g S*4f 4g4f 5e5f+ 1g1e 1d1e \
R*5b P*4c 5b5a 5f5d S*1c 1b1c S*7b 7a7b 3d3c 2b3c 3e3d 3c3d S*3c 4d3c S*1d 1c1d 5a6b 5d7f 6a6c \
L*1f 4f3e 3d3e 3f3e C*1g 2f3f 3b2b F*4a 3c4b 4a3a+ 2b3a C*5f F*6f S*3b 3a3b 3f4g 6f7e+ 3e3d 4b3c \
3d3c 3b3c C*3e S*6f S*4d F*4e 5f4e 4c4e 4g3f 6f6g+ F*4c 3c2b 4c4b+ C*5f 3g4f P*3d 3f3g S*3f 3e3f \
3d3f 3g3f C*4g 3f3g 4g4f 3g4f 7e5g 4f3f C*3e 3f3g 5g4f";

pub const LONG_BYOYOMI: &str =
    r#"{"kind": "byoyomi", "main_ms": 600000, "periods": 3, "period_ms": 30000}"#;

pub fn long_clock() -> Value {
    serde_json::from_str(LONG_BYOYOMI).expect("clock")
}

/// Runs each named test (a function taking `&Db`) once against SQLite and once against
/// PostgreSQL (skipped, with a note, when no test server is set).
macro_rules! against_every_database {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&super::Db::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    match super::Db::postgres() {
                        Some(db) => super::$name(&db),
                        None => eprintln!(
                            "SKIPPED against PostgreSQL: TSUBAME_TEST_POSTGRES is not set \
                             (scripts/test sets it once it has started a local server)"
                        ),
                    }
                }
            )*
        }
    };
}
pub(crate) use against_every_database;

/// One person's browser on the site: it keeps the session cookie the server sets and sends it
/// back, with the headers a browser sends from the site's own pages.
pub struct Browser<'a> {
    pub server: &'a Server,
    /// The session cookie (`tsubame_session=…`), once logged in.
    pub cookie: Option<String>,
    /// The last `Set-Cookie` header the server sent.
    pub last_set_cookie: Option<String>,
}

impl<'a> Browser<'a> {
    pub fn new(server: &'a Server) -> Browser<'a> {
        Browser {
            server,
            cookie: None,
            last_set_cookie: None,
        }
    }

    /// A request from the site's own page (`Sec-Fetch-Site: same-origin`), with the cookie.
    pub fn get(&mut self, path: &str) -> (u16, Value) {
        self.send("GET", path, None, &[("sec-fetch-site", "same-origin")])
    }

    pub fn post(&mut self, path: &str, body: Value) -> (u16, Value) {
        self.send(
            "POST",
            path,
            Some(body),
            &[("sec-fetch-site", "same-origin")],
        )
    }

    /// A request with other headers than a same-origin page's (still with the cookie).
    pub fn send(
        &mut self,
        method: &str,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> (u16, Value) {
        let mut request = ureq::request(method, &format!("{}{path}", self.server.base));
        for (name, value) in headers {
            request = request.set(name, value);
        }
        if let Some(cookie) = &self.cookie {
            request = request.set("Cookie", cookie);
        }
        let result = match body {
            Some(body) => request.send_json(body),
            None => request.call(),
        };
        let (status, response) = match result {
            Ok(r) => (r.status(), r),
            Err(ureq::Error::Status(code, r)) => (code, r),
            Err(e) => panic!("request failed: {e}"),
        };
        if let Some(set) = response.header("set-cookie") {
            self.last_set_cookie = Some(set.to_string());
            let pair = set.split(';').next().unwrap_or_default().trim().to_string();
            self.cookie = pair
                .split_once('=')
                .filter(|(_, value)| !value.is_empty())
                .map(|_| pair.clone());
        }
        (status, response.into_json().unwrap_or(Value::Null))
    }

    /// Signs up (and so logs in) as `name`.
    pub fn sign_up(&mut self, name: &str, password: &str) -> Value {
        let (status, body) = self.post(
            "/api/account/signup",
            json!({"username": name, "password": password}),
        );
        assert_eq!(status, 201, "sign-up of {name}: {body}");
        body
    }

    /// Signs up (and so logs in) as `name` from `address` (sign-ups are limited per address,
    /// so a test with many players spreads them over addresses).
    pub fn sign_up_from(&mut self, name: &str, password: &str, address: &str) {
        let (status, body) = self.send(
            "POST",
            "/api/account/signup",
            Some(json!({"username": name, "password": password})),
            &[
                ("sec-fetch-site", "same-origin"),
                ("x-forwarded-for", address),
            ],
        );
        assert_eq!(status, 201, "sign-up of {name}: {body}");
    }

    /// This browser's socket for a game, with its cookie, opened by the site's own page.
    pub fn socket(&self, game: &str) -> Socket {
        self.socket_from(game, &format!("http://{}", self.server.addr))
    }

    /// This browser's socket for a game, with its cookie, opened by a page of `origin`.
    pub fn socket_from(&self, game: &str, origin: &str) -> Socket {
        use tungstenite::client::IntoClientRequest;
        let url = format!("ws://{}/api/games/{game}/ws", self.server.addr);
        let mut request = url.into_client_request().expect("request");
        if let Some(cookie) = &self.cookie {
            request
                .headers_mut()
                .insert("cookie", cookie.parse().expect("cookie header"));
        }
        request
            .headers_mut()
            .insert("origin", origin.parse().expect("origin"));
        Socket::connect(request)
    }
}

/// Every text value of every row of a table (what a copy of the database would show).
pub fn stored_texts(db: &Db, table: &str) -> Vec<String> {
    let url = db.url();
    runtime().block_on(async {
        use sqlx::{Column, Row};
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&url)
            .await
            .expect("open the database");
        let rows = sqlx::query(&format!("SELECT * FROM {table}"))
            .fetch_all(&pool)
            .await
            .expect("read the table");
        let texts = rows
            .iter()
            .flat_map(|row| {
                row.columns()
                    .iter()
                    .filter_map(|column| row.try_get::<Option<String>, _>(column.ordinal()).ok())
                    .flatten()
                    .collect::<Vec<_>>()
            })
            .collect();
        pool.close().await;
        texts
    })
}

/// Waits (at most `limit`) until `done` holds: for what the server does by itself in its own
/// time (a sweep, an expiry), which a loaded machine may delay.
pub fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < until, "not within {limit:?}: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
