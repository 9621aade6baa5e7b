//! Player accounts: sign-up, login sessions and the checks around them.
//!
//! Passwords are kept only as Argon2id hashes and session values only as SHA-256 hashes.
//! Hashing a password is deliberately slow and takes memory, so only a few run at once and a
//! flood of logins is refused (429) instead of queueing without bound; logins are also limited
//! per user name and per address, and a wrong name and a wrong password get the same answer
//! after the same work.

pub use error::AccountError;
mod error;

use crate::rate::admit;
use crate::store::{AccountRow, Store, token_hash};
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::sync::broadcast;
use utoipa::ToSchema;

/// The name of the session cookie.
pub const SESSION_COOKIE: &str = "tsubame_session";

/// The close code of a socket whose session ended (logged out, a password change, the account
/// closed or deleted, the login expired): the client may reconnect, as whoever it is now.
pub const SESSION_ENDED_CLOSE: u16 = 4001;

/// The close reason that goes with [`SESSION_ENDED_CLOSE`].
pub const SESSION_ENDED_REASON: &str = "the session ended: log in again";

/// How long a login lasts.
pub const SESSION_TTL_MS: u64 = 30 * 24 * 3600 * 1000;

/// Shortest and longest user names, in characters.
pub const NAME_LENGTH: std::ops::RangeInclusive<usize> = 3..=20;

/// Shortest password, in characters.
pub const PASSWORD_MIN_CHARS: usize = 8;

/// Longest password, in bytes: hashing cost must not be the client's to choose.
pub const PASSWORD_MAX_BYTES: usize = 1024;

/// Guests' names start with this; no account name may.
pub const GUEST_PREFIX: &str = "Guest-";

/// Password hashes computed at once (each takes about 19 MiB for a few tens of milliseconds).
const HASHING_SLOTS: usize = 2;

/// Hashes waiting for a slot before further logins are refused.
const HASHING_QUEUE: usize = 32;

/// The memory Argon2 works in, one buffer a hashing slot, kept from one hash to the next.
/// Allocating 19 MiB for every hash let the allocator keep each thread's last buffers (a
/// flood of failed logins took the server from 88 to 469 MB and it stayed there); a fixed
/// pool holds at most one buffer a hashing slot, whatever the flood.
#[derive(Debug, Default)]
pub struct HashingMemory(Mutex<Vec<Vec<Block>>>);

impl HashingMemory {
    /// Runs `work` on at least `blocks` blocks: a pooled buffer when one is free and large
    /// enough (the default parameters'), else a buffer of its own for this hash alone.
    fn with<T>(&self, blocks: usize, work: impl FnOnce(&mut [Block]) -> T) -> T {
        let pooled = self.0.lock().ok().and_then(|mut pool| pool.pop());
        let mut memory = match pooled {
            Some(memory) if memory.len() >= blocks => memory,
            other => {
                if let Some(memory) = other {
                    self.give_back(memory);
                }
                vec![Block::default(); blocks]
            }
        };
        let result = work(&mut memory);
        if memory.len() == Params::DEFAULT.block_count() {
            self.give_back(memory);
        }
        result
    }

    fn give_back(&self, memory: Vec<Block>) {
        if let Ok(mut pool) = self.0.lock()
            && pool.len() < HASHING_SLOTS
        {
            pool.push(memory);
        }
    }
}

/// The Argon2id hash of `password` with a fresh salt and the default parameters, as a PHC
/// string (what `argon2`'s `PasswordHasher` writes), computed in `memory`.
pub fn hash_password_in(
    memory: &HashingMemory,
    password: &[u8],
) -> Result<String, argon2::password_hash::Error> {
    let argon2 = Argon2::default();
    let params = argon2.params().clone();
    let salt = SaltString::generate(&mut OsRng);
    let mut salt_buffer = [0u8; 64];
    let raw_salt = salt.as_salt().decode_b64(&mut salt_buffer)?;
    let output_len = params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    let output = Output::init_with(output_len, |out| {
        memory
            .with(params.block_count(), |blocks| {
                argon2.hash_password_into_with_memory(password, raw_salt, out, blocks)
            })
            .map_err(Into::into)
    })?;
    Ok(PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::default().into()),
        params: ParamsString::try_from(&params)?,
        salt: Some(salt.as_salt()),
        hash: Some(output),
    }
    .to_string())
}

