#include "merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "nqueens/error.h"
#include "totals.h"

/* A record or check as merge keeps it: its units, its sums in 128 bits (a
 * record's sums are below 2^128 by far: a batch of 65,536 units cannot pass
 * 26 digits), and the journal it came from. */
typedef struct entry {
  uint64_t first, end;
  unsigned __int128 sums[3]; /* solutions, unique_times_8, nodes */
  int journal;
  int is_check, agrees;
} entry_t;

typedef struct entries {
  entry_t *items;
  size_t count, capacity;
} entries_t;

typedef struct reader {
  entries_t records, checks;
  int journal;
} reader_t;

/* ---- reading ---- */

static int push(entries_t *list, const entry_t *entry) {
  if (nq__grow((void **)&list->items, &list->capacity, list->count + 1, sizeof *list->items) !=
      NQ_OK)
    return NQ_ENOMEM;
  list->items[list->count++] = *entry;
  return NQ_OK;
}

static int keep_line(const nq__journal_line_t *line, void *context) {
  reader_t *reader = context;
  entry_t entry = {.first = line->first, .end = line->first + line->count,
                   .journal = reader->journal, .is_check = line->is_check,
                   .agrees = line->agrees};
  const mpz_srcptr sums[3] = {line->sums->solutions, line->sums->unique_times_8,
                              line->sums->nodes};
  for (int i = 0; i < 3; i++)
    if (nq__totals_to_u128(&entry.sums[i], sums[i]) != NQ_OK)
      return NQ_EOVERFLOW;
  return push(line->is_check ? &reader->checks : &reader->records, &entry);
}

/* The journal must be of the same count as the first: same n, options,
 * depth, unit scheme and units.  Slices and versions may differ. */
static int same_count(char *message, const char *path, const nq__journal_header_t *found,
                      const nq__journal_header_t *first, const char *first_path) {
  if (found->n == first->n && found->unique == first->unique && found->depth == first->depth &&
      found->scheme == first->scheme && found->total_units == first->total_units)
    return NQ_OK;
  snprintf(message, NQ__JOURNAL_MESSAGE_SIZE,
           "%s: not the same count as %s (n = %d, unique %d, depth %d, scheme %d, %" PRIu64
           " units against n = %d, unique %d, depth %d, scheme %d, %" PRIu64 " units)",
           path, first_path, found->n, found->unique, found->depth, found->scheme,
           found->total_units, first->n, first->unique, first->depth, first->scheme,
           first->total_units);
  return NQ_EJOURNAL;
}

/* With journals of slices of one K, the slices none of them holds. */
static int find_missing_slices(nq__merge_result_t *result, const int *slices, int count) {
  if (count < 1)
    return NQ_OK;
  const int k = slices[0];
  for (int i = 0; i < count; i++)
    if (slices[2 * i] != k || k < 2)
      return NQ_OK;
  unsigned char *held = calloc((size_t)k, 1);
  result->slices_missing = malloc((size_t)k * sizeof *result->slices_missing);
  if (held == NULL || result->slices_missing == NULL) {
    free(held);
    return NQ_ENOMEM;
  }
  result->slice_count = k;
  for (int i = 0; i < count; i++)
    held[slices[2 * i + 1]] = 1;
  for (int s = 0; s < k; s++)
    if (!held[s])
      result->slices_missing[result->slices_missing_count++] = s;
  free(held);
  return NQ_OK;
}

static int read_all(nq__merge_result_t *result, reader_t *reader, char *message,
                    char *const *paths, int count) {
  for (int i = 0; i < count; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(paths[i], paths[j]) == 0) {
        snprintf(message, NQ__JOURNAL_MESSAGE_SIZE,
                 "%s is given twice: a journal cannot confirm itself", paths[i]);
        return NQ_EJOURNAL;
      }
  int *slices = malloc(2 * (size_t)count * sizeof *slices); /* each journal's K and index */
  if (slices == NULL)
    return NQ_ENOMEM;
  for (int i = 0; i < count; i++) {
    nq__journal_state_t state;
    nq__journal_state_init(&state);
    reader->journal = i;
    int rc = nq__journal_visit(&state, message, paths[i], keep_line, reader);
    if (rc == NQ_EOVERFLOW)
      snprintf(message, NQ__JOURNAL_MESSAGE_SIZE, "%s: a record's sum passes 2^128", paths[i]);
    slices[2 * i] = state.header.slice_count;
    slices[2 * i + 1] = state.header.slice_index;
    if (rc == NQ_OK && i == 0)
      result->header = state.header;
    else if (rc == NQ_OK)
      rc = same_count(message, paths[i], &state.header, &result->header, paths[0]);
    nq__journal_state_clear(&state);
    if (rc != NQ_OK) {
      free(slices);
      return rc == NQ_ENOMEM || rc == NQ_EJOURNAL ? rc : NQ_EJOURNAL;
    }
    /* A torn last line (a run may be writing it) is left out, as a resume
     * would; the first such warning is kept for the caller. */
    if (message[0] != '\0' && result->warning[0] == '\0')
      snprintf(result->warning, sizeof result->warning, "%s", message);
    message[0] = '\0';
  }
  result->journals = count;
  int rc = find_missing_slices(result, slices, count);
  free(slices);
  return rc;
}

