-- Arena tournaments: a fixed time in which joined players are paired again as soon as their
-- game ends. Times are unix milliseconds. One instance at a time directs a tournament
-- (starts it, scores its games, pairs its players, ends it): the one whose claim, renewed
-- while it works, has not run out.
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    variant TEXT NOT NULL,
    options TEXT NOT NULL,
    time_control TEXT NOT NULL,
    rated INTEGER NOT NULL,
    starts_at BIGINT NOT NULL,
    ends_at BIGINT NOT NULL,
    status TEXT NOT NULL,
    created_by TEXT,
    schedule_key TEXT UNIQUE,
    created_at BIGINT NOT NULL,
    claimed_by TEXT,
    claimed_until BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX tournaments_by_status ON tournaments (status, starts_at);

-- Who plays in one: their score, their streak of wins, the game they are in (none while
-- waiting to be paired), and whether they take part now (a withdrawn player is not paired).
CREATE TABLE tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    username TEXT NOT NULL,
    rating BIGINT NOT NULL,
    points BIGINT NOT NULL DEFAULT 0,
    games BIGINT NOT NULL DEFAULT 0,
    wins BIGINT NOT NULL DEFAULT 0,
    streak BIGINT NOT NULL DEFAULT 0,
    sente_games BIGINT NOT NULL DEFAULT 0,
    last_opponent TEXT,
    game_id TEXT,
    active INTEGER NOT NULL DEFAULT 1,
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, account_id)
);

-- Each game a tournament paired, and once it is over what it earned each side (counted:
-- whether it ended before the tournament did).
CREATE TABLE tournament_games (
    game_id TEXT PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    sente_account TEXT NOT NULL,
    gote_account TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    scored INTEGER NOT NULL DEFAULT 0,
    counted INTEGER NOT NULL DEFAULT 0,
    sente_points BIGINT NOT NULL DEFAULT 0,
    gote_points BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX tournament_games_by_tournament ON tournament_games (tournament_id, scored);

-- A tournament's game knows its tournament (a first move not made in time loses it instead
-- of aborting it) and which side berserked (half their main time).
ALTER TABLE games ADD COLUMN tournament_id TEXT;
ALTER TABLE games ADD COLUMN sente_berserk INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN gote_berserk INTEGER NOT NULL DEFAULT 0;
