-- A long job's progress as its worker last told it with a renewal (a game's analysis: the
-- positions done), so that anyone asking sees how far it is.
ALTER TABLE engine_jobs ADD COLUMN progress BIGINT NOT NULL DEFAULT 0;
