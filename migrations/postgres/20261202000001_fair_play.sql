-- Fair play and hardening (issue 67).
--
-- A player created with an `Idempotency-Key`: the key's scope (a hash of
-- the client's address and the key), the request's hash, and the salt the
-- player's key is derived from with the client's key (so that a retry gets
-- the same key back, and the key itself is never stored).
CREATE TABLE player_requests (
    scope      TEXT PRIMARY KEY,
    request    TEXT NOT NULL,
    salt       TEXT NOT NULL,
    player_id  TEXT NOT NULL REFERENCES players (id),
    created_at TEXT NOT NULL
);

-- Webhook endpoints switched off by the service: why, and since when every
-- delivery has failed (NULL: the last attempt succeeded, or none failed).
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
ALTER TABLE webhooks ADD COLUMN failing_since TEXT;
