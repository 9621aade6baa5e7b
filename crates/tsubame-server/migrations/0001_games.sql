-- One schema for SQLite and PostgreSQL: only TEXT and BIGINT columns, flags as 0/1.
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    options TEXT NOT NULL,
    start_sfen TEXT NOT NULL,
    time_control TEXT NOT NULL,
    sente_player TEXT NOT NULL,
    gote_player TEXT NOT NULL,
    engine_level BIGINT NOT NULL,
    sente_token TEXT NOT NULL,
    gote_token TEXT NOT NULL,
    invite TEXT NOT NULL,
    public BIGINT NOT NULL,
    status TEXT NOT NULL,
    winner TEXT,
    reason TEXT,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT
);

CREATE INDEX games_by_status ON games (status, created_at);

CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply BIGINT NOT NULL,
    usi TEXT NOT NULL,
    played_at BIGINT NOT NULL,
    think_ms BIGINT NOT NULL,
    sente_ms BIGINT NOT NULL,
    sente_periods BIGINT NOT NULL,
    gote_ms BIGINT NOT NULL,
    gote_periods BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