/// Whether `password` is the one `phc` (an Argon2 PHC string) was made from, computed in
/// `memory`; `false` for a string that is no Argon2 hash.
pub fn verify_password_in(memory: &HashingMemory, password: &[u8], phc: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(phc) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm) else {
        return false;
    };
    let version = match parsed.version.map(Version::try_from).transpose() {
        Ok(version) => version.unwrap_or_default(),
        Err(_) => return false,
    };
    let Ok(params) = Params::try_from(&parsed) else {
        return false;
    };
    let mut salt_buffer = [0u8; 64];
    let Ok(raw_salt) = salt.decode_b64(&mut salt_buffer) else {
        return false;
    };
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let mut computed = vec![0u8; expected.len()];
    let hashed = memory.with(params.block_count(), |blocks| {
        argon2.hash_password_into_with_memory(password, raw_salt, &mut computed, blocks)
    });
    // `Output`'s comparison takes the same time wherever the bytes differ.
    hashed.is_ok() && Output::new(&computed).is_ok_and(|computed| computed == expected)
}

/// A logged-in player, as requests see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Account {
    /// The account's id (internal: players are known by name).
    #[serde(skip)]
    pub id: String,
    /// The user name as chosen.
    pub username: String,
    /// When the account was made, unix milliseconds.
    pub created_at: i64,
    /// Whether the account is an administrator's.
    pub admin: bool,
    /// Whether an administrator closed the account (a logged-in account never is).
    #[serde(skip)]
    pub closed: bool,
}

impl From<AccountRow> for Account {
    fn from(row: AccountRow) -> Account {
        Account {
            admin: row.is_admin(),
            closed: row.closed_at != 0,
            id: row.id,
            username: row.name,
            created_at: row.created_at,
        }
    }
}

/// Why a name cannot be an account's, or `Ok`.
pub fn check_username(name: &str) -> Result<(), AccountError> {
    let length = name.chars().count();
    if !NAME_LENGTH.contains(&length) {
        return Err(AccountError::NameLength { length });
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(AccountError::NameCharacters { bad });
    }
    if name
        .to_ascii_lowercase()
        .starts_with(&GUEST_PREFIX.to_ascii_lowercase())
    {
        return Err(AccountError::GuestName);
    }
    Ok(())
}

/// Why a password cannot be used, or `Ok`.
pub fn check_password(password: &str) -> Result<(), AccountError> {
    if password.chars().count() < PASSWORD_MIN_CHARS {
        return Err(AccountError::PasswordTooShort);
    }
    if password.len() > PASSWORD_MAX_BYTES {
        return Err(AccountError::PasswordTooLong);
    }
    Ok(())
}

/// The name of the cookie that keeps a guest's name in their browser: a secret whose hash is
/// the name, so a guest keeps one name from game to game (to be followed, rematched,
/// recognised). The name is a label, not a credential: seats are held by their tokens.
pub const GUEST_COOKIE: &str = "tsubame_guest";

/// How long a browser keeps its guest name: a year.
pub const GUEST_COOKIE_MAX_AGE_S: u64 = 365 * 24 * 3600;

/// A new guest secret, for a browser that has none.
pub fn new_guest_secret() -> String {
    random_hex(16)
}

