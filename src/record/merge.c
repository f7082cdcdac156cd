#include "merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "merge_cycles.h"
#include "method.h"
#include "nqueens/error.h"
#include "nqueens/slice.h"
#include "totals.h"

/* A record's three sums (solutions, unique_times_8, nodes) in 128 bits,
 * added and subtracted modulo 2^128: a difference of two prefix sums is
 * exact as long as the true value fits, which the bound below ensures. */
typedef struct sums {
  unsigned __int128 v[3];
} sums_t;

/* A record's sums stay below 2^90 (a batch of 65,536 units of at most 8 x
 * 2^64 each is below 2^83), so that a chain of up to 2^37 records never
 * reaches 2^127.  A larger sum is refused as a damaged journal. */
#define SUM_BITS_MAX 90

/* A record or check as merge keeps it: its units, its sums, and the
 * journal it came from. */
typedef struct entry {
  uint64_t first, end;
  sums_t sums;
  int64_t time_ms; /* with the rank, which run wrote it: a copy has the same */
  int rank;
  int journal;
  int is_check, agrees;
  int conflicted; /* a record that closed a cycle whose two sums differ */
} entry_t;

typedef struct entries {
  entry_t *items;
  size_t count, capacity;
} entries_t;

typedef struct reader {
  entries_t records, checks;
  int journal;
} reader_t;

static sums_t sums_sub(sums_t a, sums_t b) {
  for (int i = 0; i < 3; i++)
    a.v[i] -= b.v[i];
  return a;
}

static sums_t sums_add(sums_t a, sums_t b) {
  for (int i = 0; i < 3; i++)
    a.v[i] += b.v[i];
  return a;
}

/* Two sums of one range agree: the counts, and the nodes where the
 * method's are the same however a unit is solved (nodes_are_fixed). */
static int sums_agree(sums_t a, sums_t b, int nodes_compared) {
  return a.v[0] == b.v[0] && a.v[1] == b.v[1] && (a.v[2] == b.v[2] || !nodes_compared);
}

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
                   .time_ms = line->time_ms, .rank = line->rank, .journal = reader->journal,
                   .is_check = line->is_check, .agrees = line->agrees};
  const mpz_srcptr sums[3] = {line->sums->solutions, line->sums->unique_times_8,
                              line->sums->nodes};
  for (int i = 0; i < 3; i++)
    if (mpz_sizeinbase(sums[i], 2) > SUM_BITS_MAX ||
        nq__totals_to_u128(&entry.sums.v[i], sums[i]) != NQ_OK)
      return NQ_EOVERFLOW;
  return push(line->is_check ? &reader->checks : &reader->records, &entry);
}

/* The journal must be of the same count as the first: same method, n,
 * options, depth, unit scheme and units.  Slices and versions may differ. */
static int same_count(char *message, const char *path, const nq__journal_header_t *found,
                      const nq__journal_header_t *first, const char *first_path) {
  if (strcmp(found->method, first->method) == 0 && found->n == first->n &&
      found->unique == first->unique && found->depth == first->depth &&
      found->scheme == first->scheme && found->total_units == first->total_units)
    return NQ_OK;
  snprintf(message, NQ__MESSAGE_SIZE,
           "%s: not the same count as %s (--method %s, n = %d, unique %d, depth %d, scheme %d, "
           "%" PRIu64 " units against --method %s, n = %d, unique %d, depth %d, scheme %d, "
           "%" PRIu64 " units)",
           path, first_path, found->method, found->n, found->unique, found->depth,
           found->scheme, found->total_units, first->method, first->n, first->unique,
           first->depth, first->scheme, first->total_units);
  return NQ_EJOURNAL;
}

/* One file under two names would confirm itself. */
static int named_before(char *message, char *const *paths, const nq__journal_state_t *states,
                        int index) {
  for (int j = 0; j < index; j++)
    if (states[j].device == states[index].device && states[j].inode == states[index].inode) {
      snprintf(message, NQ__MESSAGE_SIZE,
               "%s and %s are the same file: a journal cannot confirm itself", paths[j],
               paths[index]);
      return NQ_EJOURNAL;
    }
  return NQ_OK;
}

