/* The bit transpose (src/base/bit_transpose.h, private) against the
 * definition, bit by bit: every width, counts around the blocks of 16 and 32, the
 * words of 64 and the lines of 512 (whole lines, and lines and a tail of
 * words), and no word written outside the bitsets' own; the dispatching
 * transpose (AVX-512 where the CPU has it, by lines where it also has GFNI
 * and VBMI: on a CPU without, AVX2), the AVX2 one (32 masks at a time:
 * the portable one on a CPU without AVX2) and the portable one; the same
 * for the repack's gather and the completions' selection (AVX2 eight at a
 * time). */
#include <check.h>
#include <stdlib.h>

#include "bit_transpose.h"
#include "support.h"

enum { MAX_COUNT = 1700, SPARE_WORDS = 2 };
static const uint64_t UNTOUCHED = 0x5a5a5a5a5a5a5a5au;

/* A fixed stream of masks: varied, the same on every run. */
static uint32_t next_mask(uint64_t *state, int width) {
  *state = *state * 6364136223846793005u + 1442695040888963407u;
  const uint32_t bits = (uint32_t)(*state >> 32);
  return width == 32 ? bits : bits & (((uint32_t)1 << width) - 1);
}

typedef void (*transpose_fn)(uint64_t *, size_t, const uint32_t *, size_t, int);

/* The dispatching transpose (AVX-512 where the CPU has it, else AVX2),
 * the AVX2 one and the portable one. */
static const transpose_fn transposes[] = {nq__bit_transpose, nq__bit_transpose_avx2,
                                          nq__bit_transpose_portable};
enum { TRANSPOSES = sizeof transposes / sizeof transposes[0] };

static void check_one(transpose_fn transpose, int width, size_t count, uint64_t *state) {
  uint32_t masks[MAX_COUNT];
  for (size_t t = 0; t < count; t++)
    masks[t] = next_mask(state, width);
  const size_t words = (count + 63) / 64, stride = words + SPARE_WORDS;
  uint64_t *rows = malloc((size_t)width * stride * sizeof *rows);
  ck_assert_ptr_nonnull(rows);
  for (size_t i = 0; i < (size_t)width * stride; i++)
    rows[i] = UNTOUCHED;
  transpose(rows, stride, masks, count, width);
  /* Compared a word at a time and asserted only on a difference: check
   * records every assertion's place, which a million of them make slow
   * (tens of seconds under the sanitizers). */
  for (int p = 0; p < width; p++) {
    for (size_t w = 0; w < words; w++) {
      uint64_t expected = 0;
      for (int b = 0; b < 64; b++) {
        const size_t t = w * 64 + (size_t)b;
        if (t < count && ((masks[t] >> p) & 1u))
          expected |= (uint64_t)1 << b;
      }
      const uint64_t got = rows[(size_t)p * stride + w];
      if (got != expected)
        ck_abort_msg("width %d, count %zu: word %zu of bitset %d is %#llx, expected %#llx", width,
                     count, w, p, (unsigned long long)got, (unsigned long long)expected);
    }
    for (size_t w = words; w < stride; w++)
      ck_assert_msg(rows[(size_t)p * stride + w] == UNTOUCHED,
                    "width %d, count %zu: word %zu of bitset %d was written", width, count, w, p);
  }
  free(rows);
}

START_TEST(test_transpose_matches_the_definition) {
  static const size_t counts[] = {0,   1,   2,   15,  16,  17,  31,  32,   33,   48,       63,
                                  64,  65,  96,  127, 128, 129, 511, 512,  513,  1024 + 65, 575,
                                  MAX_COUNT};
  uint64_t state = 12345;
  for (int width = 1; width <= NQ_BIT_TRANSPOSE_MAX_WIDTH; width++)
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
      check_one(transposes[_i], width, counts[i], &state);
}
END_TEST

/* Single bits, each alone in its mask: a bit landing one place off (a
 * wrong byte or mask order in the regrouping) shows as a wrong bitset. */
START_TEST(test_transpose_places_every_single_bit) {
  enum { WIDTH = NQ_BIT_TRANSPOSE_MAX_WIDTH, COUNT = 64 };
  uint32_t masks[COUNT];
  uint64_t rows[WIDTH];
  for (int p = 0; p < WIDTH; p++)
    for (int t = 0; t < COUNT; t++) {
      for (int i = 0; i < COUNT; i++)
        masks[i] = i == t ? (uint32_t)1 << p : 0;
      transposes[_i](rows, 1, masks, COUNT, WIDTH);
      for (int q = 0; q < WIDTH; q++)
        ck_assert_msg(rows[q] == (q == p ? (uint64_t)1 << t : 0),
                      "bit %d of mask %d: bitset %d is %#llx", p, t, q,
                      (unsigned long long)rows[q]);
    }
}
END_TEST

typedef size_t (*gather_fn)(uint32_t *, uint32_t *, const uint32_t *, const uint32_t *,
                            const uint32_t *, const uint64_t *, size_t);
static const gather_fn gathers[] = {nq__bit_gather_pairs, nq__bit_gather_pairs_avx2,
                                    nq__bit_gather_pairs_portable};

