-- Glicko-2 ratings per account, game (tori, wa, wa-nodrops, tenjiku) and speed (blitz, rapid,
-- classical, correspondence). Ratings and deviations are kept in thousandths of a point and
-- volatilities in billionths, so both databases store them as exact integers.
CREATE TABLE ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game TEXT NOT NULL,
    speed TEXT NOT NULL,
    rating_milli BIGINT NOT NULL,
    deviation_milli BIGINT NOT NULL,
    volatility_nano BIGINT NOT NULL,
    games BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, game, speed)
);

-- Every rating after every rated game: one row per player and game, so a game is never
-- rated twice.
CREATE TABLE rating_history (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id TEXT NOT NULL REFERENCES games (id),
    game TEXT NOT NULL,
    speed TEXT NOT NULL,
    rating_milli BIGINT NOT NULL,
    deviation_milli BIGINT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (account_id, game_id)
);

CREATE INDEX rating_history_by_account ON rating_history (account_id, at);

-- The ratings each seat had when the game started (whole points), whether they were
-- provisional, and once a rated game is over, the change its result made.
ALTER TABLE games ADD COLUMN sente_rating BIGINT;
ALTER TABLE games ADD COLUMN gote_rating BIGINT;
ALTER TABLE games ADD COLUMN sente_provisional BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN gote_provisional BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN sente_rating_change BIGINT;
ALTER TABLE games ADD COLUMN gote_rating_change BIGINT;
-- A seek's rating range: who may join it.
ALTER TABLE games ADD COLUMN rating_min BIGINT;
ALTER TABLE games ADD COLUMN rating_max BIGINT;