/* Reads journal i into the reader's entries; its header and identity go
 * into states[i]. */
static int read_one(nq__merge_result_t *result, reader_t *reader, nq__journal_state_t *states,
                    char *message, char *const *paths, int i) {
  nq__journal_state_t *state = &states[i];
  nq__journal_state_init(state);
  reader->journal = i;
  int rc = nq__journal_visit(state, message, paths[i], keep_line, reader);
  if (rc == NQ_EOVERFLOW)
    snprintf(message, NQ__MESSAGE_SIZE,
             "%s: a record's sum passes 2^%d, which no batch reaches", paths[i], SUM_BITS_MAX);
  if (rc == NQ_OK)
    rc = named_before(message, paths, states, i);
  if (rc == NQ_OK && i == 0)
    rc = nq__journal_check_units(&state->header, message, paths[i]);
  if (rc == NQ_OK && i == 0)
    result->header = state->header;
  else if (rc == NQ_OK)
    rc = same_count(message, paths[i], &state->header, &result->header, paths[0]);
  nq__journal_state_clear(state);
  return rc == NQ_OK || rc == NQ_ENOMEM ? rc : NQ_EJOURNAL;
}

static int read_all(nq__merge_result_t *result, reader_t *reader, nq__journal_state_t *states,
                    char *message, char *const *paths, int count) {
  for (int i = 0; i < count; i++) {
    int rc = read_one(result, reader, states, message, paths, i);
    if (rc != NQ_OK)
      return rc;
    /* A torn last line (a run may be writing it) is left out, as a resume
     * would; the first such warning is kept for the caller. */
    if (message[0] != '\0' && result->warning[0] == '\0')
      snprintf(result->warning, sizeof result->warning, "%s", message);
    message[0] = '\0';
  }
  result->journals = count;
  return NQ_OK;
}

/* ---- the slices to run again ---- */

/* With journals that are all slices of one K: the slices none of them
 * holds, and those that hold missing units. */
static int find_missing_slices(nq__merge_result_t *result, const nq__journal_state_t *states,
                               int count) {
  const int k = states[0].header.slice_count;
  for (int i = 0; i < count; i++)
    if (states[i].header.slice_count != k || k < 2)
      return NQ_OK;
  nq_slice_t slice;
  if (nq_slice_init(&slice, 0, k, result->header.total_units) != NQ_OK)
    return NQ_OK;
  unsigned char *wanted = malloc((size_t)k);
  result->slices_missing = malloc((size_t)k * sizeof *result->slices_missing);
  if (wanted == NULL || result->slices_missing == NULL) {
    free(wanted);
    return NQ_ENOMEM;
  }
  /* A slice with no unit (more slices than units: n = 1 in 3) has nothing
   * to run, journal or not. */
  for (int s = 0; s < k; s++) {
    nq_slice_t its;
    wanted[s] =
        nq_slice_init(&its, s, k, result->header.total_units) == NQ_OK && nq_slice_units(&its) > 0;
  }
  for (int i = 0; i < count; i++)
    wanted[states[i].header.slice_index] = 0;
  for (size_t r = 0; r < result->missing_count; r++) {
    const nq__journal_range_t *range = &result->missing[r];
    uint64_t blocks = (range->end - 1) / slice.block - range->first / slice.block + 1;
    for (uint64_t b = 0; b < blocks && b < (uint64_t)k; b++)
      wanted[nq_slice_of(&slice, range->first + b * slice.block)] = 1;
  }
  result->slice_count = k;
  for (int s = 0; s < k; s++)
    if (wanted[s])
      result->slices_missing[result->slices_missing_count++] = s;
  free(wanted);
  return NQ_OK;
}

/* ---- the records as equations over prefix sums ----
 *
 * A record of units first..end-1 says P(end) - P(first) = S, where P(x)
 * is the sum over the units before x.  The ends of all records are the
 * points; a weighted union-find over them holds, for each point, P(point)
 * - P(root of its set).  A record whose two ends are already joined is a
 * second way of summing that range: equal, or a conflict.  A spanning
 * forest of the records that joined sets, kept beside it, gives the other
 * way as a chain of records, to name the range and the journals. */

