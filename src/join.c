/* The join method: Q(n) as a sum over column sets S of the pairs of a top
 * half (rows 0..m-1, columns S) and a bottom half (rows m..n-1, the other
 * columns) whose diagonals do not meet.  A top half is summed up by what
 * its queens attack on row m, two n-bit masks (ld, rd); a bottom queen at
 * (r, c) meets a top half's diagonals on row m at c - (r - m) and
 * c + (r - m).  The tops of a bucket are stored transposed, as one bitset
 * over the tops for each square of row m and each diagonal direction; the
 * bottom halves are walked as a search, and each queen placed ORs the two
 * bitsets of its squares into the set of tops it rules out.  A bottom half
 * then fits every top outside that set: one popcount over the tops per
 * bottom half, 64 tops a word, and a subtree is cut as soon as no top is
 * left.  The work is the bottom search's nodes times the bucket's tops /
 * 64: quadratic in the bucket, which is why it loses (docs/research.md). */

#include "nqueens/join.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "mpi_check.h"
#include "nqueens/error.h"

#define NQ_JOIN_MAX_N 32





struct nq_join_scratch {
  uint64_t *top_ld, *top_rd; /* the bucket's top halves, as masks on row m */
  size_t tops, top_capacity;
  uint64_t *ruled_out_by;    /* 2n + 1 bitsets of `words` words: ld square p,
                                rd square p, then an empty one */
  uint64_t *stack;           /* per bottom row: the live words of the tops ruled out */
  uint32_t *stack_index;     /* and their indexes */
  size_t words, word_capacity;
  int n, top_rows;
};

/* The walk's constants for one bucket, and what it adds up. */
typedef struct bottom_walk {
  nq_join_scratch_t *scratch;
  const uint8_t *first_row_weight; /* per column of row m: how many column
                                      sets and middle queens the subtree
                                      stands for (0: another's to count) */
  uint64_t board;
  uint64_t solutions;
  nq_join_stats_t stats;
} bottom_walk_t;

int nq_join_scratch_create(nq_join_scratch_t **scratch) {
  *scratch = calloc(1, sizeof **scratch);
  return *scratch == NULL ? NQ_ENOMEM : NQ_OK;
}

void nq_join_scratch_destroy(nq_join_scratch_t *scratch) {
  if (scratch == NULL)
    return;
  free(scratch->top_ld);
  free(scratch->top_rd);
  free(scratch->ruled_out_by);
  free(scratch->stack);
  free(scratch->stack_index);
  free(scratch);
}

/* Half the board: the up-down flip then halves the work, on odd boards
 * with the middle row's queen between the halves. */
int nq_join_default_top_rows(int n) { return n / 2; }

static int push_top(nq_join_scratch_t *scratch, uint64_t ld, uint64_t rd) {
  if (scratch->tops == scratch->top_capacity) {
    size_t capacity = scratch->top_capacity == 0 ? 1024 : 2 * scratch->top_capacity;
    uint64_t *grown_ld = realloc(scratch->top_ld, capacity * sizeof *grown_ld);
    if (grown_ld == NULL)
      return NQ_ENOMEM;
    scratch->top_ld = grown_ld;
    uint64_t *grown_rd = realloc(scratch->top_rd, capacity * sizeof *grown_rd);
    if (grown_rd == NULL)
      return NQ_ENOMEM;
    scratch->top_rd = grown_rd;
    scratch->top_capacity = capacity;
  }
  scratch->top_ld[scratch->tops] = ld;
  scratch->top_rd[scratch->tops] = rd;
  scratch->tops++;
  return NQ_OK;
}

/* Every placement of rows row..m-1 inside `allowed`, one queen a row;
 * each complete one is stored with its attacks on row m. */
static int collect_tops(nq_join_scratch_t *scratch, uint64_t *nodes, int row, uint64_t allowed,
                        uint64_t ld, uint64_t rd) {
  if (row == scratch->top_rows)
    return push_top(scratch, ld, rd);
  uint64_t board = board_columns(scratch->n);
  uint64_t free_squares = allowed & ~ld & ~rd;
  while (free_squares != 0) {
    uint64_t queen = lowest_bit(free_squares);
    free_squares = drop_lowest_bit(free_squares);
    ++*nodes;
    int code = collect_tops(scratch, nodes, row + 1, allowed & ~queen,
                            ((ld | queen) << 1) & board, (rd | queen) >> 1);
    if (code != NQ_OK)
      return code;
  }
  return NQ_OK;
}

