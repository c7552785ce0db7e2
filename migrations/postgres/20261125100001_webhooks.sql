-- Webhooks (PostgreSQL: the same columns as migrations/sqlite; see README "Webhooks"): the endpoints operators register; the
-- outbox: each event once (`webhook_events`, its body as sent and signed)
-- and one small row per event and endpoint (`webhook_deliveries`, the row
-- that delivery updates), both written in the same transaction as the
-- change they report; and the log of failed attempts (a delivered one is
-- logged on its delivery row).
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

CREATE TABLE webhook_events (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id   TEXT    NOT NULL,              -- webhook-id: the same on every attempt (not indexed:
                                              -- deliveries refer to the event by seq)
    game_id    TEXT    NOT NULL,
    type       TEXT    NOT NULL,
    body       BYTEA    NOT NULL,              -- the JSON sent, as signed, LZ4-compressed (lz4_flex, size first)
    created_at TEXT    NOT NULL
);


CREATE TABLE webhook_deliveries (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- order of recording
    webhook_id      TEXT    NOT NULL,
    event_id        TEXT    NOT NULL,
    event_seq       BIGINT  NOT NULL,          -- webhook_events.seq
    game_id         TEXT    NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending', -- pending | delivered | failed
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    lease_until     TEXT,                      -- PostgreSQL: claimed by an instance until then
    status          BIGINT,                   -- delivered: the endpoint's status
    done_at         TEXT                       -- delivered or failed: when
);

-- The pending ones in the order they were recorded (the deliverer finds the
-- first of each game and endpoint among them), and the delivered ones for
-- the log. Both grow at their end: an index keyed by game would take each
-- new row to another page, each page written whole with the move's commit.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (seq) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (webhook_id, done_at) WHERE state <> 'pending';

CREATE TABLE webhook_attempts (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id      TEXT    NOT NULL,
    event_id        TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    attempt         BIGINT NOT NULL,
    status          BIGINT,                   -- the HTTP status, NULL when none came
    error           TEXT,
    at              TEXT    NOT NULL,
    next_attempt_at TEXT                       -- NULL: no retry left
);

CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, at);
