-- A rotation keeps its answer sealed on the rotated token (successor_sealed, migration 15) and drops the box
-- of every other token of the family. Matched on the family's index, that statement read every token the
-- family ever had: an app that refreshes at each launch grows its family by one row per launch, and at 400
-- tokens a family the statement cost 3 ms of the writer's transaction (`authlog-bench service`,
-- pg_stat_statements). Only a family's newest rotations hold a box, so this partial index has a row or two per
-- family, and the statement probes it and the token's own key (a BitmapOr), whatever the family's length.
CREATE INDEX refresh_tokens_sealed_successors ON authlog.refresh_tokens (family_id)
    WHERE successor_sealed IS NOT NULL;
