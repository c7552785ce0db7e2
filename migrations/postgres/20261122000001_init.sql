-- Games, their moves, their other changes and idempotency records
-- (PostgreSQL). Append-only: never edit a migration that has been applied.
-- The same columns as migrations/sqlite, so that one set of queries serves both.

CREATE TABLE games (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- listing order and cursor
    id         TEXT    NOT NULL UNIQUE,                         -- UUID, lower-case hyphenated
    kind       TEXT    NOT NULL,
    status     TEXT    NOT NULL,                                -- waiting | in_progress | won | draw
    open_seat  BOOLEAN NOT NULL,
    hotseat    BOOLEAN NOT NULL,
    x_type     TEXT    NOT NULL,                                -- human | bot
    x_token    BYTEA,                                           -- SHA-256 of the seat token
    x_level    TEXT,
    x_seed     BIGINT,
    o_type     TEXT    NOT NULL,
    o_token    BYTEA,
    o_level    TEXT,
    o_seed     BIGINT,
    round      BIGINT  NOT NULL,
    resigned   TEXT,
    version    BIGINT  NOT NULL,
    snapshot   BYTEA   NOT NULL,
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
);

CREATE INDEX games_by_kind ON games (kind, seq);
CREATE INDEX games_by_status ON games (status, seq);

CREATE TABLE moves (
    game_id TEXT   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    round   BIGINT NOT NULL,
    ply     BIGINT NOT NULL,
    version BIGINT NOT NULL,
    player  TEXT   NOT NULL,
    a       BIGINT NOT NULL,
    b       BIGINT,
    at      TEXT   NOT NULL,
    PRIMARY KEY (game_id, round, ply)
);

CREATE UNIQUE INDEX moves_by_version ON moves (game_id, version);

CREATE TABLE game_events (
    game_id TEXT   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version BIGINT NOT NULL,
    type    TEXT   NOT NULL,
    round   BIGINT NOT NULL,
    player  TEXT,
    at      TEXT   NOT NULL,
    PRIMARY KEY (game_id, version)
);

CREATE TABLE idempotency (
    game_id    TEXT   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat       TEXT   NOT NULL,
    key        TEXT   NOT NULL,
    status     BIGINT NOT NULL,
    body       TEXT   NOT NULL,
    created_at TEXT   NOT NULL,
    PRIMARY KEY (game_id, seat, key)
);