typedef struct graph {
  entry_t *records;
  uint64_t *points; /* sorted, distinct */
  size_t point_count;
  size_t *set_parent, *set_size;
  sums_t *set_offset;         /* P(point) - P(set_parent) */
  size_t *tree_parent;        /* the forest: a root is its own parent */
  size_t *tree_record;        /* the record joining a point to its tree parent */
  unsigned *mark, mark_round; /* points seen on a chain walk, by round */
  int nodes_compared;         /* sums_agree's */
  unsigned char *confirmed;   /* by stretch from each point to the next: mark_compared */
} graph_t;

static size_t point_of(const graph_t *g, uint64_t value) {
  size_t low = 0, high = g->point_count;
  while (high - low > 1) {
    size_t middle = low + (high - low) / 2;
    if (g->points[middle] <= value)
      low = middle;
    else
      high = middle;
  }
  return low;
}

/* The root of x's set, and P(x) - P(root); compresses the path. */
static size_t find(graph_t *g, size_t x, sums_t *offset) {
  sums_t total = {{0, 0, 0}};
  size_t root = x;
  while (g->set_parent[root] != root) {
    total = sums_add(total, g->set_offset[root]);
    root = g->set_parent[root];
  }
  *offset = total;
  /* Each point on the way now hangs from the root with its own offset. */
  while (g->set_parent[x] != root && x != root) {
    size_t next = g->set_parent[x];
    sums_t rest = sums_sub(total, g->set_offset[x]);
    g->set_parent[x] = root;
    g->set_offset[x] = total;
    total = rest;
    x = next;
  }
  return root;
}

/* Makes x the root of its tree, turning the parent links on its way. */
static void make_tree_root(graph_t *g, size_t x) {
  size_t node = x, parent = g->tree_parent[x], record = g->tree_record[x];
  g->tree_parent[x] = x;
  while (parent != node) {
    size_t next_parent = g->tree_parent[parent], next_record = g->tree_record[parent];
    g->tree_parent[parent] = node;
    g->tree_record[parent] = record;
    if (next_parent == parent)
      break;
    node = parent;
    parent = next_parent;
    record = next_record;
  }
}

/* Joins the sets of a and b (roots ra, rb; offsets oa, ob) so that P(b) -
 * P(a) = s, the smaller under the larger, and the trees by record r. */
static void join(graph_t *g, size_t a, size_t b, size_t r, sums_t s) {
  sums_t oa, ob;
  size_t ra = find(g, a, &oa), rb = find(g, b, &ob);
  sums_t rb_over_ra = sums_add(sums_sub(s, ob), oa); /* P(rb) - P(ra) */
  if (g->set_size[ra] >= g->set_size[rb]) {
    g->set_parent[rb] = ra;
    g->set_offset[rb] = rb_over_ra;
    g->set_size[ra] += g->set_size[rb];
    make_tree_root(g, b);
    g->tree_parent[b] = a;
    g->tree_record[b] = r;
  } else {
    g->set_parent[ra] = rb;
    g->set_offset[ra] = sums_sub((sums_t){{0, 0, 0}}, rb_over_ra);
    g->set_size[rb] += g->set_size[ra];
    make_tree_root(g, a);
    g->tree_parent[a] = b;
    g->tree_record[a] = r;
  }
}

static int add_other(nq__merge_conflict_t *c, int journal) {
  if (journal == c->journal)
    return NQ_OK;
  for (int i = 0; i < c->other_count; i++)
    if (c->others[i] == journal)
      return NQ_OK;
  int *grown = realloc(c->others, ((size_t)c->other_count + 1) * sizeof *grown);
  if (grown == NULL)
    return NQ_ENOMEM;
  c->others = grown;
  c->others[c->other_count++] = journal;
  return NQ_OK;
}

/* Walks the tree from x up to (not past) the first marked point, widening
 * the conflict's range and naming the journals on the way; returns where
 * it stopped. */