/// Whether a cookie's value is a guest secret as this server makes them.
pub fn is_guest_secret(value: &str) -> bool {
    value.len() == 32
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The guest name of a browser's secret: `Guest-` and five letters or digits drawn from the
/// secret's SHA-256, the same every time.
pub fn guest_name_of(secret: &str) -> String {
    use sha2::{Digest, Sha256};
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let digest = Sha256::digest(secret.as_bytes());
    let tail: String = digest
        .iter()
        .take(5)
        .map(|byte| char::from(ALPHABET[usize::from(byte % 32)]))
        .collect();
    format!("{GUEST_PREFIX}{tail}")
}

/// A name for a guest drawn at random: `Guest-` and five letters or digits.
pub fn guest_name() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::thread_rng();
    let tail: String = (0..5)
        .map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())]))
        .collect();
    format!("{GUEST_PREFIX}{tail}")
}

fn random_hex(bytes: usize) -> String {
    let mut rng = rand::thread_rng();
    (0..bytes)
        .map(|_| format!("{:02x}", rng.r#gen::<u8>()))
        .collect()
}

/// A new session: its value (for the cookie, shown once) and the account.
#[derive(Debug)]
pub struct NewSession {
    /// The cookie's value.
    pub token: String,
    /// Who logged in.
    pub account: Account,
}

/// Sessions that ended: one session, or every session of an account but one. Each socket
/// and event stream opened by a session hears it (on every instance: it is announced on
/// [`SESSION_CHANNEL`](crate::store::SESSION_CHANNEL) like a move) and closes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEnd {
    /// The instance that ended them, which skips its own announcement.
    pub from: String,
    /// One session that ended, by the SHA-256 hash of its value.
    #[serde(default)]
    pub session: Option<String>,
    /// The account every session of which ended...
    #[serde(default)]
    pub account: Option<String>,
    /// ...but this one (by hash): a password change keeps the session that made it.
    #[serde(default)]
    pub keep: Option<String>,
}

impl SessionEnd {
    /// Whether this ends the session with the hash `session` of the account `account`.
    pub fn ends(&self, session: &str, account: &str) -> bool {
        self.session.as_deref() == Some(session)
            || (self.account.as_deref() == Some(account) && self.keep.as_deref() != Some(session))
    }
}

/// What a socket or event stream opened by a logged-in session watches: that session's end
/// (logged out here or elsewhere, a password change, the account closed or deleted) and its
/// expiry.
pub struct SessionWatch {
    token: String,
    hash: String,
    account: String,
    expires: tokio::time::Instant,
    ends: broadcast::Receiver<Arc<SessionEnd>>,
    /// Whether the database is to be asked whether the session still holds: at first (an end
    /// between the session's lookup and the subscription is heard by neither) and after
    /// announcements were missed. Cleared only once the answer has come, so that a look cut
    /// short (the socket's loop took another branch) is made again.
    recheck: bool,
    /// Whether the announcements have stopped (the server is stopping).
    deaf: bool,
}

impl SessionWatch {
    /// Returns once the session has ended or expired; never for a session that lasts.
    pub async fn ended(&mut self, accounts: &Accounts) {
        loop {
            if self.recheck {
                // An end announced while the database is asked counts at once: a socket's
                // loop that polls this first must not act on a message sent after the end
                // because the look was still under way.
                let looked = tokio::select! {
                    biased;
                    end = self.ends.recv(), if !self.deaf => Err(end),
                    answer = accounts.session(&self.token, unix_now_ms()) => Ok(answer),
                };
                match looked {
                    Err(Ok(end)) if end.ends(&self.hash, &self.account) => return,
                    // Another session's end, or ends missed: the look goes on.
                    Err(Ok(_)) | Err(Err(broadcast::error::RecvError::Lagged(_))) => {}
                    // No more announcements (the server is stopping): the database alone.
                    Err(Err(broadcast::error::RecvError::Closed)) => self.deaf = true,
                    Ok(Ok(Some(_))) => self.recheck = false,
                    Ok(Ok(None)) => return,
                    // The database cannot say now: ask again in a moment.
                    Ok(Err(_)) => tokio::time::sleep(Duration::from_secs(1)).await,
                }
                continue;
            }
            tokio::select! {
                end = self.ends.recv() => match end {
                    Ok(end) if end.ends(&self.hash, &self.account) => return,
                    Ok(_) => {}
                    // Ends were missed: ask the database whether this one still holds.
                    Err(broadcast::error::RecvError::Lagged(_)) => self.recheck = true,
                    Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
                },
                _ = tokio::time::sleep_until(self.expires) => return,
            }
        }
    }
}

fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// A session end as its announcement's text.
fn notice_text(end: &SessionEnd) -> String {
    serde_json::to_string(end).unwrap_or_default()
}

/// Returns once the watched session has ended; never without one (a guest's socket).
pub async fn session_ended(watch: &mut Option<SessionWatch>, accounts: &Accounts) {
    match watch {
        Some(watch) => watch.ended(accounts).await,
        None => std::future::pending().await,
    }
}

/// Accounts and sessions over the database, with the limits on logins.
pub struct Accounts {
    store: Store,
    /// Where ended sessions are announced to this instance's sockets and streams.
    ended: broadcast::Sender<Arc<SessionEnd>>,
    /// This instance's name in its announcements.
    instance: String,
    logins_by_name: DefaultKeyedRateLimiter<String>,
    logins_by_address: DefaultKeyedRateLimiter<IpAddr>,
    signups_by_address: DefaultKeyedRateLimiter<IpAddr>,
    hashing: Semaphore,
    hashing_waiting: AtomicUsize,
    /// A hash of no one's password, checked against when a name is unknown so that the answer
    /// takes as long as for a wrong password.
    decoy_hash: OnceLock<String>,
    session_ttl_ms: u64,
    /// Argon2's working memory, reused.
    memory: Arc<HashingMemory>,
}

/// Limits on sign-ups and logins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccountLimits {
    /// Login attempts for one user name in a burst, then one per `login_period`.
    pub logins_per_name: u32,
    /// Login attempts from one address in a burst, then one per `login_period` / 4.
    pub logins_per_address: u32,
    /// The time one more login attempt is allowed after.
    pub login_period: Duration,
    /// Sign-ups from one address in a burst, then one per `signup_period`.
    pub signups_per_address: u32,
    /// The time one more sign-up is allowed after.
    pub signup_period: Duration,
    /// How long a login lasts, milliseconds.
    pub session_ttl_ms: u64,
}

