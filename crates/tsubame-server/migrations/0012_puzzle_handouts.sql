-- The puzzles handed to each account (by the next puzzle, the day's puzzle, a theme's next) and
-- when: only an attempt at one of them, solved no sooner than a person could play its
-- solution, is rated. Handing one out again starts its time afresh.
CREATE TABLE puzzle_handouts (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    puzzle_id TEXT NOT NULL REFERENCES puzzles (id),
    handed_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, puzzle_id)
);

CREATE INDEX puzzle_attempts_by_time ON puzzle_attempts (account_id, at);