static int reserve_bitsets(nq_join_scratch_t *scratch) {
  size_t words = (scratch->tops + 63) / 64;
  if (words == 0)
    words = 1;
  if (words > scratch->word_capacity) {
    free(scratch->ruled_out_by);
    free(scratch->stack);
    free(scratch->stack_index);
    scratch->ruled_out_by = malloc((2 * NQ_JOIN_MAX_N + 1) * words * sizeof(uint64_t));
    scratch->stack = malloc((NQ_JOIN_MAX_N + 1) * words * sizeof(uint64_t));
    scratch->stack_index = malloc((NQ_JOIN_MAX_N + 1) * words * sizeof(uint32_t));
    scratch->word_capacity =
        scratch->ruled_out_by && scratch->stack && scratch->stack_index ? words : 0;
    if (scratch->word_capacity == 0)
      return NQ_ENOMEM;
  }
  scratch->words = words;
  return NQ_OK;
}

static uint64_t *ld_bitset(const nq_join_scratch_t *scratch, int square) {
  return scratch->ruled_out_by + (size_t)square * scratch->words;
}

static uint64_t *rd_bitset(const nq_join_scratch_t *scratch, int square) {
  return scratch->ruled_out_by + (size_t)(scratch->n + square) * scratch->words;
}

static uint64_t *empty_bitset(const nq_join_scratch_t *scratch) {
  return scratch->ruled_out_by + (size_t)(2 * scratch->n) * scratch->words;
}

/* Transposes the tops: bit t of ld_bitset(p) is set when top t attacks
 * square p of row m along ld.  The stack's first bitset starts with the
 * padding past the last top set, so padding never counts as a fit. */
static void transpose_tops(nq_join_scratch_t *scratch) {
  size_t words = scratch->words;
  memset(scratch->ruled_out_by, 0, (size_t)(2 * scratch->n + 1) * words * sizeof(uint64_t));
  for (size_t t = 0; t < scratch->tops; t++) {
    uint64_t bit = column_bit((int)(t % 64));
    for (uint64_t ld = scratch->top_ld[t]; ld != 0; ld = drop_lowest_bit(ld))
      ld_bitset(scratch, bit_index(lowest_bit(ld)))[t / 64] |= bit;
    for (uint64_t rd = scratch->top_rd[t]; rd != 0; rd = drop_lowest_bit(rd))
      rd_bitset(scratch, bit_index(lowest_bit(rd)))[t / 64] |= bit;
  }
  memset(scratch->stack, 0, words * sizeof(uint64_t));
  for (size_t w = 0; w < words; w++)
    scratch->stack_index[w] = (uint32_t)w;
  if (scratch->tops % 64 != 0)
    scratch->stack[words - 1] = ~board_columns((int)(scratch->tops % 64));
}

/* The bottom rows from `row` down, inside `allowed`.  The tops the queens
 * above in the bottom half rule out are kept as the words of the bitset
 * that still have a top left (`live` of them: their indexes and values),
 * so a level costs what is left, not the whole bucket. */
static void walk_bottom(bottom_walk_t *walk, int row, uint64_t allowed, uint64_t ld,
                        uint64_t rd, const uint32_t *index, const uint64_t *ruled_out,
                        size_t live) {
  nq_join_scratch_t *scratch = walk->scratch;
  int n = scratch->n, distance = row - scratch->top_rows;
  size_t words = scratch->words;
  uint32_t *next_index = scratch->stack_index + (size_t)(distance + 1) * words;
  uint64_t *next = scratch->stack + (size_t)(distance + 1) * words;
  uint64_t free_squares = allowed & ~ld & ~rd;
  while (free_squares != 0) {
    uint64_t queen = lowest_bit(free_squares);
    free_squares = drop_lowest_bit(free_squares);
    int column = bit_index(queen);
    uint64_t weight = distance == 0 ? walk->first_row_weight[column] : 1;
    if (weight == 0)
      continue;
    uint64_t before = walk->solutions;
    walk->stats.bottom_nodes++;
    walk->stats.words += live;
    const uint64_t *by_ld =
        column - distance >= 0 ? ld_bitset(scratch, column - distance) : empty_bitset(scratch);
    const uint64_t *by_rd =
        column + distance < n ? rd_bitset(scratch, column + distance) : empty_bitset(scratch);
    if (row == n - 1) {
      uint64_t left = 0;
      for (size_t k = 0; k < live; k++)
        left += (uint64_t)bit_count(~(ruled_out[k] | by_ld[index[k]] | by_rd[index[k]]));
      walk->solutions += left;
    } else {
      size_t next_live = 0;
      for (size_t k = 0; k < live; k++) {
        uint64_t value = ruled_out[k] | by_ld[index[k]] | by_rd[index[k]];
        next_index[next_live] = index[k];
        next[next_live] = value;
        next_live += value != ~(uint64_t)0;
      }
      if (next_live == 0)
        walk->stats.pruned++;
      else
        walk_bottom(walk, row + 1, allowed & ~queen, ((ld | queen) << 1) & walk->board,
                    (rd | queen) >> 1, next_index, next, next_live);
    }
    walk->solutions = before + (walk->solutions - before) * weight;
  }
}

