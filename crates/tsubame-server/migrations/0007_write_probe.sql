-- One row the server rewrites now and then to learn whether the database takes writes (a
-- full disk, a read-only or failed database): `/readyz` answers 503 while it does not, and
-- the server takes writes again by itself once the probe succeeds.
CREATE TABLE write_probe (
    id BIGINT PRIMARY KEY,
    written_at BIGINT NOT NULL
);
