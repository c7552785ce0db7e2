-- Games, their moves and idempotency records. Append-only: never edit a
-- migration that has been applied; add a new one.

CREATE TABLE games (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT, -- listing order and cursor
    id         TEXT    NOT NULL UNIQUE,           -- UUID, lower-case hyphenated
    kind       TEXT    NOT NULL,
    status     TEXT    NOT NULL,                  -- waiting | in_progress | won | draw
    open_seat  INTEGER NOT NULL,                  -- 1 while a human seat is free
    hotseat    INTEGER NOT NULL,
    x_type     TEXT    NOT NULL,                  -- human | bot
    x_token    BLOB,                              -- SHA-256 of the seat token
    x_level    TEXT,
    x_seed     INTEGER,
    o_type     TEXT    NOT NULL,
    o_token    BLOB,
    o_level    TEXT,
    o_seed     INTEGER,
    round      INTEGER NOT NULL,
    resigned   TEXT,                              -- seat that resigned this round
    version    INTEGER NOT NULL,
    snapshot   BLOB    NOT NULL,                  -- the position of the current round
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
);

CREATE INDEX games_by_kind ON games (kind, seq);
CREATE INDEX games_by_status ON games (status, seq);

CREATE TABLE moves (
    game_id TEXT    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    round   INTEGER NOT NULL,
    ply     INTEGER NOT NULL,  -- 1 for the first move of a round
    version INTEGER NOT NULL,  -- the game's version after this move
    player  TEXT    NOT NULL,
    a       INTEGER NOT NULL,  -- row | column | board
    b       INTEGER,           -- col | NULL   | cell
    at      TEXT    NOT NULL,
    PRIMARY KEY (game_id, round, ply)
) WITHOUT ROWID;

CREATE UNIQUE INDEX moves_by_version ON moves (game_id, version);

-- The changes that are not moves (create, join, restart, resign), so that the
-- whole change history can be read back in version order with the moves.
CREATE TABLE game_events (
    game_id TEXT    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    type    TEXT    NOT NULL,  -- create | join | restart | resign
    round   INTEGER NOT NULL,
    player  TEXT,              -- join: the seat taken; resign: the seat that resigned
    at      TEXT    NOT NULL,
    PRIMARY KEY (game_id, version)
) WITHOUT ROWID;

CREATE TABLE idempotency (
    game_id    TEXT    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat       TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    status     INTEGER NOT NULL,
    body       TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat, key)
) WITHOUT ROWID;
