-- An idempotency record belongs to its key within the game, whoever sent it,
-- and holds `request`: the hex SHA-256 of what was asked (the operation, its
-- body in canonical form and the token's hash). A key reused for another
-- request (another body, another seat or token, another operation) is
-- refused with 422 `idempotency_key_reused` instead of being answered with
-- the first request's answer. Records written before have no hash (NULL) and
-- replay as they did; where both seats of a game used one key, X's record is
-- kept.
CREATE TABLE idempotency_new (
    game_id    TEXT    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    key        TEXT    NOT NULL,
    request    TEXT,
    status     INTEGER NOT NULL,
    body       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (game_id, key)
) WITHOUT ROWID;

INSERT INTO idempotency_new (game_id, key, status, body, version, created_at)
    SELECT game_id, key, status, body, version, created_at FROM idempotency
    WHERE true ORDER BY seat DESC
    ON CONFLICT (game_id, key) DO NOTHING;

DROP TABLE idempotency;
ALTER TABLE idempotency_new RENAME TO idempotency;
