-- A finished game's analysis by the server's engine, kept with the game once made: anyone
-- opening the game sees it without a second search. `positions` is JSON, one entry per
-- position from the start: the engine's score for the side to move (`cp 35`, `mate -3`; null
-- where the game is over) and its best line as USI text.
CREATE TABLE game_analyses (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    depth BIGINT NOT NULL,
    movetime_ms BIGINT NOT NULL,
    positions TEXT NOT NULL,
    made_at BIGINT NOT NULL
);
