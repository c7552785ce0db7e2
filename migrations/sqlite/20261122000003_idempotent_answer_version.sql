-- The version of the game an idempotent answer carries (its ETag), stored
-- beside the answer instead of being read back out of its JSON body.
ALTER TABLE idempotency ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
UPDATE idempotency SET version = COALESCE(json_extract(body, '$.game.version'), 0);
