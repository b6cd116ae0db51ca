/*
 * placement/hash.h - rendezvous scoring.
 *
 * Rendezvous (highest random weight) hashing: every (shard, member) pair gets
 * a score and the shard's ring home is the member with the highest one. When
 * a member joins, only the keys it now wins move, all of them to it; when one
 * leaves, only its keys move.
 *
 * The default scorer, PL_SCORER_XXH3, hashes each member id and each shard
 * key once with XXH3-64 (seed 0) and scores a pair with pl_score(), a strong
 * 64-bit mix of the two hashes: a few instructions per pair, no string
 * hashing in the inner loop.
 *
 * PL_SCORER_LEGACY_FNV1A reproduces the 64-bit FNV-1a over the bytes
 * "<shard key> <member id>" (one space) that some fleets already run on, so
 * such a fleet can adopt the library without moving a shard, then migrate.
 * Its spread is poor when member ids differ in one character; prefer the
 * default.
 *
 * Weighted members (weights not all equal) use Ceph's straw2 rule in integer
 * fixed point: draw = log2(u) / weight, u = the score read as a fraction in
 * (0, 1], the highest draw wins. The logarithm is a table with linear
 * interpolation, no floating point and no libm, so every platform computes
 * the same draw. A member then wins a share of keys proportional to its
 * weight, and changing one member's weight moves keys only to or from it.
 * Ties (equal draws) break on the raw score, then on the smaller member id
 * bytes, so equal weights give exactly the unweighted order.
 *
 * Scorer ids never change meaning: a new scorer gets a new id.
 * The functions here are the building blocks; the views in placement/view.h
 * apply them to a snapshot (pl_view_home(), pl_view_top()).
 */
#ifndef PLACEMENT_HASH_H
#define PLACEMENT_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scorer ids. 0 is not a scorer. */
#define PL_SCORER_XXH3 1u          /**< XXH3-64 hashes mixed by pl_score() */
#define PL_SCORER_LEGACY_FNV1A 2u  /**< FNV-1a 64 over "<key> <member id>" */

/**
 * pl_hash - XXH3-64 (seed 0) of a byte range: the hash of a member id or a
 * shard key under PL_SCORER_XXH3.
 *
 * @param data  the bytes; NULL reads as empty, whatever len says.
 * @param len   their length.
 * @return the hash; the same on every platform.
 */
PL_API uint64_t pl_hash(const void *data, size_t len);

/**
 * pl_score - the PL_SCORER_XXH3 score of a (shard, member) pair.
 *
 * @param key_hash     pl_hash() of the shard key.
 * @param member_hash  pl_hash() of the member id.
 * @return a 64-bit score; higher wins.
 */
PL_API uint64_t pl_score(uint64_t key_hash, uint64_t member_hash);

/**
 * pl_score_legacy - the PL_SCORER_LEGACY_FNV1A score: 64-bit FNV-1a (offset
 * basis 0xcbf29ce484222325, prime 0x100000001b3) over the key bytes, one
 * space, and the member id bytes.
 *
 * @return the score; higher wins. NULL with a non-zero length reads as empty.
 */
PL_API uint64_t pl_score_legacy(const void *key, size_t key_len, const void *member_id,
				size_t member_id_len);

/**
 * pl_score_weighted - the straw2 draw of a score for a member of the given
 * weight: (L - 48 * 2^32) / weight, rounded toward zero, where L is log2(x)
 * * 2^32 for x = (score >> 16) + 1, computed in fixed point: the integer
 * part is the top bit's position, the fraction log2(1 + i/256) * 2^32
 * (rounded, i = the next 8 bits) interpolated linearly over the next 32
 * bits. The vectors in tests/vectors.txt pin it. Always <= 0; higher wins.
 *
 * @param weight  the member's weight; 0 reads as 1.
 */
PL_API int64_t pl_score_weighted(uint64_t score, uint32_t weight);

#ifdef __cplusplus
}
#endif

#endif /* PLACEMENT_HASH_H */
