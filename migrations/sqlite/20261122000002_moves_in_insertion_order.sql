-- Moves in the order they are played. Keyed by (game, round, ply), the table
-- put each batch's moves on as many pages as the batch had games, and a
-- commit writes every page it touched to the WAL (and a checkpoint writes it
-- again). Appended in rowid order, a batch's moves share the last page; the
-- (game, round, ply) key stays, as a unique index (what makes exactly one
-- move per turn possible). The (game, version) index goes: versions come
-- from the game row, whose update names the version it replaces, and
-- lookups by version scan one game's moves through the remaining index.

CREATE TABLE moves_new (
    seq     INTEGER PRIMARY KEY,  -- insertion order
    game_id TEXT    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    round   INTEGER NOT NULL,
    ply     INTEGER NOT NULL,     -- 1 for the first move of a round
    version INTEGER NOT NULL,     -- the game's version after this move
    player  TEXT    NOT NULL,
    a       INTEGER NOT NULL,     -- row | column | board
    b       INTEGER,              -- col | NULL   | cell
    at      TEXT    NOT NULL,
    UNIQUE (game_id, round, ply)
);

INSERT INTO moves_new (game_id, round, ply, version, player, a, b, at)
    SELECT game_id, round, ply, version, player, a, b, at FROM moves ORDER BY at, game_id, round, ply;

DROP TABLE moves;
ALTER TABLE moves_new RENAME TO moves;
