#include "journal_checks.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "method.h"
#include "nqueens/error.h"
#include "totals.h"

typedef struct check {
  uint64_t first, count;
  unsigned __int128 sums[3]; /* solutions, unique_times_8, nodes */
  int seen, contradicted;    /* a record of its batch: the same sums, other sums */
} check_t;

typedef struct checks {
  check_t *items;
  size_t count, capacity;
  int nodes_compared;
} checks_t;

int nq__journal_line_sums(unsigned __int128 sums[3], const nq__journal_line_t *line) {
  const mpz_srcptr fields[3] = {line->sums->solutions, line->sums->unique_times_8,
                                line->sums->nodes};
  for (int i = 0; i < 3; i++)
    if (nq__totals_to_u128(&sums[i], fields[i]) != NQ_OK)
      return NQ_EOVERFLOW;
  return NQ_OK;
}

int nq__journal_sums_agree(const unsigned __int128 a[3], const unsigned __int128 b[3],
                           int nodes_compared) {
  return a[0] == b[0] && a[1] == b[1] && (a[2] == b[2] || !nodes_compared);
}

static int by_batch(const void *a, const void *b) {
  const check_t *x = a, *y = b;
  if (x->first != y->first)
    return (x->first > y->first) - (x->first < y->first);
  return (x->count > y->count) - (x->count < y->count);
}

static int keep_agreeing_check(const nq__journal_line_t *line, void *context) {
  checks_t *c = context;
  if (!line->is_check || !line->agrees)
    return NQ_OK;
  if (nq__grow((void **)&c->items, &c->capacity, c->count + 1, sizeof *c->items) != NQ_OK)
    return NQ_ENOMEM;
  check_t *check = &c->items[c->count++];
  *check = (check_t){.first = line->first, .count = line->count};
  return nq__journal_line_sums(check->sums, line);
}

/* A record's sums beside every check of its batch: sums too large for
 * 128 bits cannot match a check's, which fit. */
static int hold_record_to_checks(const nq__journal_line_t *line, void *context) {
  checks_t *c = context;
  if (line->is_check)
    return NQ_OK;
  check_t key = {.first = line->first, .count = line->count};
  check_t *found = bsearch(&key, c->items, c->count, sizeof key, by_batch);
  if (found == NULL)
    return NQ_OK;
  unsigned __int128 sums[3];
  const int fits = nq__journal_line_sums(sums, line) == NQ_OK;
  /* Equal checks of one batch sit together: the first of them, then on. */
  while (found > c->items && by_batch(found - 1, &key) == 0)
    found--;
  for (; found < c->items + c->count && by_batch(found, &key) == 0; found++) {
    found->seen = 1;
    found->contradicted |= !fits || !nq__journal_sums_agree(found->sums, sums, c->nodes_compared);
  }
  return NQ_OK;
}

static void tally(nq__journal_checks_t *out, const checks_t *c) {
  for (size_t i = 0; i < c->count; i++) {
    const check_t *check = &c->items[i];
    if (!check->seen)
      continue;
    if (!check->contradicted) {
      out->confirmed++;
    } else if (out->contradicted++ == 0) {
      out->contradicted_first = check->first;
      out->contradicted_end = check->first + check->count;
    }
  }
}

int nq__journal_checks_confirm(nq__journal_checks_t *out, char message[static NQ__MESSAGE_SIZE],
                               const char *path) {
  memset(out, 0, sizeof *out);
  checks_t c = {0};
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  int rc = nq__journal_visit(&state, message, path, keep_agreeing_check, &c);
  out->agreeing = c.count;
  if (rc == NQ_OK && c.count > 0) {
    const nq__method_t *method = nq__method_named(state.header.method);
    c.nodes_compared = method == NULL || method->nodes_are_fixed;
    qsort(c.items, c.count, sizeof *c.items, by_batch);
    nq__journal_state_clear(&state);
    nq__journal_state_init(&state);
    rc = nq__journal_visit(&state, message, path, hold_record_to_checks, &c);
  }
  if (rc == NQ_OK)
    tally(out, &c);
  nq__journal_state_clear(&state);
  free(c.items);
  return rc;
}
