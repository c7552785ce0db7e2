-- Bots from outside (issue 78): players flagged `bot` (for good) and the
-- games in progress a bot takes on at most (`max_games`); challenges from
-- one player to another, each as one row (the record as JSON in `data`,
-- beside the columns listings filter on); and each player's own events,
-- numbered per player, written in the transaction of the change they tell
-- (which first locks the player's row, so that two instances take turns).
ALTER TABLE players ADD COLUMN bot BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE players ADD COLUMN max_games BIGINT NOT NULL DEFAULT 4;

CREATE TABLE challenges (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- listing order and cursor
    id         TEXT NOT NULL UNIQUE,
    from_id    TEXT NOT NULL,
    to_id      TEXT NOT NULL,
    status     TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    data       TEXT NOT NULL
);

CREATE INDEX challenges_from ON challenges (from_id, seq);
CREATE INDEX challenges_to ON challenges (to_id, seq);

CREATE TABLE player_events (
    player_id TEXT   NOT NULL,
    seq       BIGINT NOT NULL,
    type      TEXT   NOT NULL,
    data      TEXT   NOT NULL,
    at        TEXT   NOT NULL,
    PRIMARY KEY (player_id, seq)
);