/* ---- combining ---- */

static int by_first(const void *a, const void *b) {
  const entry_t *x = a, *y = b;
  if (x->first != y->first)
    return (x->first > y->first) - (x->first < y->first);
  return (x->journal > y->journal) - (x->journal < y->journal);
}

static int add_missing(nq__merge_result_t *result, uint64_t first, uint64_t end) {
  if (first >= end)
    return NQ_OK;
  nq__journal_range_t *grown =
      realloc(result->missing, (result->missing_count + 1) * sizeof *grown);
  if (grown == NULL)
    return NQ_ENOMEM;
  result->missing = grown;
  result->missing[result->missing_count++] = (nq__journal_range_t){first, end};
  result->units_missing += end - first;
  return NQ_OK;
}

static int add_conflict(nq__merge_result_t *result, uint64_t first, uint64_t end, int a, int b) {
  nq__merge_conflict_t *grown =
      realloc(result->conflicts, (result->conflict_count + 1) * sizeof *grown);
  if (grown == NULL)
    return NQ_ENOMEM;
  result->conflicts = grown;
  result->conflicts[result->conflict_count++] = (nq__merge_conflict_t){first, end, a, b};
  return NQ_OK;
}

static const uint32_t primes[NQ_COUNT_RESIDUES] = NQ_COUNT_RESIDUE_PRIMES;

/* One journal's records inside a group: how many units, and their sums. */
typedef struct share {
  uint64_t units;
  unsigned __int128 sums[3];
} share_t;

