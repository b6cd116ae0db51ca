/*
 * score_simd.c - the top-1 loop of the XXH3 scorer, in scalar, AVX2 and
 * AVX-512 code, chosen at run time.
 *
 * How it works. A pair's score is the 128-bit product of the key's hash a
 * and the member's hash b (both pre-xored with their constants), folded to
 * 64 bits as high ^ low (core.h, pl__fold_mul). The vector paths compute
 * the same product per 64-bit lane from four 32 x 32 -> 64 multiplies:
 *
 *   a * b = hh 2^64 + (lh + hl) 2^32 + ll,  with ll = al bl, lh = al bh, ...
 *   low   = ll + ((lh + hl) << 32)                      (mod 2^64)
 *   high  = hh + (lh >> 32) + (hl >> 32)
 *           + ((ll >> 32) + (lh & M32) + (hl & M32)) >> 32
 *
 * which is exact (the middle sum is below 3 x 2^32), so every path gives the
 * same bits as the scalar one. Each lane keeps the best score of the places
 * congruent to it, replacing only on a strictly greater score, so it keeps
 * the earliest place of a tie; the lanes are merged by score, then by the
 * smaller place; the places past the last full vector follow in order and
 * win only by more. Places are in member id order, so the result is the
 * scalar loop's: the highest score, ties to the smaller id.
 *
 * Dispatch. pl__simd_detect() reads CPUID and XGETBV (the OS must save the
 * vector state) once per view build; the view keeps the answer, so nothing
 * global is written and a view built on one machine answers alike on any.
 * PL_SIMD_MAX (a build variable: make SIMD=scalar|avx2|avx512) caps it.
 */
#include "core/core.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PL__X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define PL__X86 0
#endif

#ifndef PL_SIMD_MAX
#define PL_SIMD_MAX PL__SIMD_AVX512
#endif

/* The scalar loop: four trackers when there are four or more places. */
static uint32_t top1_scalar(const uint64_t *h, uint32_t n, uint64_t a, uint32_t from, uint32_t i0, uint64_t b0)
{
	uint32_t i = from;
	if (from == 0) {
		i0 = 0;
		b0 = pl__fold_mul(a, h[0]);
		i = 1;
		if (n >= 4) {
			uint64_t b1 = pl__fold_mul(a, h[1]), b2 = pl__fold_mul(a, h[2]), b3 = pl__fold_mul(a, h[3]);
			uint32_t i1 = 1, i2 = 2, i3 = 3;
			for (i = 4; i + 4 <= n; i += 4) {
				uint64_t s0 = pl__fold_mul(a, h[i]), s1 = pl__fold_mul(a, h[i + 1]);
				uint64_t s2 = pl__fold_mul(a, h[i + 2]), s3 = pl__fold_mul(a, h[i + 3]);
				if (s0 > b0) {
					b0 = s0;
					i0 = i;
				}
				if (s1 > b1) {
					b1 = s1;
					i1 = i + 1;
				}
				if (s2 > b2) {
					b2 = s2;
					i2 = i + 2;
				}
				if (s3 > b3) {
					b3 = s3;
					i3 = i + 3;
				}
			}
			if (b1 > b0 || (b1 == b0 && i1 < i0)) {
				b0 = b1;
				i0 = i1;
			}
			if (b2 > b0 || (b2 == b0 && i2 < i0)) {
				b0 = b2;
				i0 = i2;
			}
			if (b3 > b0 || (b3 == b0 && i3 < i0)) {
				b0 = b3;
				i0 = i3;
			}
		}
	}
	/* The rest in place order: a later place wins only by more. */
	for (; i < n; i++) {
		uint64_t s = pl__fold_mul(a, h[i]);
		if (s > b0) {
			b0 = s;
			i0 = i;
		}
	}
	return i0;
}

/* Merge lane bests: the greatest score, then the smallest place. */
static void merge_lanes(const uint64_t *best, const uint64_t *place, uint32_t lanes, uint64_t *b0, uint32_t *i0)
{
	*b0 = best[0];
	*i0 = (uint32_t)place[0];
	for (uint32_t j = 1; j < lanes; j++)
		if (best[j] > *b0 || (best[j] == *b0 && place[j] < *i0)) {
			*b0 = best[j];
			*i0 = (uint32_t)place[j];
		}
}

#if PL__X86
__attribute__((target("avx2"))) static inline __m256i fold_avx2(__m256i alo, __m256i ahi, __m256i x)
{
	const __m256i m32 = _mm256_set1_epi64x(0xffffffff);
	__m256i xh = _mm256_srli_epi64(x, 32);
	__m256i ll = _mm256_mul_epu32(alo, x), lh = _mm256_mul_epu32(alo, xh);
	__m256i hl = _mm256_mul_epu32(ahi, x), hh = _mm256_mul_epu32(ahi, xh);
	__m256i lo = _mm256_add_epi64(ll, _mm256_slli_epi64(_mm256_add_epi64(lh, hl), 32));
	__m256i mid = _mm256_add_epi64(_mm256_srli_epi64(ll, 32),
				       _mm256_add_epi64(_mm256_and_si256(lh, m32), _mm256_and_si256(hl, m32)));
	__m256i hi = _mm256_add_epi64(_mm256_add_epi64(hh, _mm256_srli_epi64(lh, 32)),
				      _mm256_add_epi64(_mm256_srli_epi64(hl, 32), _mm256_srli_epi64(mid, 32)));
	return _mm256_xor_si256(hi, lo);
}