static void add_stats(nq_join_stats_t *into, const nq_join_stats_t *from) {
  into->buckets += from->buckets;
  into->tops += from->tops;
  into->top_nodes += from->top_nodes;
  into->bottom_nodes += from->bottom_nodes;
  into->words += from->words;
  into->pruned += from->pruned;
  if (from->max_tops > into->max_tops)
    into->max_tops = from->max_tops;
}

/* Sum over the queens c of row m of first_row_weight[c] times the
 * solutions with top columns `top_columns` and that queen. */
static int join_weighted(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                         int n, int top_rows, uint64_t top_columns,
                         const uint8_t first_row_weight[NQ_JOIN_MAX_N]) {
  scratch->n = n;
  scratch->top_rows = top_rows;
  scratch->tops = 0;
  bottom_walk_t walk = {
      .scratch = scratch, .first_row_weight = first_row_weight, .board = board_columns(n)};
  int code = collect_tops(scratch, &walk.stats.top_nodes, 0, top_columns, 0, 0);
  if (code == NQ_OK && scratch->tops > 0)
    code = reserve_bitsets(scratch);
  if (code != NQ_OK)
    return code;
  walk.stats.buckets = 1;
  walk.stats.tops = walk.stats.max_tops = scratch->tops;
  if (scratch->tops > 0) {
    transpose_tops(scratch);
    walk_bottom(&walk, top_rows, walk.board & ~top_columns, 0, 0, scratch->stack_index,
                scratch->stack, scratch->words);
  }
  *solutions = walk.solutions;
  if (stats != NULL)
    add_stats(stats, &walk.stats);
  return NQ_OK;
}

int nq_join_bucket(uint64_t *solutions, nq_join_stats_t *stats, nq_join_scratch_t *scratch,
                   int n, int top_rows, uint64_t top_columns) {
  if (n < 1 || n > NQ_JOIN_MAX_N || top_rows < 1 || top_rows >= n ||
      (top_columns & ~board_columns(n)) != 0 || bit_count(top_columns) != top_rows)
    return NQ_EINVAL;
  uint8_t every_queen[NQ_JOIN_MAX_N];
  memset(every_queen, 1, sizeof every_queen);
  return join_weighted(solutions, stats, scratch, n, top_rows, top_columns, every_queen);
}

static uint64_t mirrored(uint64_t columns, int n) {
  uint64_t mirror = 0;
  for (int c = 0; c < n; c++)
    if (columns & column_bit(c))
      mirror |= column_bit(n - 1 - c);
  return mirror;
}

/* How many members the orbit of `members[0]` has, or 0 when it is not the
 * least of them (pairs compare as (set, column), lexicographically). */
typedef struct set_and_queen {
  uint64_t columns;
  int middle; /* the middle row's queen, or -1 */
} set_and_queen_t;

static int is_before(set_and_queen_t a, set_and_queen_t b) {
  return a.columns < b.columns || (a.columns == b.columns && a.middle < b.middle);
}

static int orbit_size(const set_and_queen_t *members, int count) {
  int distinct = 0;
  for (int i = 0; i < count; i++) {
    if (is_before(members[i], members[0]))
      return 0;
    int seen = 0;
    for (int j = 0; j < i; j++)
      seen |= members[j].columns == members[i].columns && members[j].middle == members[i].middle;
    distinct += !seen;
  }
  return distinct;
}

/* The weight of each queen c of row m for the top columns S: how many
 * (column set, queen) pairs it stands for, 0 where another pair of its
 * orbit counts them.  The left-right mirror maps the solutions with top
 * columns S and queen c on row m to those with mirror(S) and n-1-c.  The
 * up-down flip maps them to those with top columns the bottom's: when the
 * top is half the board, the complement of S (any c); when a middle row
 * m = (n-1)/2 separates two halves, the columns neither S nor c hold, and
 * the same c.  Returns 1 when some weight is not 0. */
