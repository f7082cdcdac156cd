#ifndef NQ_TESTS_KNOWN_COUNTS_H
#define NQ_TESTS_KNOWN_COUNTS_H

#include <stdint.h>

/* Q(n): OEIS A000170, all solutions of the n-queens problem.
 * U(n): OEIS A002562, solutions up to rotation and reflection.
 * Copied from OEIS, never computed by the code under test. */
#define KNOWN_MAX_N 18

static const uint64_t known_all[KNOWN_MAX_N + 1] = {
    1,        1,       0,        0,         2,          10,        4,
    40,       92,      352,      724,       2680,       14200,     73712,
    365596,   2279184, 14772512, 95815104,  666090624};

static const uint64_t known_unique[KNOWN_MAX_N + 1] = {
    1,       1,      0,       0,        1,        2,        1,
    6,       12,     46,      92,       341,      1787,     9233,
    45752,   285053, 1846955, 11977939, 83263591};

#endif