/* Two sets of four lanes (eight places a step); n >= 8. */
__attribute__((target("avx2"))) static uint32_t top1_avx2(const uint64_t *h, uint32_t n, uint64_t a)
{
	const __m256i sign = _mm256_set1_epi64x((long long)UINT64_C(0x8000000000000000));
	__m256i alo = _mm256_set1_epi64x((long long)a), ahi = _mm256_set1_epi64x((long long)(a >> 32));
	/* Scores are kept xored with the sign bit, so a signed compare orders
	 * them as unsigned. */
	__m256i b0 = _mm256_xor_si256(fold_avx2(alo, ahi, _mm256_loadu_si256((const void *)h)), sign);
	__m256i b1 = _mm256_xor_si256(fold_avx2(alo, ahi, _mm256_loadu_si256((const void *)(h + 4))), sign);
	__m256i p0 = _mm256_set_epi64x(3, 2, 1, 0), p1 = _mm256_set_epi64x(7, 6, 5, 4);
	__m256i i0 = p0, i1 = p1, step = _mm256_set1_epi64x(8);
	uint32_t i;
	for (i = 8; i + 8 <= n; i += 8) {
		p0 = _mm256_add_epi64(p0, step);
		p1 = _mm256_add_epi64(p1, step);
		__m256i s0 = _mm256_xor_si256(fold_avx2(alo, ahi, _mm256_loadu_si256((const void *)(h + i))), sign);
		__m256i s1 = _mm256_xor_si256(fold_avx2(alo, ahi, _mm256_loadu_si256((const void *)(h + i + 4))), sign);
		__m256i g0 = _mm256_cmpgt_epi64(s0, b0), g1 = _mm256_cmpgt_epi64(s1, b1);
		b0 = _mm256_blendv_epi8(b0, s0, g0);
		b1 = _mm256_blendv_epi8(b1, s1, g1);
		i0 = _mm256_blendv_epi8(i0, p0, g0);
		i1 = _mm256_blendv_epi8(i1, p1, g1);
	}
	uint64_t best[8], place[8];
	_mm256_storeu_si256((void *)best, _mm256_xor_si256(b0, sign));
	_mm256_storeu_si256((void *)(best + 4), _mm256_xor_si256(b1, sign));
	_mm256_storeu_si256((void *)place, i0);
	_mm256_storeu_si256((void *)(place + 4), i1);
	uint64_t bb;
	uint32_t ii;
	merge_lanes(best, place, 8, &bb, &ii);
	return top1_scalar(h, n, a, i, ii, bb);
}

/* PL_AVX512_EXCL_START: the AVX-512 paths run only on a CPU that has it;
 * make coverage leaves them out of its count elsewhere. */
__attribute__((target("avx512f,avx512dq"))) static inline __m512i fold_avx512(__m512i alo, __m512i ahi, __m512i x)
{
	const __m512i m32 = _mm512_set1_epi64(0xffffffff);
	__m512i xh = _mm512_srli_epi64(x, 32);
	__m512i ll = _mm512_mul_epu32(alo, x), lh = _mm512_mul_epu32(alo, xh);
	__m512i hl = _mm512_mul_epu32(ahi, x), hh = _mm512_mul_epu32(ahi, xh);
	__m512i lo = _mm512_mullo_epi64(alo, x);
	__m512i mid = _mm512_add_epi64(_mm512_srli_epi64(ll, 32),
				       _mm512_add_epi64(_mm512_and_si512(lh, m32), _mm512_and_si512(hl, m32)));
	__m512i hi = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(lh, 32)),
				      _mm512_add_epi64(_mm512_srli_epi64(hl, 32), _mm512_srli_epi64(mid, 32)));
	return _mm512_xor_si512(hi, lo);
}

