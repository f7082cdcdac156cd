#ifndef NQ_TESTS_KNOWN_COUNTS_H
#define NQ_TESTS_KNOWN_COUNTS_H

#include <stdint.h>

/* Q(n): OEIS A000170, all solutions of the n-queens problem.
 * U(n): OEIS A002562, solutions up to rotation and reflection.
 * Copied from OEIS, never computed by the code under test. */
#define KNOWN_MAX_N 18

/* The whole published range, n = 0..27, for benchmarks of large boards. */
#define KNOWN_LARGE_MAX_N 27
static const uint64_t known_all_large[KNOWN_LARGE_MAX_N + 1] = {
    1ull,              1ull,               0ull,
    0ull,              2ull,               10ull,
    4ull,              40ull,              92ull,
    352ull,            724ull,             2680ull,
    14200ull,          73712ull,           365596ull,
    2279184ull,        14772512ull,        95815104ull,
    666090624ull,      4968057848ull,      39029188884ull,
    314666222712ull,   2691008701644ull,   24233937684440ull,
    227514171973736ull, 2207893435808352ull, 22317699616364044ull,
    234907967154122528ull};

/* U(n) over the whole published range, n = 0..27 (A002562). */
static const uint64_t known_unique_large[KNOWN_LARGE_MAX_N + 1] = {
    1ull,               1ull,                0ull,
    0ull,               1ull,                2ull,
    1ull,               6ull,                12ull,
    46ull,              92ull,               341ull,
    1787ull,            9233ull,             45752ull,
    285053ull,          1846955ull,          11977939ull,
    83263591ull,        621012754ull,        4878666808ull,
    39333324973ull,     336376244042ull,     3029242658210ull,
    28439272956934ull,  275986683743434ull,  2789712466510289ull,
    29363495934315694ull};

/* R(n): OEIS A033148, the solutions the quarter turn maps onto themselves,
 * n = 1..27; n = 0, which OEIS leaves out, is the empty board, fixed by
 * every symmetry. */
static const uint64_t known_quarter_turn[KNOWN_LARGE_MAX_N + 1] = {
    1, 1, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 8, 8, 0, 0, 64, 128, 0, 0, 480, 704, 0, 0, 3328, 3264, 0,
    0};

static const uint64_t known_all[KNOWN_MAX_N + 1] = {
    1,        1,       0,        0,         2,          10,        4,
    40,       92,      352,      724,       2680,       14200,     73712,
    365596,   2279184, 14772512, 95815104,  666090624};

static const uint64_t known_unique[KNOWN_MAX_N + 1] = {
    1,       1,      0,       0,        1,        2,        1,
    6,       12,     46,      92,       341,      1787,     9233,
    45752,   285053, 1846955, 11977939, 83263591};

#endif