/* The repack's gather against the definition: words of every density
 * (none kept, all kept, scattered), taken out of order, more of them than
 * the gather looks ahead, and nothing written past the pairs kept and the
 * slack after them. */
START_TEST(test_gather_keeps_the_clear_bits_in_order) {
  enum { WORDS = 40, LISTED = 37, TOPS = 64 * WORDS, ROOM = TOPS + NQ_BIT_STORE_SLACK + 8 };
  static uint32_t a[TOPS], b[TOPS], into_a[ROOM], into_b[ROOM];
  uint64_t state = 99;
  for (int t = 0; t < TOPS; t++) {
    a[t] = next_mask(&state, 32);
    b[t] = next_mask(&state, 32);
  }
  uint32_t word_index[LISTED];
  for (uint32_t k = 0; k < LISTED; k++)
    word_index[k] = (7 * k + 5) % WORDS; /* out of order, three words never listed */
  const uint64_t patterns[] = {~(uint64_t)0, 0, 0x5555aaaa0f0ff0f0u, 0x8000000000000001u,
                               ~(uint64_t)1 << 40};
  for (int round = 0; round < 50; round++) {
    uint64_t varied[LISTED];
    for (size_t k = 0; k < LISTED; k++)
      varied[k] = round == 0 ? patterns[k % (sizeof patterns / sizeof patterns[0])]
                             : (uint64_t)next_mask(&state, 32) << 32 | next_mask(&state, 32);
    for (int i = 0; i < ROOM; i++)
      into_a[i] = into_b[i] = 0xdeadbeef;
    size_t kept = gathers[_i](into_a, into_b, a, b, word_index, varied, LISTED), expected = 0;
    /* Only a failure makes a check call below: one for every pair and
     * slot made the test several times slower under the sanitizers. */
    for (size_t k = 0; k < LISTED; k++)
      for (int bit = 0; bit < 64; bit++) {
        if ((varied[k] >> bit) & 1u)
          continue;
        size_t t = 64 * word_index[k] + (size_t)bit;
        if (expected >= kept || into_a[expected] != a[t] || into_b[expected] != b[t])
          ck_abort_msg("round %d: pair %zu (top %zu) not kept in its place", round, expected, t);
        expected++;
      }
    ck_assert_uint_eq(kept, expected);
    for (size_t i = kept + NQ_BIT_STORE_SLACK; i < ROOM; i++)
      if (into_a[i] != 0xdeadbeef || into_b[i] != 0xdeadbeef)
        ck_abort_msg("round %d: slot %zu past the %zu kept and the slack was written", round, i,
                     kept);
  }
}
END_TEST

typedef size_t (*select_fn)(uint32_t *, const uint32_t *, size_t, uint32_t);
static const select_fn selects[] = {nq__bit_select_disjoint, nq__bit_select_disjoint_avx2,
                                    nq__bit_select_disjoint_portable};

/* The completions' selection against the definition: every count from 0
 * past two blocks of 16, masks from none to all bits, the words kept in
 * order and nothing written past the room of `count` words. */
START_TEST(test_select_keeps_the_disjoint_words_in_order) {
  enum { MOST = 40, ROOM = MOST + 8 };
  uint32_t from[MOST], into[ROOM];
  uint64_t state = 5;
  for (size_t count = 0; count <= MOST; count++)
    for (int round = 0; round < 8; round++) {
      for (size_t k = 0; k < count; k++)
        from[k] = next_mask(&state, 32) & next_mask(&state, 32) & next_mask(&state, 32);
      const uint32_t mask = round == 0   ? 0
                            : round == 1 ? UINT32_MAX
                                         : next_mask(&state, 32) & next_mask(&state, 32);
      for (int i = 0; i < ROOM; i++)
        into[i] = 0xdeadbeef;
      size_t kept = selects[_i](into, from, count, mask), expected = 0;
      for (size_t k = 0; k < count; k++) {
        if ((from[k] & mask) != 0)
          continue;
        ck_assert_msg(expected < kept && into[expected] == from[k],
                      "count %zu round %d: word %zu not kept in its place", count, round, k);
        expected++;
      }
      ck_assert_uint_eq(kept, expected);
      for (size_t i = count; i < ROOM; i++)
        ck_assert_msg(into[i] == 0xdeadbeef, "count %zu: slot %zu past the room written", count, i);
    }
}
END_TEST

static Suite *bit_transpose_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("bit_transpose");
  TCase *transpose = support_tcase("transpose");
  tcase_add_loop_test(transpose, test_transpose_matches_the_definition, 0, TRANSPOSES);
  tcase_add_loop_test(transpose, test_transpose_places_every_single_bit, 0, TRANSPOSES);
  tcase_add_loop_test(transpose, test_gather_keeps_the_clear_bits_in_order, 0,
                      sizeof gathers / sizeof gathers[0]);
  tcase_add_loop_test(transpose, test_select_keeps_the_disjoint_words_in_order, 0,
                      sizeof selects / sizeof selects[0]);
  suite_add_tcase(suite, transpose);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, bit_transpose_suite); }
