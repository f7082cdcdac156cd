/* The count of what ORed bitsets leave (src/base/bit_count.h, private)
 * against its definition, bit by bit: every range that starts at one of
 * the first nine words and ends at or before word 48 (so around the
 * AVX-512 blocks of eight, AVX2's of four and their tails), for none to
 * three lists of sets a call, the dispatching count (AVX-512 where the CPU
 * has it, else AVX2), the AVX2 one (the portable one on a CPU without
 * AVX2) and the portable one;
 * and the count that takes some lists' bits from a point on twice, for
 * tables of 0 to 19 words and first bits in and around each word. */
#include <check.h>

#include "bit_count.h"
#include "support.h"

enum { MOST = 48, LISTS = 3 };

/* A fixed stream of words: varied, the same on every run. */
static uint64_t next_word(uint64_t *state) {
  *state = *state * 6364136223846793005u + 1442695040888963407u;
  return *state ^ (*state >> 29);
}

/* Words with a few bits clear: what survives the OR of eleven of them is
 * then neither nothing nor everything. */
static uint64_t sparse_word(uint64_t *state) {
  return next_word(state) & next_word(state) & next_word(state);
}

typedef uint64_t (*count_fn)(const uint64_t *, const nq_bit_sets_t *, size_t, size_t, size_t);
static const count_fn counts[] = {nq__bit_count_clear, nq__bit_count_clear_avx2,
                                  nq__bit_count_clear_portable};

/* The zero bits of words from..to-1 ORed with the sets, those from bit
 * `first_bit` of the whole on (bit b of word w is bit 64 w + b). */
static uint64_t clear_from_bit(const uint64_t *base, uint64_t sets[NQ_BIT_COUNT_SETS][MOST],
                               size_t from, size_t to, size_t first_bit) {
  uint64_t clear = 0;
  for (size_t w = from; w < to; w++)
    for (int b = 0; b < 64; b++) {
      if (64 * w + (size_t)b < first_bit)
        continue;
      int set = (int)((base[w] >> b) & 1u);
      for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
        set |= (int)((sets[s][w] >> b) & 1u);
      clear += set == 0;
    }
  return clear;
}

static uint64_t by_definition(const uint64_t *base, uint64_t sets[NQ_BIT_COUNT_SETS][MOST],
                              size_t from, size_t to) {
  return clear_from_bit(base, sets, from, to, 0);
}

/* Sets of words as the walk leaves them (round 0: a base of full words
 * here and there, as for the words no longer live; round 1: list 0's
 * sets empty). */
static void fill_words(uint64_t *base, uint64_t sets[LISTS][NQ_BIT_COUNT_SETS][MOST], int round,
                       uint64_t *state) {
  for (size_t w = 0; w < MOST; w++) {
    base[w] = round == 0 && w % 5 == 0 ? UINT64_MAX : next_word(state) & next_word(state);
    for (int k = 0; k < LISTS; k++)
      for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
        sets[k][s][w] = round == 1 && k == 0 ? 0 : sparse_word(state) & sparse_word(state);
  }
}

/* Each list's pointers at its sets. */
static void point_at(nq_bit_sets_t pointers[LISTS], uint64_t sets[LISTS][NQ_BIT_COUNT_SETS][MOST]) {
  for (int k = 0; k < LISTS; k++)
    for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
      pointers[k][s] = sets[k][s];
}

START_TEST(test_count_matches_the_definition) {
  static uint64_t base[MOST], sets[LISTS][NQ_BIT_COUNT_SETS][MOST];
  nq_bit_sets_t pointers[LISTS];
  point_at(pointers, sets);
  uint64_t state = 11;
  for (int round = 0; round < 4; round++) {
    fill_words(base, sets, round, &state);
    for (size_t lists = 0; lists <= LISTS; lists++)
      for (size_t from = 0; from < 9; from++)
        for (size_t to = from; to <= MOST; to++) {
          const uint64_t got = counts[_i](base, pointers, lists, from, to);
          uint64_t expected = 0;
          for (size_t k = 0; k < lists; k++)
            expected += by_definition(base, sets[k], from, to);
          if (got != expected)
            ck_abort_msg("round %d, %zu lists, words %zu..%zu: %llu clear bits counted, "
                         "expected %llu",
                         round, lists, from, to, (unsigned long long)got,
                         (unsigned long long)expected);
        }
  }
}
END_TEST

typedef uint64_t (*count_twice_fn)(const uint64_t *, const nq_bit_sets_t *, size_t, size_t, size_t,
                                   size_t);
static const count_twice_fn twice_counts[] = {nq__bit_count_clear_twice,
                                              nq__bit_count_clear_twice_avx2,
                                              nq__bit_count_clear_twice_portable};

/* The first bits from which the lists after the onces count twice: every
 * bit of the first three words and around each word's ends, and past the
 * words (nothing twice). */
static int is_first_bit_tried(size_t bit) {
  return bit < 3 * 64 || bit % 64 <= 1 || bit % 64 == 63 || bit % 64 == 32;
}

/* Tables of no word, within one AVX-512 block of eight, one block and a
 * tail, and two blocks and a tail. */
static const size_t tables[] = {0, 1, 2, 7, 8, 9, 12, 16, 19};

START_TEST(test_twice_count_matches_the_definition) {
  static uint64_t base[MOST], sets[LISTS][NQ_BIT_COUNT_SETS][MOST];
  nq_bit_sets_t pointers[LISTS];
  point_at(pointers, sets);
  uint64_t state = 17;
  for (int round = 0; round < 2; round++) {
    fill_words(base, sets, round, &state);
    for (size_t lists = 0; lists <= LISTS; lists++)
      for (size_t twice_lists = 0; twice_lists <= lists; twice_lists++)
        for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
          for (size_t words = tables[t], first = 0; first <= 64 * words + 64; first++) {
            if (!is_first_bit_tried(first))
              continue;
            const uint64_t got = twice_counts[_i](base, pointers, lists, twice_lists, first, words);
            uint64_t expected = 0;
            for (size_t k = 0; k < lists; k++)
              expected += by_definition(base, sets[k], 0, words) +
                          (k >= twice_lists ? clear_from_bit(base, sets[k], 0, words, first) : 0);
            if (got != expected)
              ck_abort_msg("round %d, %zu lists, twice from list %zu and bit %zu, %zu words: "
                           "%llu counted, expected %llu",
                           round, lists, twice_lists, first, words, (unsigned long long)got,
                           (unsigned long long)expected);
          }
  }
}
END_TEST

static Suite *bit_count_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("bit_count");
  TCase *count = support_tcase("count");
  tcase_add_loop_test(count, test_count_matches_the_definition, 0,
                      sizeof counts / sizeof counts[0]);
  tcase_add_loop_test(count, test_twice_count_matches_the_definition, 0,
                      sizeof twice_counts / sizeof twice_counts[0]);
  suite_add_tcase(suite, count);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, bit_count_suite); }
