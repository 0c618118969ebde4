-- C2SP tlog-tiles' pruning lets a log refuse only a full tile or entry bundle whose end index is at or below the
-- minimum index, so the tiles that straddle the last dropped position S must still be served. Of each tile level
-- only the straddling tile holds dropped values: the digests of positions 256·⌊S/256⌋ + 1 … S (the entry bundle's
-- leaf data) and, per level L ≥ 1, the hashes at tree height 8·L with indices 256·⌊S/256^(L+1)⌋ ..< ⌊S/256^L⌋,
-- 32 bytes each in that order (TileEdge). Retention stores them with the frontier; rows written before this
-- migration have none (NULL), and their minimum index is rounded up past the tiles they cannot serve.
ALTER TABLE authlog.log_retention
    ADD COLUMN tile_edge bytea CHECK (tile_edge IS NULL OR octet_length(tile_edge) % 32 = 0);