impl Default for AccountLimits {
    fn default() -> Self {
        AccountLimits {
            logins_per_name: 5,
            logins_per_address: 20,
            login_period: Duration::from_secs(60),
            signups_per_address: 5,
            signup_period: Duration::from_secs(600),
            session_ttl_ms: SESSION_TTL_MS,
        }
    }
}

fn quota(burst: u32, period: Duration) -> Quota {
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    Quota::with_period(period.max(Duration::from_millis(1)))
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
        .allow_burst(burst)
}

impl Accounts {
    /// Accounts over `store` with these limits; ended sessions are told on `ended` and
    /// announced to the other instances as coming from `instance`.
    pub fn new(
        store: Store,
        limits: AccountLimits,
        ended: broadcast::Sender<Arc<SessionEnd>>,
        instance: String,
    ) -> Accounts {
        Accounts {
            store,
            ended,
            instance,
            logins_by_name: RateLimiter::keyed(quota(limits.logins_per_name, limits.login_period)),
            logins_by_address: RateLimiter::keyed(quota(
                limits.logins_per_address,
                limits.login_period / 4,
            )),
            signups_by_address: RateLimiter::keyed(quota(
                limits.signups_per_address,
                limits.signup_period,
            )),
            hashing: Semaphore::new(HASHING_SLOTS),
            hashing_waiting: AtomicUsize::new(0),
            decoy_hash: OnceLock::new(),
            session_ttl_ms: limits.session_ttl_ms,
            memory: Arc::default(),
        }
    }

