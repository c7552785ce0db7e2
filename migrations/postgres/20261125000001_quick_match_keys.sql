-- Quick match takes `Idempotency-Key`: its record is kept on the game the
-- caller was seated in, under the key `match:<client's key>`, and a retry
-- finds it by the key alone (no game is known yet). Only those keys are
-- indexed; the lookup repeats the condition literally so the index serves it.
CREATE INDEX idempotency_matches ON idempotency (key) WHERE key LIKE 'match:%';
