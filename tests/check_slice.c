/* Slices (include/nqueens/slice.h): every unit in exactly one slice, the
 * slices' unit counts what their membership says and summing to the whole,
 * each slice drawing from the whole id order. */
#include <check.h>
#include <stdlib.h>

#include "nqueens/error.h"
#include "nqueens/slice.h"
#include "support.h"

static const uint64_t totals[] = {0, 1, 5, 1000, 3071, 3072, 3073, 123457};
static const int counts[] = {1, 2, 3, 7, 1000};

START_TEST(test_slices_partition_the_units) {
  const uint64_t total = totals[_i];
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    const int k = counts[c];
    uint64_t *held = calloc((size_t)k, sizeof *held);
    ck_assert_ptr_nonnull(held);
    nq_slice_t first;
    ck_assert_int_eq(nq_slice_init(&first, 0, k, total), NQ_OK);
    uint64_t out_of_range = 0; /* counted, then asserted once: the loop stays cheap */
    for (uint64_t id = 0; id < total; id++) {
      int of = nq_slice_of(&first, id);
      if (of < 0 || of >= k)
        out_of_range++;
      else
        held[of]++;
    }
    ck_assert_uint_eq(out_of_range, 0);
    uint64_t sum = 0;
    for (int index = 0; index < k; index++) {
      nq_slice_t slice;
      ck_assert_int_eq(nq_slice_init(&slice, index, k, total), NQ_OK);
      ck_assert_uint_eq(nq_slice_units(&slice), held[index]);
      /* Membership agrees with the slice each id was dealt to (spot checks). */
      uint64_t disagree = 0;
      for (uint64_t id = (uint64_t)index; id < total; id += 97)
        disagree += nq_slice_holds(&slice, id) != (k == 1 || nq_slice_of(&first, id) == index);
      ck_assert_uint_eq(disagree, 0);
      sum += held[index];
    }
    ck_assert_uint_eq(sum, total);
    free(held);
  }
}
END_TEST

/* With units enough, every slice has units in each tenth of the id order. */
START_TEST(test_slices_draw_from_the_whole_order) {
  const uint64_t total = 1000000;
  for (int index = 0; index < 3; index++) {
    nq_slice_t slice;
    ck_assert_int_eq(nq_slice_init(&slice, index, 3, total), NQ_OK);
    int tenths[10] = {0};
    for (uint64_t id = 0; id < total; id++)
      if (nq_slice_holds(&slice, id))
        tenths[id * 10 / total] = 1;
    for (int t = 0; t < 10; t++)
      ck_assert_msg(tenths[t], "slice %d has no unit in tenth %d", index, t);
  }
}
END_TEST

/* A range is the slice's exactly when every id of it is: against
 * nq_slice_holds id by id, every range of up to three blocks from every id
 * of totals up to 3073, and a long one at 123457. */
START_TEST(test_slice_holds_exactly_its_ranges) {
  const uint64_t total = totals[_i];
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    const int k = counts[c];
    uint64_t wrong = 0;
    for (int index = 0; index < k; index++) {
      nq_slice_t slice;
      ck_assert_int_eq(nq_slice_init(&slice, index, k, total), NQ_OK);
      const uint64_t step = total > 5000 ? 997 : 1;
      for (uint64_t first = 0; first < total; first += step) {
        int all_held = 1;
        for (uint64_t count = 1; count <= 3 * slice.block && first + count <= total; count++) {
          all_held = all_held && nq_slice_holds(&slice, first + count - 1);
          wrong += nq_slice_holds_range(&slice, first, count) != all_held;
        }
      }
    }
    ck_assert_msg(wrong == 0, "total %llu, %d slices: %llu ranges judged wrong",
                  (unsigned long long)total, k, (unsigned long long)wrong);
  }
}
END_TEST

START_TEST(test_slice_init_refuses_bad_slices) {
  nq_slice_t slice;
  ck_assert_int_eq(nq_slice_init(&slice, 0, 0, 10), NQ_EINVAL);
  ck_assert_int_eq(nq_slice_init(&slice, -1, 3, 10), NQ_EINVAL);
  ck_assert_int_eq(nq_slice_init(&slice, 3, 3, 10), NQ_EINVAL);
  ck_assert_int_eq(nq_slice_init(&slice, 0, NQ_SLICE_MAX + 1, 10), NQ_EINVAL);
}
END_TEST

static Suite *slice_suite(int argc, char **argv) {
  (void)argc, (void)argv;
  Suite *suite = suite_create("slice");
  TCase *tc = support_tcase("slices");
  tcase_add_loop_test(tc, test_slices_partition_the_units, 0,
                      (int)(sizeof totals / sizeof totals[0]));
  tcase_add_test(tc, test_slices_draw_from_the_whole_order);
  tcase_add_loop_test(tc, test_slice_holds_exactly_its_ranges, 0, sizeof totals / sizeof totals[0]);
  tcase_add_test(tc, test_slice_init_refuses_bad_slices);
  suite_add_tcase(suite, tc);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, slice_suite); }
