-- Players and ratings (see README "Players and ratings"): players with a key
-- (stored hashed) or known by an operator's sign-in (`ext:<sub>`, no key);
-- their Glicko-2 rating per kind, written in the transaction that ends a
-- rated round; and the games each player holds a seat of, newest last.
CREATE TABLE players (
    id         TEXT PRIMARY KEY,               -- UUID, or ext:<sub>
    name       TEXT NOT NULL,
    key_hash   BLOB UNIQUE,                    -- SHA-256 of the key; NULL for ext: players
    created_at TEXT NOT NULL
);

CREATE TABLE player_ratings (
    player_id  TEXT    NOT NULL REFERENCES players (id),
    kind       TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    games      INTEGER NOT NULL,
    PRIMARY KEY (player_id, kind)
) WITHOUT ROWID;

-- The leaderboard: players of a kind, best first.
CREATE INDEX player_ratings_board ON player_ratings (kind, rating DESC);

CREATE TABLE player_games (
    seq       INTEGER PRIMARY KEY,
    player_id TEXT NOT NULL,
    game_id   TEXT NOT NULL
);

CREATE INDEX player_games_by_player ON player_games (player_id, seq);
