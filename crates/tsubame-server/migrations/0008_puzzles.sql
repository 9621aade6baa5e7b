-- Puzzles, loaded at start from the puzzle files built into the server (a puzzle already
-- here is left as it is: its rating has moved with the attempts). Moves are USI text
-- separated by spaces; themes are separated by spaces with one before and after, so that a
-- theme is found as ' name '. Ratings are Glicko-2 in thousandths, volatility in billionths.
CREATE TABLE puzzles (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    options TEXT NOT NULL,
    sfen TEXT NOT NULL,
    moves TEXT NOT NULL,
    themes TEXT NOT NULL,
    rating_milli BIGINT NOT NULL,
    deviation_milli BIGINT NOT NULL,
    volatility_nano BIGINT NOT NULL,
    plays BIGINT NOT NULL,
    solved BIGINT NOT NULL
);

CREATE INDEX puzzles_by_rating ON puzzles (variant, rating_milli);

-- An account's puzzle rating per game.
CREATE TABLE puzzle_ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    variant TEXT NOT NULL,
    rating_milli BIGINT NOT NULL,
    deviation_milli BIGINT NOT NULL,
    volatility_nano BIGINT NOT NULL,
    attempts BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, variant)
);

-- An account's first attempt at each puzzle, which alone is rated.
CREATE TABLE puzzle_attempts (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    puzzle_id TEXT NOT NULL REFERENCES puzzles (id),
    solved BIGINT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (account_id, puzzle_id)
);