static int same_sums(const unsigned __int128 *a, const unsigned __int128 *b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static void add_sums(mpz_ptr totals[3], mpz_t scratch, const unsigned __int128 *sums) {
  for (int i = 0; i < 3; i++) {
    nq__totals_from_u128(scratch, sums[i]);
    mpz_add(totals[i], totals[i], scratch);
  }
}

/* A group: records that overlap one another, directly or through others,
 * covering units first..end-1.  A journal whose records there cover every
 * unit of the group is comparable with any other that does; the first
 * such journal's sums count. */
static int take_group(nq__merge_result_t *result, share_t *shares, const entry_t *records,
                      size_t count, uint64_t first, uint64_t end, mpz_ptr totals[3],
                      mpz_t scratch) {
  const int journals = result->journals;
  memset(shares, 0, (size_t)journals * sizeof *shares);
  for (size_t i = 0; i < count; i++) {
    share_t *share = &shares[records[i].journal];
    share->units += records[i].end - records[i].first;
    for (int k = 0; k < 3; k++)
      share->sums[k] += records[i].sums[k];
  }
  const uint64_t length = end - first;
  int counted = -1, recorded = 0, differs = 0;
  for (int j = 0; j < journals; j++) {
    if (shares[j].units == 0)
      continue;
    recorded++;
    if (shares[j].units != length)
      continue;
    if (counted < 0) {
      counted = j;
    } else if (!same_sums(shares[j].sums, shares[counted].sums)) {
      differs = 1;
      if (add_conflict(result, first, end, counted, j) != NQ_OK)
        return NQ_ENOMEM;
    }
  }
  if (counted < 0) { /* nobody has the group whole: the overlaps cannot be compared */
    result->units_unresolved += length;
    return add_conflict(result, first, end, records[0].journal, -1);
  }
  add_sums(totals, scratch, shares[counted].sums);
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    result->solutions_mod[i] = (uint32_t)(((uint64_t)result->solutions_mod[i] +
                                           (uint64_t)(shares[counted].sums[0] % primes[i])) %
                                          primes[i]);
  result->units_present += length;
  int whole = 0;
  for (int j = 0; j < journals; j++)
    whole += shares[j].units == length;
  if (whole > 1 && !differs)
    result->units_confirmed += length;
  if (recorded > whole)
    result->units_unchecked += length;
  return NQ_OK;
}

static int combine_records(nq__merge_result_t *result, entries_t *records, mpz_ptr totals[3]) {
  share_t *shares = calloc((size_t)result->journals, sizeof *shares);
  if (shares == NULL)
    return NQ_ENOMEM;
  mpz_t scratch;
  mpz_init(scratch);
  qsort(records->items, records->count, sizeof *records->items, by_first);
  uint64_t covered = 0;
  int rc = NQ_OK;
  for (size_t start = 0; rc == NQ_OK && start < records->count;) {
    uint64_t first = records->items[start].first, end = records->items[start].end;
    size_t stop = start + 1;
    while (stop < records->count && records->items[stop].first < end) {
      if (records->items[stop].end > end)
        end = records->items[stop].end;
      stop++;
    }
    rc = add_missing(result, covered, first);
    if (rc == NQ_OK)
      rc = take_group(result, shares, records->items + start, stop - start, first, end, totals,
                      scratch);
    covered = end;
    start = stop;
  }
  if (rc == NQ_OK)
    rc = add_missing(result, covered, result->header.total_units);
  mpz_clear(scratch);
  free(shares);
  return rc;
}

/* A check against a record of exactly its units, in any journal. */
static int compare_check(nq__merge_result_t *result, const entries_t *records,
                         const entry_t *check) {
  result->checks++;
  if (!check->agrees)
    return add_conflict(result, check->first, check->end, check->journal, -1);
  entry_t key = {.first = check->first, .journal = -1};
  size_t low = 0, high = records->count;
  while (low < high) { /* the first record starting at or after check->first */
    size_t middle = low + (high - low) / 2;
    if (by_first(&records->items[middle], &key) < 0)
      low = middle + 1;
    else
      high = middle;
  }
  for (size_t i = low; i < records->count && records->items[i].first == check->first; i++) {
    const entry_t *record = &records->items[i];
    if (record->end != check->end)
      continue;
    if (!same_sums(record->sums, check->sums))
      return add_conflict(result, check->first, check->end, record->journal, check->journal);
    result->checks_confirmed++;
    return NQ_OK;
  }
  return NQ_OK; /* no record of those units: nothing to compare */
}

void nq__merge_result_init(nq__merge_result_t *result) {
  memset(result, 0, sizeof *result);
  mpz_init(result->solutions);
  mpz_init(result->unique_times_8);
  mpz_init(result->nodes);
  mpz_init(result->unique);
}

void nq__merge_result_clear(nq__merge_result_t *result) {
  free(result->missing);
  free(result->conflicts);
  free(result->slices_missing);
  mpz_clear(result->solutions);
  mpz_clear(result->unique_times_8);
  mpz_clear(result->nodes);
  mpz_clear(result->unique);
}

int nq__merge_is_total(const nq__merge_result_t *result) {
  return result->units_missing == 0 && result->conflict_count == 0;
}

int nq__merge_journals(nq__merge_result_t *result, char message[static NQ__JOURNAL_MESSAGE_SIZE],
                       char *const *paths, int count) {
  reader_t reader = {{NULL, 0, 0}, {NULL, 0, 0}, 0};
  message[0] = '\0';
  int rc = read_all(result, &reader, message, paths, count);
  mpz_ptr totals[3] = {result->solutions, result->unique_times_8, result->nodes};
  if (rc == NQ_OK)
    rc = combine_records(result, &reader.records, totals);
  for (size_t i = 0; rc == NQ_OK && i < reader.checks.count; i++)
    rc = compare_check(result, &reader.records, &reader.checks.items[i]);
  for (int i = 0; rc == NQ_OK && i < NQ_COUNT_RESIDUES; i++)
    if (mpz_fdiv_ui(result->solutions, primes[i]) != result->solutions_mod[i])
      rc = add_conflict(result, 0, result->header.total_units, -1, -1);
  if (rc == NQ_OK && result->header.unique && nq__merge_is_total(result)) {
    if (!mpz_divisible_ui_p(result->unique_times_8, 8))
      rc = add_conflict(result, 0, result->header.total_units, -1, -1);
    else
      mpz_divexact_ui(result->unique, result->unique_times_8, 8);
  }
  if (rc == NQ_ENOMEM)
    snprintf(message, NQ__JOURNAL_MESSAGE_SIZE, "out of memory while merging");
  free(reader.records.items);
  free(reader.checks.items);
  return rc;
}
