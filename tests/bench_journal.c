/* Benchmark of the checkpoint journal at the scale of a whole record
 * attempt (not a test): a journal for every unit of Q(n) (default 27,
 * about 1.9e8 units) in batches of 16, with fake but well-formed sums of a
 * real batch's size, written to PATH; then its size, and the time to open
 * it again (load and validation) as a resume does: first with the file's
 * pages dropped from the page cache, then again from the cache; then the
 * time to skip every recorded id with the done cursor.
 *   bench_journal [--n N] [--batch UNITS] [--keep] PATH
 * PATH is removed at the end unless --keep. */

#define _POSIX_C_SOURCE 200809L /* clock_gettime, posix_fadvise */

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "nqueens/error.h"
#include "nqueens/units.h"

/* Results of 64 ranks, each with two batches in flight, come back in any
 * order within a window of this many batches. */
enum { RANKS = 64, WINDOW = 2 * RANKS };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t next_random(uint64_t *seed) {
  *seed = *seed * 6364136223846793005u + 1442695040888963407u;
  return *seed >> 11;
}

static int count_units(uint64_t *count, int n) {
  nq_unit_gen_t *gen;
  int rc = nq_unit_gen_create(&gen, n, 0);
  if (rc != NQ_OK)
    return rc;
  nq_unit_t unit;
  *count = 0;
  while ((rc = nq_unit_gen_next(gen, &unit)) > 0)
    (*count)++;
  nq_unit_gen_destroy(gen);
  return rc;
}

/* Sums of the size a batch of Q(27) has: Q(27) = 2.35e17 over 1.2e7
 * batches is 2e10 a batch (11 digits), nodes a few tens of times more. */
static void fake_sums(nq__totals_t *batch, uint64_t *seed) {
  mpz_set_ui(batch->solutions, next_random(seed) % 40000000000u);
  mpz_set_ui(batch->unique_times_8, next_random(seed) % 40000000000u);
  mpz_set_ui(batch->nodes, next_random(seed) % 10000000000000u);
}

/* Every batch once, in id order but shuffled within each window, as
 * results arrive from many ranks. */
static int write_batches(nq__journal_t *journal, uint64_t total, uint64_t batch_units) {
  uint64_t batches = (total + batch_units - 1) / batch_units, seed = 1;
  uint64_t order[WINDOW];
  nq__totals_t batch;
  nq__totals_init(&batch);
  int64_t time_ms = 1700000000000;
  int rc = NQ_OK;
  for (uint64_t start = 0; rc == NQ_OK && start < batches; start += WINDOW) {
    uint64_t count = batches - start < WINDOW ? batches - start : WINDOW;
    for (uint64_t i = 0; i < count; i++)
      order[i] = start + i;
    for (uint64_t i = count; i > 1; i--) {
      uint64_t j = next_random(&seed) % i, swap = order[i - 1];
      order[i - 1] = order[j];
      order[j] = swap;
    }
    for (uint64_t i = 0; rc == NQ_OK && i < count; i++) {
      uint64_t first = order[i] * batch_units;
      batch.units = total - first < batch_units ? total - first : batch_units;
      fake_sums(&batch, &seed);
      time_ms += 3;
      rc = nq__journal_append(journal, first, &batch, (int)(order[i] % RANKS), time_ms);
    }
  }
  nq__totals_clear(&batch);
  return rc;
}

/* Opens the journal as a resume does and checks that it holds every unit. */
static int reopen(double *seconds, const char *path, const nq__journal_header_t *header) {
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = NULL;
  double started = now();
  int rc = nq__journal_open(&journal, &state, message, path, header);
  *seconds = now() - started;
  if (rc == NQ_OK && (!nq__journal_complete(&state) || state.done_count != 1 || message[0]))
    rc = NQ_ECHECK;
  if (rc != NQ_OK)
    fprintf(stderr, "bench_journal: reopen: %s %s\n", nq_strerror(rc), message);
  nq__journal_close(journal);
  nq__journal_state_clear(&state);
  return rc;
}

/* Drops the file's pages from the page cache, so that the next read comes
 * from the disk. */
static void drop_cached(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

/* The done cursor asked about every id in order, as the generator side
 * of a resume would: seconds. */
static double skip_all(const char *path, uint64_t total) {
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  if (nq__journal_read(&state, message, path) != NQ_OK)
    return -1.0;
  nq__journal_done_cursor_t cursor;
  nq__journal_done_cursor_init(&cursor, &state);
  uint64_t done = 0;
  double started = now();
  for (uint64_t id = 0; id < total; id++)
    done += (uint64_t)nq__journal_done_cursor_next(&cursor, id);
  double seconds = now() - started;
  nq__journal_state_clear(&state);
  return done == total ? seconds : -1.0;
}

int main(int argc, char **argv) {
  int n = 27, keep = 0;
  uint64_t batch_units = 16;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc)
      batch_units = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--keep") == 0)
      keep = 1;
    else
      path = argv[i];
  }
  if (path == NULL || batch_units == 0) {
    fprintf(stderr, "usage: bench_journal [--n N] [--batch UNITS] [--keep] PATH\n");
    return 2;
  }
  uint64_t total = 0;
  double started = now();
  int rc = count_units(&total, n);
  if (rc != NQ_OK) {
    fprintf(stderr, "bench_journal: n = %d: %s\n", n, nq_strerror(rc));
    return 1;
  }
  printf("n %d: %" PRIu64 " units at depth %d (counted in %.2f s), %" PRIu64
         " records of %" PRIu64 " units\n",
         n, total, nq_units_depth(n), now() - started, (total + batch_units - 1) / batch_units,
         batch_units);
  unlink(path);
  nq__journal_header_t header;
  nq__journal_header_init(&header, n, 1, nq_units_depth(n), total);
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = NULL;
  started = now();
  rc = nq__journal_open(&journal, &state, message, path, &header);
  if (rc == NQ_OK)
    rc = write_batches(journal, total, batch_units);
  int closed = nq__journal_close(journal);
  nq__journal_state_clear(&state);
  if (rc != NQ_OK || closed != NQ_OK) {
    fprintf(stderr, "bench_journal: writing %s: %s %s\n", path,
            nq_strerror(rc != NQ_OK ? rc : closed), message);
    return 1;
  }
  struct stat info;
  stat(path, &info);
  printf("written in %.1f s: %lld bytes, %.1f bytes per unit\n", now() - started,
         (long long)info.st_size, (double)info.st_size / (double)total);
  double cold, warm;
  drop_cached(path);
  rc = reopen(&cold, path, &header);
  if (rc == NQ_OK)
    rc = reopen(&warm, path, &header);
  if (rc != NQ_OK)
    return 1;
  printf("reopen (load and validation): %.2f s from disk, %.2f s from the page cache\n", cold,
         warm);
  printf("done cursor over every id: %.2f s\n", skip_all(path, total));
  if (!keep)
    unlink(path);
  return 0;
}