static size_t walk_chain(graph_t *g, nq__merge_conflict_t *c, size_t x, int *rc) {
  while (g->mark[x] != g->mark_round && g->tree_parent[x] != x) {
    const entry_t *record = &g->records[g->tree_record[x]];
    if (record->first < c->first)
      c->first = record->first;
    if (record->end > c->end)
      c->end = record->end;
    if (*rc == NQ_OK)
      *rc = add_other(c, record->journal);
    x = g->tree_parent[x];
  }
  return x;
}

/* The chain of records between a and b: the conflict's range is what it
 * spans together with the record that closed the cycle. */
static int describe_cycle(graph_t *g, nq__merge_conflict_t *c, size_t a, size_t b) {
  g->mark_round++;
  for (size_t x = a;; x = g->tree_parent[x]) {
    g->mark[x] = g->mark_round;
    if (g->tree_parent[x] == x)
      break;
  }
  int rc = NQ_OK;
  size_t meeting = walk_chain(g, c, b, &rc); /* b up to a's path */
  g->mark_round++;
  g->mark[meeting] = g->mark_round;
  walk_chain(g, c, a, &rc); /* a up to the meeting point */
  return rc;
}

static int add_conflict(nq__merge_result_t *result, nq__merge_conflict_t **kept,
                        nq__merge_conflict_kind_t kind, uint64_t first, uint64_t end,
                        int journal) {
  *kept = NULL;
  if (result->conflict_count++ >= NQ__MERGE_CONFLICTS_KEPT)
    return NQ_OK;
  size_t index = result->conflict_count - 1;
  nq__merge_conflict_t *grown = realloc(result->conflicts, (index + 1) * sizeof *grown);
  if (grown == NULL)
    return NQ_ENOMEM;
  result->conflicts = grown;
  grown[index] = (nq__merge_conflict_t){kind, first, end, journal, NULL, 0};
  *kept = &grown[index];
  return NQ_OK;
}

/* One record as an equation: joins two sets, or checks a second way of
 * summing its range. */
static int add_record(nq__merge_result_t *result, graph_t *g, size_t r) {
  entry_t *record = &g->records[r];
  size_t a = point_of(g, record->first), b = point_of(g, record->end);
  sums_t oa, ob;
  if (find(g, a, &oa) != find(g, b, &ob)) {
    join(g, a, b, r, record->sums);
    return NQ_OK;
  }
  if (sums_agree(sums_sub(ob, oa), record->sums, g->nodes_compared))
    return NQ_OK;
  record->conflicted = 1;
  nq__merge_conflict_t *c;
  int rc = add_conflict(result, &c, NQ__MERGE_DIFFER, record->first, record->end,
                        record->journal);
  return rc == NQ_OK && c != NULL ? describe_cycle(g, c, a, b) : rc;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The records' ends as distinct points, and the sets and the forest over
 * them, each point alone. */
static int graph_build(graph_t *g, const entries_t *records) {
  memset(g, 0, sizeof *g);
  g->records = records->items;
  size_t point_slots = 2 * records->count;
  g->points = malloc((point_slots ? point_slots : 1) * sizeof *g->points);
  if (g->points == NULL)
    return NQ_ENOMEM;
  for (size_t i = 0; i < records->count; i++) {
    g->points[2 * i] = records->items[i].first;
    g->points[2 * i + 1] = records->items[i].end;
  }
  qsort(g->points, point_slots, sizeof *g->points, compare_u64);
  size_t distinct = 0;
  for (size_t i = 0; i < point_slots; i++)
    if (distinct == 0 || g->points[distinct - 1] != g->points[i])
      g->points[distinct++] = g->points[i];
  g->point_count = distinct;
  size_t n = distinct ? distinct : 1;
  g->set_parent = malloc(n * sizeof *g->set_parent);
  g->set_size = malloc(n * sizeof *g->set_size);
  g->set_offset = calloc(n, sizeof *g->set_offset);
  g->tree_parent = malloc(n * sizeof *g->tree_parent);
  g->tree_record = calloc(n, sizeof *g->tree_record);
  g->mark = calloc(n, sizeof *g->mark);
  if (!g->set_parent || !g->set_size || !g->set_offset || !g->tree_parent || !g->tree_record ||
      !g->mark)
    return NQ_ENOMEM;
  for (size_t i = 0; i < distinct; i++) {
    g->set_parent[i] = g->tree_parent[i] = i;
    g->set_size[i] = 1;
  }
  return NQ_OK;
}

static void graph_free(graph_t *g) {
  free(g->points);
  free(g->set_parent);
  free(g->set_size);
  free(g->set_offset);
  free(g->tree_parent);
  free(g->tree_record);
  free(g->mark);
  free(g->confirmed);
}

/* ---- copies ---- */

/* The same line in two journals (same units, rank, millisecond and sums)
 * is one run's work copied (a journal backed up, or copied and then
 * resumed in both places), not a second solve: kept once, it confirms
 * nothing.  Lines of one journal never repeat. */
static int by_identity(const void *a, const void *b) {
  const entry_t *x = a, *y = b;
  if (x->first != y->first)
    return (x->first > y->first) - (x->first < y->first);
  if (x->end != y->end)
    return (x->end > y->end) - (x->end < y->end);
  if (x->time_ms != y->time_ms)
    return (x->time_ms > y->time_ms) - (x->time_ms < y->time_ms);
  if (x->rank != y->rank)
    return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->journal > y->journal) - (x->journal < y->journal);
}