    /// Runs a password hash or check on the blocking pool, a few at a time; refuses (429)
    /// when too many already wait.
    async fn hashing<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, AccountError> {
        /// Counts a waiting hash until dropped: also when the request that waits goes away.
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        let waiting = Waiting(&self.hashing_waiting);
        if self.hashing_waiting.fetch_add(1, Ordering::SeqCst) >= HASHING_QUEUE {
            return Err(AccountError::HashingBusy);
        }
        let permit = self.hashing.acquire().await;
        drop(waiting);
        let _permit =
            permit.map_err(|_| AccountError::Hashing("password hashing stopped".into()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| AccountError::Hashing(format!("password hashing failed: {e}")))
    }

    async fn hash_password(&self, password: String) -> Result<String, AccountError> {
        let memory = self.memory.clone();
        self.hashing(move || {
            hash_password_in(&memory, password.as_bytes())
                .map_err(|e| AccountError::Hashing(format!("password hashing failed: {e}")))
        })
        .await?
    }

    async fn verify_password(&self, password: String, hash: String) -> Result<bool, AccountError> {
        let memory = self.memory.clone();
        self.hashing(move || verify_password_in(&memory, password.as_bytes(), &hash))
            .await
    }

    async fn decoy(&self) -> Result<String, AccountError> {
        if let Some(hash) = self.decoy_hash.get() {
            return Ok(hash.clone());
        }
        let hash = self.hash_password(random_hex(16)).await?;
        Ok(self.decoy_hash.get_or_init(|| hash).clone())
    }

    async fn open_session(&self, account: Account, now: u64) -> Result<NewSession, AccountError> {
        let token = random_hex(32);
        let expires = now.saturating_add(self.session_ttl_ms);
        self.store
            .insert_session(&token_hash(&token), &account.id, now as i64, expires as i64)
            .await
            .map_err(AccountError::database)?;
        Ok(NewSession { token, account })
    }

    /// Makes an account and logs it in.
    pub async fn signup(
        &self,
        name: &str,
        password: &str,
        client: IpAddr,
        now: u64,
    ) -> Result<NewSession, AccountError> {
        check_username(name)?;
        check_password(password)?;
        admit(&self.signups_by_address, &client)
            .map_err(|wait| AccountError::TooManySignups { wait })?;
        if self
            .store
            .account_by_name(name)
            .await
            .map_err(AccountError::database)?
            .is_some()
        {
            return Err(AccountError::NameTaken {
                name: name.to_string(),
            });
        }
        let row = AccountRow::player(
            random_hex(12),
            name.to_string(),
            self.hash_password(password.to_string()).await?,
            now as i64,
        );
        // Two sign-ups for one name at once: the database's unique key decides.
        if !self
            .store
            .insert_account(&row)
            .await
            .map_err(AccountError::database)?
        {
            return Err(AccountError::NameTaken {
                name: name.to_string(),
            });
        }
        tracing::info!(name, "new account");
        self.open_session(row.into(), now).await
    }

    /// Checks a name and password and opens a session.
    pub async fn login(
        &self,
        name: &str,
        password: &str,
        client: IpAddr,
        now: u64,
    ) -> Result<NewSession, AccountError> {
        admit(&self.logins_by_address, &client)
            .map_err(|wait| AccountError::TooManyLoginsFromAddress { wait })?;
        // Names too long to be anyone's share one key, so they cannot fill the limiter.
        let key: String = crate::store::name_key(name)
            .chars()
            .take(*NAME_LENGTH.end() + 1)
            .collect();
        admit(&self.logins_by_name, &key)
            .map_err(|wait| AccountError::TooManyLoginsForName { wait })?;
        if password.len() > PASSWORD_MAX_BYTES {
            return Err(AccountError::WrongLogin);
        }
        // A deleted account is no one's: its name gets the answer an unknown name gets.
        let account = if NAME_LENGTH.contains(&name.chars().count()) {
            self.store
                .account_by_name(name)
                .await
                .map_err(AccountError::database)?
                .filter(|row| row.deleted_at == 0)
        } else {
            None
        };
        let (hash, account) = match account {
            Some(row) => (row.password_hash.clone(), Some(row)),
            None => (self.decoy().await?, None),
        };
        let matches = self.verify_password(password.to_string(), hash).await?;
        match account {
            Some(row) if matches && row.closed_at != 0 => Err(AccountError::Closed),
            Some(row) if matches => {
                // A good moment to forget old sessions; failing to is no reason to refuse.
                if let Err(e) = self.store.delete_expired_sessions(now as i64).await {
                    tracing::warn!("could not delete expired sessions: {e}");
                }
                self.open_session(row.into(), now).await
            }
            _ => Err(AccountError::WrongLogin),
        }
    }

    /// Ends the session with this cookie value (nothing when there is none).
    pub async fn logout(&self, token: &str) -> Result<(), AccountError> {
        // Only a session that was there is announced: a flood of made-up cookies wakes nobody.
        if token.len() != 64 {
            return Ok(());
        }
        let end = self.session_end(Some(token_hash(token)), None, None);
        let ended = self
            .store
            .delete_session(&token_hash(token), &notice_text(&end))
            .await
            .map_err(AccountError::database)?;
        if ended {
            self.told_ended(end);
        }
        Ok(())
    }

    /// The account logged in with this cookie value, unless the session ended or expired.
    pub async fn session(&self, token: &str, now: u64) -> Result<Option<Account>, AccountError> {
        Ok(self
            .session_until(token, now)
            .await?
            .map(|(account, _)| account))
    }

    /// The account logged in with this cookie value and when its session expires (unix
    /// milliseconds), unless the session ended or expired.
    pub async fn session_until(
        &self,
        token: &str,
        now: u64,
    ) -> Result<Option<(Account, u64)>, AccountError> {
        if token.len() != 64 {
            return Ok(None);
        }
        Ok(self
            .store
            .session_account(&token_hash(token), now as i64)
            .await
            .map_err(AccountError::database)?
            .map(|(row, expires)| (Account::from(row), expires.max(0) as u64)))
    }

    /// A watch on the end of the session with this cookie value, expiring at `expires` (unix
    /// milliseconds), for a socket or stream it opens.
    pub fn watch_session(&self, token: &str, account: &Account, expires: u64) -> SessionWatch {
        let left = expires.saturating_sub(unix_now_ms());
        SessionWatch {
            token: token.to_string(),
            hash: token_hash(token),
            account: account.id.clone(),
            expires: tokio::time::Instant::now() + Duration::from_millis(left),
            ends: self.ended.subscribe(),
            recheck: true,
            deaf: false,
        }
    }

    /// What announces that these sessions ended: a notice for the other instances
    /// ([`Self::told_ended`] tells this one's sockets once the change is stored).
    fn session_end(
        &self,
        session: Option<String>,
        account: Option<&Account>,
        keep: Option<String>,
    ) -> SessionEnd {
        SessionEnd {
            from: self.instance.clone(),
            session,
            account: account.map(|a| a.id.clone()),
            keep,
        }
    }

    /// Tells this instance's sockets and streams that sessions ended.
    fn told_ended(&self, end: SessionEnd) {
        // Nobody listening is fine.
        let _ = self.ended.send(Arc::new(end));
    }

    /// Ends every session of an account an administrator closed, and tells its sockets.
    pub async fn close_by_administrator(&self, name: &str, now: u64) -> Result<bool, AccountError> {
        let account = self.by_name(name).await?;
        let end = self.session_end(None, account.as_ref(), None);
        let closed = self
            .store
            .set_closed(name, now.max(1) as i64, &notice_text(&end))
            .await
            .map_err(AccountError::database)?;
        if closed {
            self.told_ended(end);
        }
        Ok(closed)
    }

    /// The account of a name, without regard to case (none for a deleted account).
    pub async fn by_name(&self, name: &str) -> Result<Option<Account>, AccountError> {
        if !NAME_LENGTH.contains(&name.chars().count()) {
            return Ok(None);
        }
        Ok(self
            .store
            .account_by_name(name)
            .await
            .map_err(AccountError::database)?
            .filter(|row| row.deleted_at == 0)
            .map(Account::from))
    }

    /// Checks that a logged-in player knows their password before a change that needs it,
    /// with the limit of login attempts on their name: a session left open on someone else's
    /// screen cannot be used to guess it.
    async fn confirm_password(
        &self,
        account: &Account,
        password: &str,
    ) -> Result<(), AccountError> {
        let key = crate::store::name_key(&account.username);
        admit(&self.logins_by_name, &key)
            .map_err(|wait| AccountError::TooManyPasswordAttempts { wait })?;
        if password.len() > PASSWORD_MAX_BYTES {
            return Err(AccountError::WrongPassword);
        }
        let row = self
            .store
            .account_by_name(&account.username)
            .await
            .map_err(AccountError::database)?
            .filter(|row| row.id == account.id && row.deleted_at == 0)
            .ok_or(AccountError::Gone)?;
        if self
            .verify_password(password.to_string(), row.password_hash)
            .await?
        {
            Ok(())
        } else {
            Err(AccountError::WrongPassword)
        }
    }

    /// Changes a logged-in player's password, given the current one, and ends every other
    /// session of the account (the one making the change goes on).
    pub async fn change_password(
        &self,
        account: &Account,
        session: &str,
        current: &str,
        new: &str,
    ) -> Result<(), AccountError> {
        check_password(new)?;
        self.confirm_password(account, current).await?;
        let hash = self.hash_password(new.to_string()).await?;
        let end = self.session_end(None, Some(account), Some(token_hash(session)));
        self.store
            .change_password(&account.id, &hash, &token_hash(session), &notice_text(&end))
            .await
            .map_err(AccountError::database)?;
        self.told_ended(end);
        tracing::info!(name = account.username, "password changed");
        Ok(())
    }

    /// Ends every session of an account, the asking one included; returns how many ended.
    pub async fn logout_everywhere(&self, account: &Account) -> Result<u64, AccountError> {
        let end = self.session_end(None, Some(account), None);
        let ended = self
            .store
            .delete_sessions_of(&account.id, &notice_text(&end))
            .await
            .map_err(AccountError::database)?;
        self.told_ended(end);
        Ok(ended)
    }

    /// Deletes a logged-in player's account, given its password: refused while one of its
    /// games is waiting or being played. Its finished games stay, under [`DELETED_NAME`].
    ///
    /// [`DELETED_NAME`]: crate::store::DELETED_NAME
    pub async fn delete(
        &self,
        account: &Account,
        password: &str,
        now: u64,
    ) -> Result<(), AccountError> {
        self.confirm_password(account, password).await?;
        let unfinished = self
            .store
            .account_unfinished_game_count(&account.id)
            .await
            .map_err(AccountError::database)?;
        if unfinished > 0 {
            return Err(AccountError::GamesUnfinished { count: unfinished });
        }
        let end = self.session_end(None, Some(account), None);
        self.store
            .delete_account(&account.id, now as i64, &notice_text(&end))
            .await
            .map_err(AccountError::database)?;
        self.told_ended(end);
        tracing::info!(name = account.username, "account deleted");
        Ok(())
    }

    /// How long a login lasts, milliseconds.
    pub fn session_ttl_ms(&self) -> u64 {
        self.session_ttl_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pooled hashing writes what `argon2`'s own hasher writes and reads what it
    /// wrote, refuses wrong passwords and strings that are no hashes, and keeps at most one
    /// buffer per hashing slot.
    #[test]
    fn pooled_hashing_agrees_with_argon2_and_keeps_its_memory_bounded() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let memory = HashingMemory::default();
        let ours = hash_password_in(&memory, b"correct horse").unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok()
        );
        assert!(
            Argon2::default()
                .verify_password(b"wrong horse", &parsed)
                .is_err()
        );
        let salt = SaltString::generate(&mut OsRng);
        let theirs = Argon2::default()
            .hash_password(b"battery staple", &salt)
            .unwrap()
            .to_string();
        assert!(
            ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{ours}"
        );
        assert!(verify_password_in(&memory, b"battery staple", &theirs));
        assert!(!verify_password_in(&memory, b"battery stapler", &theirs));
        assert!(verify_password_in(&memory, b"correct horse", &ours));
        for garbage in [
            "",
            "$argon2id$",
            "plain text",
            "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$",
        ] {
            assert!(!verify_password_in(&memory, b"x", garbage), "{garbage}");
        }
        // Hashes with other parameters (a smaller memory cost) are read with memory of
        // their own; the pool keeps only default-sized buffers, at most one a slot.
        let small = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(64, 1, 1, None).unwrap(),
        )
        .hash_password(b"small", &salt)
        .unwrap()
        .to_string();
        assert!(verify_password_in(&memory, b"small", &small));
        std::thread::scope(|scope| {
            for _ in 0..6 {
                scope.spawn(|| assert!(verify_password_in(&memory, b"correct horse", &ours)));
            }
        });
        let pool = memory.0.lock().unwrap();
        assert!(
            !pool.is_empty() && pool.len() <= HASHING_SLOTS,
            "{}",
            pool.len()
        );
        assert!(
            pool.iter()
                .all(|buffer| buffer.len() == Params::DEFAULT.block_count())
        );
    }

    #[test]
    fn user_names_follow_the_rules() {
        for good in ["abc", "Sente_2", "a-b", "x".repeat(20).as_str()] {
            assert!(check_username(good).is_ok(), "{good}");
        }
        for (bad, length) in [("ab", 2), ("", 0), (&"x".repeat(21), 21)] {
            assert!(
                matches!(check_username(bad), Err(AccountError::NameLength { length: l }) if l == length),
                "{bad}"
            );
        }
        for (bad, character) in [("a b", ' '), ("名人名人", '名'), ("<script>", '<')] {
            assert!(
                matches!(check_username(bad), Err(AccountError::NameCharacters { bad: c }) if c == character),
                "{bad}"
            );
        }
        for bad in ["guest-abc", "GUEST-x1"] {
            assert!(
                matches!(check_username(bad), Err(AccountError::GuestName)),
                "{bad}"
            );
        }
    }

    #[test]
    fn passwords_are_long_enough_and_bounded() {
        assert!(matches!(
            check_password("1234567"),
            Err(AccountError::PasswordTooShort)
        ));
        assert!(check_password("12345678").is_ok());
        assert!(check_password("駒駒駒駒駒駒駒駒").is_ok());
        assert!(matches!(
            check_password(&"x".repeat(PASSWORD_MAX_BYTES + 1)),
            Err(AccountError::PasswordTooLong)
        ));
    }

    #[test]
    fn guest_names_are_not_account_names() {
        let name = guest_name();
        assert!(name.starts_with(GUEST_PREFIX));
        assert!(check_username(&name).is_err());
        let secret = new_guest_secret();
        assert!(is_guest_secret(&secret));
        let kept = guest_name_of(&secret);
        assert_eq!(kept, guest_name_of(&secret), "a browser keeps its name");
        assert_eq!(kept.len(), name.len());
        assert!(check_username(&kept).is_err());
        assert!(!is_guest_secret("Guest-abcde"));
        assert!(!is_guest_secret(&"A".repeat(32)));
    }
}