/* Two sets of eight lanes (sixteen places a step); n >= 16. */
__attribute__((target("avx512f,avx512dq"))) static uint32_t top1_avx512(const uint64_t *h, uint32_t n, uint64_t a)
{
	__m512i alo = _mm512_set1_epi64((long long)a), ahi = _mm512_set1_epi64((long long)(a >> 32));
	__m512i b0 = fold_avx512(alo, ahi, _mm512_loadu_si512((const void *)h));
	__m512i b1 = fold_avx512(alo, ahi, _mm512_loadu_si512((const void *)(h + 8)));
	__m512i p0 = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), p1 = _mm512_set_epi64(15, 14, 13, 12, 11, 10, 9, 8);
	__m512i i0 = p0, i1 = p1, step = _mm512_set1_epi64(16);
	uint32_t i;
	for (i = 16; i + 16 <= n; i += 16) {
		p0 = _mm512_add_epi64(p0, step);
		p1 = _mm512_add_epi64(p1, step);
		__m512i s0 = fold_avx512(alo, ahi, _mm512_loadu_si512((const void *)(h + i)));
		__m512i s1 = fold_avx512(alo, ahi, _mm512_loadu_si512((const void *)(h + i + 8)));
		__mmask8 g0 = _mm512_cmpgt_epu64_mask(s0, b0), g1 = _mm512_cmpgt_epu64_mask(s1, b1);
		b0 = _mm512_mask_mov_epi64(b0, g0, s0);
		b1 = _mm512_mask_mov_epi64(b1, g1, s1);
		i0 = _mm512_mask_mov_epi64(i0, g0, p0);
		i1 = _mm512_mask_mov_epi64(i1, g1, p1);
	}
	uint64_t best[16], place[16];
	_mm512_storeu_si512((void *)best, b0);
	_mm512_storeu_si512((void *)(best + 8), b1);
	_mm512_storeu_si512((void *)place, i0);
	_mm512_storeu_si512((void *)(place + 8), i1);
	uint64_t bb;
	uint32_t ii;
	merge_lanes(best, place, 16, &bb, &ii);
	return top1_scalar(h, n, a, i, ii, bb);
}

/* Fold a block of scores: out[i] = fold(a, h[i]) for i < n. */
__attribute__((target("avx512f,avx512dq"))) static void scores_avx512(const uint64_t *h, uint32_t n, uint64_t a,
								      uint64_t *out)
{
	__m512i alo = _mm512_set1_epi64((long long)a), ahi = _mm512_set1_epi64((long long)(a >> 32));
	uint32_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm512_storeu_si512((void *)(out + i), fold_avx512(alo, ahi, _mm512_loadu_si512((const void *)(h + i))));
	for (; i < n; i++)
		out[i] = pl__fold_mul(a, h[i]);
}
/* PL_AVX512_EXCL_STOP */

__attribute__((target("avx2"))) static void scores_avx2(const uint64_t *h, uint32_t n, uint64_t a, uint64_t *out)
{
	__m256i alo = _mm256_set1_epi64x((long long)a), ahi = _mm256_set1_epi64x((long long)(a >> 32));
	uint32_t i = 0;
	for (; i + 4 <= n; i += 4)
		_mm256_storeu_si256((void *)(out + i), fold_avx2(alo, ahi, _mm256_loadu_si256((const void *)(h + i))));
	for (; i < n; i++)
		out[i] = pl__fold_mul(a, h[i]);
}

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}
#endif /* PL__X86 */

uint32_t pl__simd_detect(void)
{
	uint32_t level = PL__SIMD_SCALAR;
#if PL__X86
	/* GCOVR_EXCL_START: which way these tests go depends on the CPU the
	 * suites run on, not on any input; each level's scorer is tested on
	 * any x86-64 machine by the SIMD=scalar|avx2 builds (make
	 * determinism, and the fuzz harnesses built with PL_SIMD_MAX). */
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return level;
	uint64_t xcr0 = xgetbv0();
	if ((xcr0 & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return level;
	if (b & bit_AVX2)
		level = PL__SIMD_AVX2;
	if ((b & bit_AVX512F) && (b & bit_AVX512DQ) && (xcr0 & 0xe6) == 0xe6)
		level = PL__SIMD_AVX512;
	/* GCOVR_EXCL_STOP */
#endif
	return level > (uint32_t)PL_SIMD_MAX ? (uint32_t)PL_SIMD_MAX : level;
}

uint32_t pl__top1_hashes(const uint64_t *h, uint32_t n, uint64_t a, uint32_t simd)
{
#if PL__X86
	if (simd >= PL__SIMD_AVX512 && n >= 16) /* PL_AVX512_EXCL_LINE */
		return top1_avx512(h, n, a);      /* PL_AVX512_EXCL_LINE */
	if (simd >= PL__SIMD_AVX2 && n >= 8)
		return top1_avx2(h, n, a);
#else
	(void)simd;
#endif
	return top1_scalar(h, n, a, 0, 0, 0);
}

void pl__scores_hashes(const uint64_t *h, uint32_t n, uint64_t a, uint32_t simd, uint64_t *out)
{
#if PL__X86
	if (simd >= PL__SIMD_AVX512) {   /* PL_AVX512_EXCL_LINE */
		scores_avx512(h, n, a, out); /* PL_AVX512_EXCL_LINE */
		return;                      /* PL_AVX512_EXCL_LINE */
	}
	if (simd >= PL__SIMD_AVX2) {
		scores_avx2(h, n, a, out);
		return;
	}
#else
	(void)simd;
#endif
	for (uint32_t i = 0; i < n; i++)
		out[i] = pl__fold_mul(a, h[i]);
}
