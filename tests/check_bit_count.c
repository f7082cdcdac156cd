/* The count of what ORed bitsets leave (src/base/bit_count.h, private)
 * against its definition, bit by bit: every range that starts at one of
 * the first nine words and ends at or before word 48 (so around the
 * AVX-512 blocks of eight and their tail), for none to three lists of
 * sets a call, the dispatching count (AVX-512 where the CPU has it: on a
 * CPU without, both runs check the portable one) and the portable one. */
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
static const count_fn counts[] = {nq__bit_count_clear, nq__bit_count_clear_portable};

static uint64_t by_definition(const uint64_t *base, uint64_t sets[NQ_BIT_COUNT_SETS][MOST],
                              size_t from, size_t to) {
  uint64_t clear = 0;
  for (size_t w = from; w < to; w++)
    for (int b = 0; b < 64; b++) {
      int set = (int)((base[w] >> b) & 1u);
      for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
        set |= (int)((sets[s][w] >> b) & 1u);
      clear += set == 0;
    }
  return clear;
}

START_TEST(test_count_matches_the_definition) {
  static uint64_t base[MOST], sets[LISTS][NQ_BIT_COUNT_SETS][MOST];
  nq_bit_sets_t pointers[LISTS];
  for (int k = 0; k < LISTS; k++)
    for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
      pointers[k][s] = sets[k][s];
  uint64_t state = 11;
  for (int round = 0; round < 4; round++) {
    for (size_t w = 0; w < MOST; w++) {
      /* Round 0: a base of full words here and there, as the walk leaves
       * the words no longer live. */
      base[w] = round == 0 && w % 5 == 0 ? UINT64_MAX : next_word(&state) & next_word(&state);
      for (int k = 0; k < LISTS; k++)
        for (int s = 0; s < NQ_BIT_COUNT_SETS; s++)
          sets[k][s][w] = round == 1 && k == 0 ? 0 : sparse_word(&state) & sparse_word(&state);
    }
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

static Suite *bit_count_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("bit_count");
  TCase *count = tcase_create("count");
  tcase_add_loop_test(count, test_count_matches_the_definition, 0,
                      sizeof counts / sizeof counts[0]);
  suite_add_tcase(suite, count);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, bit_count_suite); }
