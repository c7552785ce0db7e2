-- Expiry chooses games by the minute of their last change, not the instant.
-- `updated_at` changes with every move; an index on it (games_unchanged)
-- made every move's update of its game row write a new entry in each of the
-- table's indexes (on PostgreSQL: no heap-only update). `updated_minute`
-- (the first 16 characters of `updated_at`, `2026-11-24T04:35`) changes at
-- most once a minute per game, so a move's update touches no indexed column
-- in between. The sweeper's query keeps its exact cutoff on `updated_at`
-- and adds the implied one on `updated_minute`, which the index serves.
ALTER TABLE games ADD COLUMN updated_minute TEXT;
UPDATE games SET updated_minute = substr(updated_at, 1, 16);
DROP INDEX games_unchanged;
CREATE INDEX games_idle ON games (status, updated_minute);
-- Room on each page for the new version of a row, so that it stays on the
-- page of the old one (a heap-only update needs that).
ALTER TABLE games SET (fillfactor = 80);