static int first_row_weights(uint8_t weight[NQ_JOIN_MAX_N], uint64_t columns, int n, int top_rows) {
  uint64_t board = board_columns(n);
  int any = 0;
  memset(weight, 0, NQ_JOIN_MAX_N);
  if (2 * top_rows + 1 != n) {
    set_and_queen_t orbit[4] = {{columns, -1}, {mirrored(columns, n), -1}};
    int count = 2;
    if (2 * top_rows == n) {
      orbit[2] = (set_and_queen_t){board & ~columns, -1};
      orbit[3] = (set_and_queen_t){mirrored(board & ~columns, n), -1};
      count = 4;
    }
    int size = orbit_size(orbit, count);
    for (int c = 0; c < n; c++)
      weight[c] = (uint8_t)size;
    return size != 0;
  }
  for (int c = 0; c < n; c++) {
    if (columns & column_bit(c))
      continue;
    uint64_t bottom = board & ~columns & ~column_bit(c);
    set_and_queen_t orbit[4] = {{columns, c},
                                {mirrored(columns, n), n - 1 - c},
                                {bottom, c},
                                {mirrored(bottom, n), n - 1 - c}};
    weight[c] = (uint8_t)orbit_size(orbit, 4);
    any |= weight[c] != 0;
  }
  return any;
}

/* The next larger set with as many columns (Gosper's hack); the caller
 * stops once it passes the board. */
static uint64_t next_same_size(uint64_t set) {
  uint64_t low = lowest_bit(set), ripple = set + low;
  return ripple | (((set ^ ripple) >> 2) / low);
}

typedef struct canonical_bucket {
  uint64_t columns;
} canonical_bucket_t;

/* This rank's canonical buckets: the k-th canonical set goes to rank
 * k mod ranks. */
static int list_buckets(canonical_bucket_t **out, size_t *count, int n, int top_rows, int rank,
                        int ranks) {
  size_t capacity = 1024, listed = 0, seen = 0;
  canonical_bucket_t *buckets = malloc(capacity * sizeof *buckets);
  if (buckets == NULL)
    return NQ_ENOMEM;
  uint64_t board = board_columns(n);
  for (uint64_t set = board_columns(top_rows); set <= board && set != 0;
       set = next_same_size(set)) {
    uint8_t weight[NQ_JOIN_MAX_N];
    if (!first_row_weights(weight, set, n, top_rows) || seen++ % (size_t)ranks != (size_t)rank)
      continue;
    if (listed == capacity) {
      canonical_bucket_t *grown = realloc(buckets, 2 * capacity * sizeof *grown);
      if (grown == NULL) {
        free(buckets);
        return NQ_ENOMEM;
      }
      buckets = grown;
      capacity *= 2;
    }
    buckets[listed++] = (canonical_bucket_t){set};
  }
  *out = buckets;
  *count = listed;
  return NQ_OK;
}

/* One rank's threads: each takes the next bucket not taken. */
typedef struct join_share {
  const canonical_bucket_t *buckets;
  size_t count;
  atomic_size_t next;
  int n, top_rows;
} join_share_t;

typedef struct join_thread {
  join_share_t *share;
  pthread_t thread;
  unsigned __int128 solutions;
  nq_join_stats_t stats;
  int code;
} join_thread_t;

static void *join_thread_main(void *argument) {
  join_thread_t *self = argument;
  join_share_t *share = self->share;
  nq_join_scratch_t *scratch = NULL;
  self->code = nq_join_scratch_create(&scratch);
  for (size_t i; self->code == NQ_OK && (i = atomic_fetch_add(&share->next, 1)) < share->count;) {
    uint64_t bucket_solutions = 0, columns = share->buckets[i].columns;
    uint8_t weight[NQ_JOIN_MAX_N];
    first_row_weights(weight, columns, share->n, share->top_rows);
    self->code = join_weighted(&bucket_solutions, &self->stats, scratch, share->n,
                               share->top_rows, columns, weight);
    self->solutions += bucket_solutions;
  }
  nq_join_scratch_destroy(scratch);
  return NULL;
}

/* Runs the rank's buckets on `threads` threads (the caller's among them). */
static int join_on_threads(unsigned __int128 *solutions, nq_join_stats_t *stats,
                           join_share_t *share, int threads) {
  join_thread_t *team = calloc((size_t)threads, sizeof *team);
  if (team == NULL)
    return NQ_ENOMEM;
  int started = 1, code = NQ_OK;
  for (int t = 0; t < threads; t++)
    team[t].share = share;
  for (; started < threads; started++)
    if (pthread_create(&team[started].thread, NULL, join_thread_main, &team[started]) != 0) {
      code = NQ_ENOMEM;
      break;
    }
  join_thread_main(&team[0]);
  for (int t = 0; t < started; t++) {
    if (t > 0)
      pthread_join(team[t].thread, NULL);
    if (team[t].code != NQ_OK)
      code = team[t].code;
    *solutions += team[t].solutions;
    add_stats(stats, &team[t].stats);
  }
  free(team);
  return code;
}

