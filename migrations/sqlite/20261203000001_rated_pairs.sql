-- Rated rounds between two players (issue 75): each rated round that began
-- with both players seated, by the pair (their ids in order) and when it
-- began, so that only so many of a pair's rounds in a window move ratings.
-- Written in the transaction that begins the round; rows past the window
-- are removed when the pair begins another.
CREATE TABLE rated_pair_rounds (
    low        TEXT    NOT NULL,
    high       TEXT    NOT NULL,
    game_id    TEXT    NOT NULL,
    round      INTEGER NOT NULL,
    started_at TEXT    NOT NULL
);

CREATE INDEX rated_pair_rounds_by_pair ON rated_pair_rounds (low, high, started_at);
