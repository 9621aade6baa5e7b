-- What players and administrators do with accounts: an administrator's role, an account
-- closed by an administrator or deleted by its owner (the name stays taken, so nobody else
-- can play under it), and chat muted until a time. Every time is unix milliseconds, 0 for
-- never.
ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'player';
ALTER TABLE accounts ADD COLUMN closed_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN deleted_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN muted_until BIGINT NOT NULL DEFAULT 0;

CREATE INDEX sessions_by_account ON sessions (account_id);

-- A player's blocks: whom they take no games and no chat lines from.
CREATE TABLE blocks (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    blocked_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, blocked_id)
);

-- Players reported to the administrators, and what was done.
CREATE TABLE reports (
    id TEXT PRIMARY KEY,
    reporter_id TEXT NOT NULL REFERENCES accounts (id),
    reported_id TEXT NOT NULL REFERENCES accounts (id),
    reason TEXT NOT NULL,
    body TEXT NOT NULL,
    game_id TEXT,
    created_at BIGINT NOT NULL,
    resolved_at BIGINT NOT NULL DEFAULT 0,
    resolved_by TEXT,
    resolution TEXT
);

CREATE INDEX reports_by_state ON reports (resolved_at, created_at);

-- Who is on the site: each visitor (an account, or a guest's address, hashed) and when a page
-- of theirs last said so. Rows older than a few minutes are forgotten.
CREATE TABLE presence (
    visitor TEXT PRIMARY KEY,
    account_id TEXT,
    seen_at BIGINT NOT NULL
);

CREATE INDEX presence_by_time ON presence (seen_at);
CREATE INDEX presence_by_account ON presence (account_id);
