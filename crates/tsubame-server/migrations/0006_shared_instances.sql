-- Several server instances on one database. Every change to a game is written together with
-- the version it replaces, so that of two instances changing a game at once only one succeeds;
-- the other reloads the game. The state a change may touch is stored with it (the running
-- turn's start, offers, whether the computer's search waits), and when the game next needs
-- looking at (a flag, an expiry, a computer's move), so that any instance can take that up.
ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN turn_started_at BIGINT;
ALTER TABLE games ADD COLUMN draw_offer TEXT;
ALTER TABLE games ADD COLUMN rematch_offer TEXT;
ALTER TABLE games ADD COLUMN engine_waiting BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN due_at BIGINT;
ALTER TABLE games ADD COLUMN claimed_until BIGINT NOT NULL DEFAULT 0;

CREATE INDEX games_by_due ON games (due_at);
