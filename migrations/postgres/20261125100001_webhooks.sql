-- Webhooks (PostgreSQL; the same columns as migrations/sqlite. See docs: README "Webhooks"): the endpoints operators register,
-- the outbox of deliveries (one row per event and endpoint, written in the
-- same transaction as the change it reports), and the log of attempts.
--
-- No foreign key from a delivery to its endpoint: a batch that recorded an
-- event for an endpoint deleted meanwhile must not fail (its moves would);
-- deliveries of a deleted endpoint are never claimed (the claim joins
-- `webhooks`) and are removed with it or by the pruning.
CREATE TABLE webhooks (
    id         TEXT    PRIMARY KEY,           -- UUID
    url        TEXT    NOT NULL,
    events     TEXT    NOT NULL,              -- JSON array of event types
    secret     TEXT    NOT NULL,              -- whsec_<base64>
    created_at TEXT    NOT NULL,
    disabled   BOOLEAN NOT NULL DEFAULT false
);

CREATE TABLE webhook_deliveries (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- order of recording
    webhook_id      TEXT    NOT NULL,
    event_id        TEXT    NOT NULL,          -- webhook-id: the same on every retry
    game_id         TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    body            TEXT    NOT NULL,          -- the JSON sent, as signed
    created_at      TEXT    NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending', -- pending | delivered | failed
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    lease_until     TEXT                       -- PostgreSQL: claimed by an instance until then
);

-- The due ones, and the first pending one of each game and endpoint (the
-- order of delivery).
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries (webhook_id, game_id, seq) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (created_at) WHERE state <> 'pending';

CREATE TABLE webhook_attempts (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id      TEXT    NOT NULL,
    event_id        TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    attempt         BIGINT NOT NULL,
    status          BIGINT,                   -- the HTTP status, NULL when none came
    error           TEXT,
    at              TEXT    NOT NULL,
    next_attempt_at TEXT                       -- NULL: delivered, or no retry left
);

CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, seq);
