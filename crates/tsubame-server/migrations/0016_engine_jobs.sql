-- Engine work for worker processes (`tsubame worker`), when the server is started with
-- `--engine-workers`: computer moves now, each a question in the JSON of the browser's engine.
-- A job is waiting while `answered_at` is 0 and its lease has run out (`lease_until` in the
-- past), leased to one worker key (`worker`, `lease_id`) until `lease_until`, and done once
-- answered (`answer`) or given up (`failure`, after `attempts` leases).
CREATE TABLE engine_jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    question TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    lease_id TEXT NOT NULL DEFAULT '',
    worker TEXT NOT NULL DEFAULT '',
    leased_at BIGINT NOT NULL DEFAULT 0,
    lease_until BIGINT NOT NULL DEFAULT 0,
    attempts BIGINT NOT NULL DEFAULT 0,
    answer TEXT,
    failure TEXT,
    answered_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX engine_jobs_waiting ON engine_jobs (answered_at, lease_until, created_at);

-- The keys workers present (`Authorization: Bearer`), made and revoked by `tsubame admin
-- worker-key`; only a key's SHA-256 is kept.
CREATE TABLE worker_keys (
    name TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT NOT NULL DEFAULT 0,
    last_seen BIGINT NOT NULL DEFAULT 0
);
