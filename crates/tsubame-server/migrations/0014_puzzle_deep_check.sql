-- The deep check of the built-in puzzles (`data/puzzles/*.deep.jsonl`), applied at every start:
-- a puzzle it leaves out is retired (no longer handed out, listed or counted; its own page and
-- attempts at it stay), and a later answer it finds as good as the solution's is right too
-- (`also`: `index:move` words, the index of the move in the line).
ALTER TABLE puzzles ADD COLUMN retired BIGINT NOT NULL DEFAULT 0;
ALTER TABLE puzzles ADD COLUMN also TEXT NOT NULL DEFAULT '';
