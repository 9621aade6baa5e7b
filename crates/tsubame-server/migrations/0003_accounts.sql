-- Player accounts and their login sessions. Passwords are kept only as Argon2id hashes (PHC
-- strings) and session values only as SHA-256 hashes (lowercase hex), so a copy of the database
-- lets nobody log in as anyone.
CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    -- The name in lowercase: names are unique without regard to case.
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX sessions_by_expiry ON sessions (expires_at);

-- Who sits on each seat: the account (none for guests and the computer) and the name shown.
ALTER TABLE games ADD COLUMN sente_account TEXT;
ALTER TABLE games ADD COLUMN gote_account TEXT;
ALTER TABLE games ADD COLUMN sente_name TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN gote_name TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN rated BIGINT NOT NULL DEFAULT 0;

CREATE INDEX games_by_sente_account ON games (sente_account, created_at);
CREATE INDEX games_by_gote_account ON games (gote_account, created_at);