static int same_line(const entry_t *x, const entry_t *y) {
  return x->first == y->first && x->end == y->end && x->time_ms == y->time_ms &&
         x->rank == y->rank && x->agrees == y->agrees &&
         memcmp(&x->sums, &y->sums, sizeof x->sums) == 0;
}

/* Drops every line that an earlier journal holds too; returns how many. */
static uint64_t drop_copies(entries_t *list) {
  if (list->count < 2)
    return 0;
  qsort(list->items, list->count, sizeof *list->items, by_identity);
  size_t kept = 1;
  for (size_t i = 1; i < list->count; i++)
    if (!same_line(&list->items[i], &list->items[kept - 1]))
      list->items[kept++] = list->items[i];
  uint64_t dropped = list->count - kept;
  list->count = kept;
  return dropped;
}

/* ---- combining ---- */

static int by_first(const void *a, const void *b) {
  const entry_t *x = a, *y = b;
  if (x->first != y->first)
    return (x->first > y->first) - (x->first < y->first);
  return (x->journal > y->journal) - (x->journal < y->journal);
}

/* Records in the order that closes each cycle with the record reaching
 * furthest right, so that a chain found for it keeps to the left of its
 * end: by end, then the shorter first. */
static int by_end(const void *a, const void *b) {
  const entry_t *x = *(const entry_t *const *)a, *y = *(const entry_t *const *)b;
  if (x->end != y->end)
    return (x->end > y->end) - (x->end < y->end);
  if (x->first != y->first)
    return (x->first < y->first) - (x->first > y->first);
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

static void add_to_totals(nq__merge_result_t *result, mpz_t scratch, sums_t sums) {
  mpz_ptr totals[3] = {result->solutions, result->unique_times_8, result->nodes};
  for (int i = 0; i < 3; i++) {
    nq__totals_from_u128(scratch, sums.v[i]);
    mpz_add(totals[i], totals[i], scratch);
  }
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++) {
    uint32_t prime = nq__residue_primes[i];
    result->solutions_mod[i] =
        (uint32_t)(((uint64_t)result->solutions_mod[i] + (uint64_t)(sums.v[0] % prime)) % prime);
  }
}

/* ---- which records were compared ---- */

/* Each record as an edge between its two points, into merge_cycles.c:
 * g->confirmed by stretch (the flags by record are not kept). */
static int mark_compared(graph_t *g, size_t count) {
  const size_t slots = count ? count : 1, points = g->point_count ? g->point_count : 1;
  nq__merge_edge_t *edges = malloc(slots * sizeof *edges);
  unsigned char *on_cycle = malloc(slots);
  g->confirmed = malloc(points);
  int rc = edges && on_cycle && g->confirmed ? NQ_OK : NQ_ENOMEM;
  for (size_t r = 0; rc == NQ_OK && r < count; r++)
    edges[r] = (nq__merge_edge_t){point_of(g, g->records[r].first),
                                  point_of(g, g->records[r].end)};
  if (rc == NQ_OK)
    rc = nq__merge_find_compared(on_cycle, g->confirmed, edges, count, g->point_count);
  free(edges);
  free(on_cycle);
  return rc;
}

