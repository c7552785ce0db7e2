-- Quick match (POST /v1/matches) seats a caller in the oldest public game
-- waiting for an opponent under the same terms, or creates one. `match_key`
-- holds those terms (kind and options: `connect_four`, `gomoku/15/freestyle`)
-- for every game quick match may join: public, between two people, without
-- a clock, from the empty board of its first round; NULL otherwise. It is
-- derived from the game, like `status`, and rewritten with every change.
-- The index serves the matcher's choice: the waiting games of one key, oldest
-- first.
ALTER TABLE games ADD COLUMN match_key TEXT;
CREATE INDEX games_matchable ON games (match_key, seq)
    WHERE status = 'waiting' AND deleted_at IS NULL;
-- Games waiting already: their terms, where the row tells them (a Gomoku
-- game's size and rule are inside its snapshot: those stay unmatched).
UPDATE games SET match_key = kind
    WHERE status = 'waiting' AND deleted_at IS NULL AND kind <> 'gomoku'
      AND private = 0 AND hotseat = 0 AND x_type = 'human' AND o_type = 'human'
      AND (meta IS NULL OR json_extract(meta, '$.clock') IS NULL);
