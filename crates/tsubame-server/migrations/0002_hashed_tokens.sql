-- Seat tokens are kept only as SHA-256 hashes (lowercase hex), so a copy of the database does
-- not let anyone move for a player. Both statements work in SQLite and PostgreSQL.
-- Rows stored before this migration hold plain tokens and keep tokens_hashed = 0: the server
-- hashes them in place when it opens the database (SQLite has no SHA-256 function of its own).
ALTER TABLE games RENAME COLUMN sente_token TO sente_token_hash;
ALTER TABLE games RENAME COLUMN gote_token TO gote_token_hash;
ALTER TABLE games ADD COLUMN tokens_hashed BIGINT NOT NULL DEFAULT 0;