/* Units that two or more records cover, among records sorted by first
 * (those of one journal never overlap). */
static uint64_t covered_twice(const entry_t *records, size_t count) {
  uint64_t twice = 0, reach = 0, twice_reach = 0; /* how far one record, and two, reach */
  for (size_t i = 0; i < count; i++) {
    uint64_t from = records[i].first, to = records[i].end;
    uint64_t shared_end = reach < to ? reach : to; /* this record under the ones before */
    uint64_t shared_from = from > twice_reach ? from : twice_reach;
    if (shared_end > shared_from) {
      twice += shared_end - shared_from;
      twice_reach = shared_end;
    }
    if (to > reach)
      reach = to;
  }
  return twice;
}

/* A group: records that overlap one another, directly or through others,
 * covering units first..end-1.  Its sum is P(end) - P(first), when a
 * chain of records joins the two (a cycle never leaves its group: no
 * record crosses the point between two groups). */
static int take_group(nq__merge_result_t *result, graph_t *g, const entry_t *records,
                      size_t count, uint64_t first, uint64_t end, mpz_t scratch) {
  sums_t at_first, at_end;
  const uint64_t length = end - first;
  if (find(g, point_of(g, first), &at_first) != find(g, point_of(g, end), &at_end)) {
    result->units_unresolved += length;
    nq__merge_conflict_t *c;
    return add_conflict(result, &c, NQ__MERGE_UNRESOLVED, first, end, records[0].journal);
  }
  add_to_totals(result, scratch, sums_sub(at_end, at_first));
  result->units_present += length;
  int conflicted = 0;
  for (size_t i = 0; i < count; i++)
    conflicted |= records[i].conflicted;
  if (conflicted)
    return NQ_OK;
  uint64_t confirmed = 0;
  for (size_t i = point_of(g, first); g->points[i] < end; i++)
    confirmed += g->confirmed[i] ? g->points[i + 1] - g->points[i] : 0;
  result->units_confirmed += confirmed;
  result->units_uncompared += covered_twice(records, count) - confirmed;
  return NQ_OK;
}

/* Every record into the equations, in by_end's order. */
static int add_records(nq__merge_result_t *result, graph_t *g, entries_t *records) {
  const entry_t **order = malloc((records->count ? records->count : 1) * sizeof *order);
  if (order == NULL)
    return NQ_ENOMEM;
  for (size_t i = 0; i < records->count; i++)
    order[i] = &records->items[i];
  qsort(order, records->count, sizeof *order, by_end);
  int rc = NQ_OK;
  for (size_t i = 0; rc == NQ_OK && i < records->count; i++)
    rc = add_record(result, g, (size_t)(order[i] - records->items));
  free(order);
  return rc;
}

/* Group by group: the missing ranges between groups, and each group's
 * sum. */
static int take_groups(nq__merge_result_t *result, graph_t *g, const entries_t *records) {
  mpz_t scratch;
  mpz_init(scratch);
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
      rc = take_group(result, g, records->items + start, stop - start, first, end, scratch);
    covered = end;
    start = stop;
  }
  if (rc == NQ_OK)
    rc = add_missing(result, covered, result->header.total_units);
  mpz_clear(scratch);
  return rc;
}

/* A check of units first..end-1: a "differ" verdict is a conflict; an
 * "agree" one is compared with the records' sum of its range, where
 * records join its two ends (else there is nothing to compare). */
