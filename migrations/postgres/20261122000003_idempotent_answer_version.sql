-- The version of the game an idempotent answer carries (its ETag), stored
-- beside the answer instead of being read back out of its JSON body.
ALTER TABLE idempotency ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
UPDATE idempotency SET version = COALESCE((body::jsonb #>> '{game,version}')::bigint, 0);
