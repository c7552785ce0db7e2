-- Players and ratings (see README "Players and ratings"): players with a key
-- (stored hashed) or known by an operator's sign-in (`ext:<sub>`, no key);
-- their Glicko-2 rating per kind, written in the transaction that ends a
-- rated round (which first locks both players' rows, so that two instances
-- ending games of one player take turns); and the games each player holds
-- a seat of, newest last.
CREATE TABLE players (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    key_hash   BYTEA UNIQUE,
    created_at TEXT NOT NULL
);

CREATE TABLE player_ratings (
    player_id  TEXT             NOT NULL REFERENCES players (id),
    kind       TEXT             NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      BIGINT           NOT NULL,
    PRIMARY KEY (player_id, kind)
);

CREATE INDEX player_ratings_board ON player_ratings (kind, rating DESC);

CREATE TABLE player_games (
    seq       BIGSERIAL PRIMARY KEY,
    player_id TEXT NOT NULL,
    game_id   TEXT NOT NULL
);

CREATE INDEX player_games_by_player ON player_games (player_id, seq);
