-- An idempotency record belongs to its key within the game, whoever sent it,
-- and holds `request`: the hex SHA-256 of what was asked (the operation, its
-- body in canonical form and the token's hash). A key reused for another
-- request (another body, another seat or token, another operation) is
-- refused with 422 `idempotency_key_reused` instead of being answered with
-- the first request's answer. Records written before have no hash (NULL) and
-- replay as they did; where both seats of a game used one key, X's record is
-- kept.
ALTER TABLE idempotency ADD COLUMN request TEXT;
DELETE FROM idempotency o WHERE o.seat = 'O' AND EXISTS (
    SELECT 1 FROM idempotency x WHERE x.game_id = o.game_id AND x.key = o.key AND x.seat = 'X'
);
ALTER TABLE idempotency DROP CONSTRAINT idempotency_pkey;
ALTER TABLE idempotency DROP COLUMN seat;
ALTER TABLE idempotency ADD PRIMARY KEY (game_id, key);
