-- A challenge is a game created for one named player: its open seat can be taken by that
-- account alone, which may also decline it. The account is kept while the game waits and after.
ALTER TABLE games ADD COLUMN challenged_account TEXT;

CREATE INDEX games_by_challenged ON games (challenged_account, status);
