-- Tournaments (issue 77): each as one row, its entrants, boards and
-- results in `data` (JSON, written whole under the row's version); the
-- columns listings and the sweeper filter on beside it. `due_at`: when
-- the tournament next has something to do (start, pair a round, pair free
-- arena entrants, finish), NULL while it waits for games to end.
-- Its changes, one row a version, for event streams.
CREATE TABLE tournaments (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- listing order and cursor
    id         TEXT    NOT NULL UNIQUE,
    status     TEXT    NOT NULL,
    system     TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    private    BOOLEAN NOT NULL,
    due_at     TEXT,
    created_at TEXT    NOT NULL,
    version    BIGINT  NOT NULL,
    data       TEXT    NOT NULL
);

CREATE INDEX tournaments_due ON tournaments (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX tournaments_listed ON tournaments (private, seq);

CREATE TABLE tournament_events (
    tournament_id TEXT   NOT NULL,
    version       BIGINT NOT NULL,
    type          TEXT   NOT NULL,
    data          TEXT   NOT NULL,
    PRIMARY KEY (tournament_id, version)
);
