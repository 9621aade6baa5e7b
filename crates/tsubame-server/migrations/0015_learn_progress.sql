-- How far an account has come on each game's learn path: a lesson done (`lesson capture`, 1)
-- or the stars of a piece's drill (`F alone`, 1 to 3), the best kept.
CREATE TABLE learn_progress (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    variant TEXT NOT NULL,
    item TEXT NOT NULL,
    stars BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, variant, item)
);
