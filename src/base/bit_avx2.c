/* The left-packing table of bit_avx2.h, worked out by the compiler:
 * set bit i of mask m is lane number popcount(m below bit i) of the
 * packed result, so byte that of entry m holds i. */

#include "bit_avx2.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#define NQ_LANE(m, i)                                                                              \
  ((((m) >> (i)) & 1u) ? (uint64_t)(i) << (8 * __builtin_popcount((m) & ((1u << (i)) - 1u))) : 0)
#define NQ_ENTRY(m)                                                                                \
  (NQ_LANE(m, 1) | NQ_LANE(m, 2) | NQ_LANE(m, 3) | NQ_LANE(m, 4) | NQ_LANE(m, 5) |              \
   NQ_LANE(m, 6) | NQ_LANE(m, 7))
#define NQ_ENTRIES_4(m) NQ_ENTRY(m), NQ_ENTRY(m + 1), NQ_ENTRY(m + 2), NQ_ENTRY(m + 3)
#define NQ_ENTRIES_16(m)                                                                           \
  NQ_ENTRIES_4(m), NQ_ENTRIES_4(m + 4), NQ_ENTRIES_4(m + 8), NQ_ENTRIES_4(m + 12)
#define NQ_ENTRIES_64(m)                                                                           \
  NQ_ENTRIES_16(m), NQ_ENTRIES_16(m + 16), NQ_ENTRIES_16(m + 32), NQ_ENTRIES_16(m + 48)

const uint64_t nq__bit_compact_lanes[256] = {NQ_ENTRIES_64(0u), NQ_ENTRIES_64(64u),
                                             NQ_ENTRIES_64(128u), NQ_ENTRIES_64(192u)};

#endif
