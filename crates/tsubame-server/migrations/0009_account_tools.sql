-- What players and administrators do with accounts: an administrator's role, an account
-- closed by an administrator or deleted by its owner (the name stays taken, so nobody else
-- can play under it), and chat muted until a time. Every time is unix milliseconds, 0 for
-- never.
ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'player';
ALTER TABLE accounts ADD COLUMN closed_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN deleted_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN muted_until BIGINT NOT NULL DEFAULT 0;

CREATE INDEX sessions_by_account ON sessions (account_id);
