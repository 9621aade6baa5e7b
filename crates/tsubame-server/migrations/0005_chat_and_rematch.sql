-- Each game's chat: the players' room and the spectators' room, kept with the game.
CREATE TABLE chat (
    id TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games (id),
    room TEXT NOT NULL,
    author TEXT NOT NULL,
    account_id TEXT,
    body TEXT NOT NULL,
    at BIGINT NOT NULL
);

CREATE INDEX chat_by_game ON chat (game_id, room, at);

-- The game a rematch of this one started, once both players agreed.
ALTER TABLE games ADD COLUMN rematch_id TEXT;