static int compare_check(nq__merge_result_t *result, graph_t *g, const entry_t *check) {
  result->checks++;
  nq__merge_conflict_t *c;
  if (!check->agrees)
    return add_conflict(result, &c, NQ__MERGE_CHECK, check->first, check->end, check->journal);
  if (g->point_count == 0)
    return NQ_OK;
  size_t a = point_of(g, check->first), b = point_of(g, check->end);
  sums_t at_first, at_end;
  if (g->points[a] != check->first || g->points[b] != check->end ||
      find(g, a, &at_first) != find(g, b, &at_end))
    return NQ_OK;
  if (sums_agree(sums_sub(at_end, at_first), check->sums, g->nodes_compared)) {
    result->checks_confirmed++;
    return NQ_OK;
  }
  int rc = add_conflict(result, &c, NQ__MERGE_DIFFER, check->first, check->end, check->journal);
  return rc == NQ_OK && c != NULL ? describe_cycle(g, c, a, b) : rc;
}

/* The merged sums against their own checks: the residues summed beside
 * the big integers, and 8 x U divisible by 8. */
static int check_sums(nq__merge_result_t *result) {
  nq__merge_conflict_t *c;
  for (int i = 0; i < NQ_COUNT_RESIDUES; i++)
    if (mpz_fdiv_ui(result->solutions, nq__residue_primes[i]) != result->solutions_mod[i])
      return add_conflict(result, &c, NQ__MERGE_SUMS, 0, result->header.total_units, -1);
  if (!result->header.unique || !nq__merge_is_total(result))
    return NQ_OK;
  if (!mpz_divisible_ui_p(result->unique_times_8, 8))
    return add_conflict(result, &c, NQ__MERGE_SUMS, 0, result->header.total_units, -1);
  mpz_divexact_ui(result->unique, result->unique_times_8, 8);
  return NQ_OK;
}

void nq__merge_result_init(nq__merge_result_t *result) {
  memset(result, 0, sizeof *result);
  mpz_init(result->solutions);
  mpz_init(result->unique_times_8);
  mpz_init(result->nodes);
  mpz_init(result->unique);
}

void nq__merge_result_clear(nq__merge_result_t *result) {
  size_t kept = result->conflict_count < NQ__MERGE_CONFLICTS_KEPT ? result->conflict_count
                                                                   : NQ__MERGE_CONFLICTS_KEPT;
  for (size_t i = 0; result->conflicts != NULL && i < kept; i++)
    free(result->conflicts[i].others);
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

static int combine(nq__merge_result_t *result, reader_t *reader,
                   const nq__journal_state_t *states) {
  result->lines_copied = drop_copies(&reader->records) + drop_copies(&reader->checks);
  if (reader->records.count > 0) /* qsort takes no NULL, even for nothing */
    qsort(reader->records.items, reader->records.count, sizeof *reader->records.items, by_first);
  graph_t g;
  int rc = graph_build(&g, &reader->records);
  const nq__method_t *method = nq__method_named(result->header.method);
  g.nodes_compared = method == NULL || method->nodes_are_fixed;
  if (rc == NQ_OK)
    rc = add_records(result, &g, &reader->records);
  if (rc == NQ_OK)
    rc = mark_compared(&g, reader->records.count);
  if (rc == NQ_OK)
    rc = take_groups(result, &g, &reader->records);
  for (size_t i = 0; rc == NQ_OK && i < reader->checks.count; i++)
    rc = compare_check(result, &g, &reader->checks.items[i]);
  graph_free(&g);
  if (rc == NQ_OK)
    rc = check_sums(result);
  if (rc == NQ_OK)
    rc = find_missing_slices(result, states, result->journals);
  return rc;
}

int nq__merge_journals(nq__merge_result_t *result, char message[static NQ__MESSAGE_SIZE],
                       char *const *paths, int count) {
  reader_t reader = {{NULL, 0, 0}, {NULL, 0, 0}, 0};
  message[0] = '\0';
  nq__journal_state_t *states = calloc(count > 0 ? (size_t)count : 1, sizeof *states);
  int rc = states != NULL ? read_all(result, &reader, states, message, paths, count) : NQ_ENOMEM;
  if (rc == NQ_OK)
    rc = combine(result, &reader, states);
  if (rc == NQ_ENOMEM)
    snprintf(message, NQ__MESSAGE_SIZE, "out of memory while merging");
  free(states);
  free(reader.records.items);
  free(reader.checks.items);
  return rc;
}