static int join_rank(unsigned __int128 *solutions, nq_join_stats_t *stats, int n, int top_rows,
                     int threads, int rank, int ranks) {
  canonical_bucket_t *buckets = NULL;
  size_t count = 0;
  int code = list_buckets(&buckets, &count, n, top_rows, rank, ranks);
  if (code != NQ_OK)
    return code;
  join_share_t share = {.buckets = buckets, .count = count, .n = n, .top_rows = top_rows};
  atomic_init(&share.next, 0);
  code = join_on_threads(solutions, stats, &share, threads);
  free(buckets);
  return code;
}

enum { STAT_FIELDS = 7 };

static void stats_to_words(uint64_t words[STAT_FIELDS], const nq_join_stats_t *stats) {
  const uint64_t fields[STAT_FIELDS] = {stats->buckets,      stats->tops,  stats->top_nodes,
                                        stats->bottom_nodes, stats->words, stats->pruned,
                                        stats->max_tops};
  memcpy(words, fields, sizeof fields);
}

/* Sums every rank's share on rank 0: the 128-bit solutions as two words,
 * the stats as sums (max_tops as a maximum). */
static int gather_on_rank0(mpz_t total, nq_join_stats_t *stats, unsigned __int128 solutions,
                           MPI_Comm comm) {
  int rank, ranks;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &ranks));
  uint64_t mine[2] = {(uint64_t)solutions, (uint64_t)(solutions >> 64)};
  uint64_t *all = rank == 0 ? malloc(2 * (size_t)ranks * sizeof *all) : NULL;
  int ok = rank != 0 || all != NULL, all_ok = 0;
  NQ_MPI_CHECK(comm, MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
  if (!all_ok) {
    free(all);
    return NQ_ENOMEM;
  }
  NQ_MPI_CHECK(comm, MPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, comm));
  uint64_t sums[STAT_FIELDS], summed[STAT_FIELDS], largest = 0;
  stats_to_words(sums, stats);
  NQ_MPI_CHECK(comm, MPI_Reduce(sums, summed, STAT_FIELDS, MPI_UINT64_T, MPI_SUM, 0, comm));
  NQ_MPI_CHECK(comm, MPI_Reduce(&stats->max_tops, &largest, 1, MPI_UINT64_T, MPI_MAX, 0, comm));
  if (rank != 0)
    return NQ_OK;
  mpz_set_ui(total, 0);
  mpz_t part;
  mpz_init(part);
  for (int r = 0; r < ranks; r++) {
    mpz_set_ui(part, all[2 * r + 1]);
    mpz_mul_2exp(part, part, 64);
    mpz_add_ui(part, part, all[2 * r]);
    mpz_add(total, total, part);
  }
  mpz_clear(part);
  free(all);
  *stats = (nq_join_stats_t){summed[0], summed[1], summed[2], summed[3],
                             summed[4], summed[5], largest};
  return NQ_OK;
}

int nq_join_count(mpz_t solutions, nq_join_stats_t *stats, int n, int top_rows, int threads,
                  MPI_Comm comm) {
  int rank, ranks;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &ranks));
  if (top_rows == 0)
    top_rows = nq_join_default_top_rows(n);
  if (n < 0 || n > NQ_JOIN_MAX_N || threads < 0 || threads > 4096 ||
      (n >= 2 && (top_rows < 1 || top_rows >= n)))
    return NQ_EINVAL;
  nq_join_stats_t mine = {0};
  unsigned __int128 rank_solutions = 0;
  int code = NQ_OK, agreed = NQ_OK;
  if (n < 2)
    rank_solutions = rank == 0 ? 1 : 0; /* no row to cut: the empty board and the lone queen */
  else
    code = join_rank(&rank_solutions, &mine, n, top_rows, threads < 1 ? 1 : threads, rank, ranks);
  NQ_MPI_CHECK(comm, MPI_Allreduce(&code, &agreed, 1, MPI_INT, MPI_MIN, comm));
  if (agreed != NQ_OK)
    return agreed;
  code = gather_on_rank0(solutions, &mine, rank_solutions, comm);
  if (code == NQ_OK && stats != NULL && rank == 0)
    *stats = mine;
  return code;
}
