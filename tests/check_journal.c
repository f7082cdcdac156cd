/* The checkpoint journal (src/record/journal.h, private): the format pinned by a
 * golden file, round trips past 2^64, torn tails at every byte, damage and
 * wrong headers refused with the file untouched, the done cursor against a
 * bitmap, and the lock against a second process. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, fork, kill */

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "journal.h"
#include "journal_checks.h"
#include "journal_lines.h"
#include "nqueens/error.h"
#include "nqueens/frame.h"
#include "nqueens/units.h"
#include "support.h"

/* Each test works in a fresh directory of its own. */
static char directory[64];
static char path[128];

static void make_directory(void) {
  snprintf(directory, sizeof directory, "/tmp/check_journal.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(directory));
  snprintf(path, sizeof path, "%s/run.journal", directory);
}

static void remove_directory(void) {
  DIR *listing = opendir(directory);
  if (listing == NULL)
    return;
  struct dirent *entry;
  char name[512];
  while ((entry = readdir(listing)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    snprintf(name, sizeof name, "%s/%s", directory, entry->d_name);
    if (unlink(name) != 0)
      rmdir(name);
  }
  closedir(listing);
  rmdir(directory);
}

/* ---- files ---- */

typedef struct bytes {
  char *data;
  size_t size;
} bytes_t;

static bytes_t read_bytes(const char *name) {
  FILE *file = fopen(name, "rb");
  ck_assert_ptr_nonnull(file);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  bytes_t bytes = {malloc((size_t)size + 1), (size_t)size};
  ck_assert_uint_eq(fread(bytes.data, 1, bytes.size, file), bytes.size);
  fclose(file);
  return bytes;
}

static void write_bytes(const char *name, const char *data, size_t size) {
  FILE *file = fopen(name, "wb");
  ck_assert_ptr_nonnull(file);
  ck_assert_uint_eq(fwrite(data, 1, size, file), size);
  ck_assert_int_eq(fclose(file), 0);
}

static int same_bytes(bytes_t a, bytes_t b) {
  return a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
}

/* "body crc\n" with zlib's CRC-32 of the body: lines written from the
 * spec, not by the journal. */
static size_t put_line(char *out, const char *body) {
  uLong crc = crc32(0L, (const Bytef *)body, (uInt)strlen(body));
  return (size_t)sprintf(out, "%s %08lx\n", body, crc);
}

/* ---- runs ---- */

enum { TOTAL = 100 };

static nq__journal_header_t test_header(void) {
  nq__journal_header_t header;
  nq__journal_header_init(&header, 8, 1, 2, TOTAL);
  snprintf(header.version, sizeof header.version, "test-1.0");
  return header;
}

/* A batch of `units` units with the given decimal sums. */
static void set_batch(nq__totals_t *batch, uint64_t units, const char *solutions,
                      const char *unique_times_8, const char *nodes) {
  ck_assert_int_eq(mpz_set_str(batch->solutions, solutions, 10), 0);
  ck_assert_int_eq(mpz_set_str(batch->unique_times_8, unique_times_8, 10), 0);
  ck_assert_int_eq(mpz_set_str(batch->nodes, nodes, 10), 0);
  batch->units = units;
}

static nq__journal_t *open_ok(nq__journal_state_t *state, const nq__journal_header_t *header,
                              char *message) {
  nq__journal_t *journal = NULL;
  int rc = nq__journal_open(&journal, state, message, path, header);
  ck_assert_msg(rc == NQ_OK, "open: %s (%s)", nq_strerror(rc), message);
  ck_assert_ptr_nonnull(journal);
  ck_assert_ptr_null(strchr(message, '\n'));
  return journal;
}

/* Appends a batch of `units` ids from `first` with small sums derived from
 * them. */
static void append_small(nq__journal_t *journal, uint64_t first, uint64_t units, int rank) {
  nq__totals_t batch;
  nq__totals_init(&batch);
  mpz_set_ui(batch.solutions, first * 10 + units);
  mpz_set_ui(batch.unique_times_8, first * 2);
  mpz_set_ui(batch.nodes, first * 1000 + 7);
  batch.units = units;
  ck_assert_int_eq(nq__journal_append(journal, first, &batch, rank, 1700000000000 + (int64_t)first),
                   NQ_OK);
  nq__totals_clear(&batch);
}

/* A journal of TOTAL units holding the given contiguous batches. */
static void write_journal(const uint64_t (*batches)[2], size_t count) {
  nq__journal_header_t header = test_header();
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_ok(&state, &header, message);
  for (size_t i = 0; i < count; i++)
    append_small(journal, batches[i][0], batches[i][1], (int)i);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
}

/* Opening the file at `path` for `header` fails with `code` and a message
 * of one line that contains `why`, and leaves every byte as it was. */
static void expect_refused_with(int code, const nq__journal_header_t *header, const char *why) {
  bytes_t before = read_bytes(path);
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = NULL;
  int rc = nq__journal_open(&journal, &state, message, path, header);
  ck_assert_msg(rc == code, "expected a refusal (%s), got %s: %s", why, nq_strerror(rc),
                message);
  ck_assert_ptr_null(journal);
  ck_assert_msg(strstr(message, why) != NULL, "message \"%s\" does not say \"%s\"", message, why);
  ck_assert_ptr_null(strchr(message, '\n'));
  bytes_t after = read_bytes(path);
  ck_assert_msg(same_bytes(before, after), "a refused open changed the file (%s)", why);
  ck_assert_uint_eq(state.records, 0);
  nq__journal_state_clear(&state);
  free(before.data);
  free(after.data);
}

static void expect_refused(const nq__journal_header_t *header, const char *why) {
  expect_refused_with(NQ_EJOURNAL, header, why);
}

/* ---- the format ---- */

static const char golden[] =
    "nqueens-journal 1 n=8 unique=1 depth=2 scheme=1 version=test-1.0 units=100 af755209\n"
    "0 16 36893488147419103232 36893488147419103240 18446744073709551616 0 1700000000000 "
    "3742fda3\n"
    "40 4 92 12 1234 3 1700000001234 96d3f12f\n";

/* The bytes of a journal, from the spec in docs/design.md (CRCs from
 * Python's zlib.crc32). */
START_TEST(test_journal_golden_bytes) {
  nq__journal_header_t header = test_header();
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_ok(&state, &header, message);
  ck_assert_str_eq(message, "");
  nq__totals_t batch;
  nq__totals_init(&batch);
  set_batch(&batch, 16, "36893488147419103232", "36893488147419103240", "18446744073709551616");
  ck_assert_int_eq(nq__journal_append(journal, 0, &batch, 0, 1700000000000), NQ_OK);
  set_batch(&batch, 4, "92", "12", "1234");
  ck_assert_int_eq(nq__journal_append(journal, 40, &batch, 3, 1700000001234), NQ_OK);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  bytes_t written = read_bytes(path);
  ck_assert_uint_eq(written.size, strlen(golden));
  ck_assert_mem_eq(written.data, golden, written.size);
  free(written.data);
  /* The temporary file of the atomic creation is gone. */
  DIR *listing = opendir(directory);
  struct dirent *entry;
  int files = 0;
  while ((entry = readdir(listing)) != NULL)
    files += entry->d_name[0] != '.';
  closedir(listing);
  ck_assert_int_eq(files, 1);
  nq__totals_clear(&batch);
  nq__journal_state_clear(&state);
}
END_TEST

/* The golden file, written by hand, reads back as its numbers. */
START_TEST(test_journal_golden_reads) {
  write_bytes(path, golden, strlen(golden));
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_read(&state, message, path), NQ_OK);
  ck_assert_str_eq(message, "");
  ck_assert_int_eq(state.header.n, 8);
  ck_assert_int_eq(state.header.unique, 1);
  ck_assert_int_eq(state.header.depth, 2);
  ck_assert_int_eq(state.header.scheme, 1);
  ck_assert_str_eq(state.header.version, "test-1.0");
  ck_assert_uint_eq(state.header.total_units, 100);
  ck_assert_uint_eq(state.records, 2);
  ck_assert_uint_eq(state.sums.units, 20);
  mpz_t expected;
  mpz_init_set_str(expected, "36893488147419103324", 10); /* 2^65 + 92 */
  ck_assert_int_eq(mpz_cmp(state.sums.solutions, expected), 0);
  mpz_set_str(expected, "36893488147419103252", 10); /* 2^65 + 8 + 12 */
  ck_assert_int_eq(mpz_cmp(state.sums.unique_times_8, expected), 0);
  mpz_set_str(expected, "18446744073709552850", 10); /* 2^64 + 1234 */
  ck_assert_int_eq(mpz_cmp(state.sums.nodes, expected), 0);
  ck_assert_uint_eq(state.done_count, 2);
  ck_assert_uint_eq(state.done[0].first, 0);
  ck_assert_uint_eq(state.done[0].end, 16);
  ck_assert_uint_eq(state.done[1].first, 40);
  ck_assert_uint_eq(state.done[1].end, 44);
  ck_assert_int_eq(state.first_time_ms, 1700000000000);
  ck_assert_int_eq(state.last_time_ms, 1700000001234);
  mpz_clear(expected);
  nq__journal_state_clear(&state);
}
END_TEST

/* Create, append out of order with sums past 2^64, close, reopen: the
 * same sums and ranges; the last batches make it complete. */
START_TEST(test_journal_round_trip) {
  nq__journal_header_t header = test_header();
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_ok(&state, &header, message);
  ck_assert_uint_eq(state.records, 0);
  ck_assert(!nq__journal_complete(&state));
  mpz_t solutions, unique_times_8, nodes;
  mpz_inits(solutions, unique_times_8, nodes, NULL);
  nq__totals_t batch;
  nq__totals_init(&batch);
  /* Ids 32..47, 0..15, 48..59, 16..31: ranges arrive out of order. */
  const uint64_t ranges[][2] = {{32, 16}, {0, 16}, {48, 12}, {16, 16}};
  for (size_t i = 0; i < 4; i++) {
    /* Past 64 bits, within what 12 units can hold (nq__journal_sum_fits). */
    mpz_ui_pow_ui(batch.solutions, 2, 67);
    mpz_add_ui(batch.solutions, batch.solutions, i);
    mpz_ui_pow_ui(batch.unique_times_8, 3, 44);
    mpz_ui_pow_ui(batch.nodes, 10, 20);
    mpz_add_ui(batch.nodes, batch.nodes, 7 * i);
    batch.units = ranges[i][1];
    mpz_add(solutions, solutions, batch.solutions);
    mpz_add(unique_times_8, unique_times_8, batch.unique_times_8);
    mpz_add(nodes, nodes, batch.nodes);
    ck_assert_int_eq(nq__journal_append(journal, ranges[i][0], &batch, (int)i, 1000 + (int64_t)i),
                     NQ_OK);
  }
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);

  nq__journal_state_init(&state);
  journal = open_ok(&state, &header, message);
  ck_assert_str_eq(message, "");
  ck_assert_uint_eq(state.records, 4);
  ck_assert_uint_eq(state.sums.units, 60);
  ck_assert_int_eq(mpz_cmp(state.sums.solutions, solutions), 0);
  ck_assert_int_eq(mpz_cmp(state.sums.unique_times_8, unique_times_8), 0);
  ck_assert_int_eq(mpz_cmp(state.sums.nodes, nodes), 0);
  ck_assert_uint_eq(state.done_count, 1);
  ck_assert_uint_eq(state.done[0].first, 0);
  ck_assert_uint_eq(state.done[0].end, 60);
  ck_assert_int_eq(state.first_time_ms, 1000);
  ck_assert_int_eq(state.last_time_ms, 1003);
  ck_assert(!nq__journal_complete(&state));
  append_small(journal, 60, 40, 1);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);

  /* Every unit recorded: a rerun sees the final result at once. */
  nq__journal_state_init(&state);
  journal = open_ok(&state, &header, message);
  ck_assert(nq__journal_complete(&state));
  ck_assert_uint_eq(state.done_count, 1);
  ck_assert_uint_eq(state.done[0].end, TOTAL);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
  mpz_clears(solutions, unique_times_8, nodes, NULL);
  nq__totals_clear(&batch);
}
END_TEST

/* Appends that would make the journal refused are refused themselves,
 * and write nothing. */
START_TEST(test_journal_append_refuses_bad_batches) {
  nq__journal_header_t header = test_header();
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_ok(&state, &header, message);
  nq__totals_t batch;
  nq__totals_init(&batch);
  batch.units = 0;
  ck_assert_int_eq(nq__journal_append(journal, 0, &batch, 0, 0), NQ_EINVAL);
  batch.units = 5;
  ck_assert_int_eq(nq__journal_append(journal, TOTAL - 4, &batch, 0, 0), NQ_EINVAL);
  ck_assert_int_eq(nq__journal_append(journal, UINT64_MAX, &batch, 0, 0), NQ_EINVAL);
  ck_assert_int_eq(nq__journal_append(journal, 0, &batch, -1, 0), NQ_EINVAL);
  ck_assert_int_eq(nq__journal_append(journal, 0, &batch, 0, -1), NQ_EINVAL);
  mpz_set_si(batch.nodes, -1);
  ck_assert_int_eq(nq__journal_append(journal, 0, &batch, 0, 0), NQ_EINVAL);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  /* The file holds its header line alone (read once the journal is
   * closed: closing any descriptor of it would drop this process's lock). */
  bytes_t after = read_bytes(path);
  ck_assert_uint_gt(after.size, 0);
  ck_assert_ptr_eq(memchr(after.data, '\n', after.size), after.data + after.size - 1);
  free(after.data);
  nq__totals_clear(&batch);
  nq__journal_state_clear(&state);
}
END_TEST

/* A header the format cannot carry is the caller's mistake: NQ_EINVAL,
 * and no file is made. */
START_TEST(test_journal_open_refuses_unwritable_header) {
  nq__journal_header_t headers[4];
  for (int i = 0; i < 4; i++)
    headers[i] = test_header();
  snprintf(headers[0].version, sizeof headers[0].version, "1.0 beta");
  headers[1].version[0] = '\0';
  headers[2].unique = 2;
  headers[3].n = NQ_MAX_N + 1;
  for (int i = 0; i < 4; i++) {
    nq__journal_state_t state;
    nq__journal_state_init(&state);
    char message[NQ__MESSAGE_SIZE];
    nq__journal_t *journal = NULL;
    ck_assert_int_eq(nq__journal_open(&journal, &state, message, path, &headers[i]), NQ_EINVAL);
    ck_assert_ptr_null(journal);
    ck_assert_int_ne(access(path, F_OK), 0);
    nq__journal_state_clear(&state);
  }
}
END_TEST

/* ---- torn tails ---- */

static const uint64_t three_batches[][2] = {{0, 16}, {16, 16}, {80, 20}};

/* three_batches written, then opened again (into `state`) for more lines. */
static nq__journal_t *reopen_three_batches(nq__journal_state_t *state, char *message) {
  write_journal(three_batches, 3);
  nq__journal_header_t header = test_header();
  nq__journal_state_init(state);
  return open_ok(state, &header, message);
}

/* Opening a copy cut at `cut`: the records kept, and whether it warned. */
static void open_cut(const bytes_t *whole, size_t cut, uint64_t expect_records, int expect_warning) {
  write_bytes(path, whole->data, cut);
  nq__journal_header_t header = test_header();
  /* A reader beside a live run leaves the file as it is. */
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_read(&state, message, path), NQ_OK);
  ck_assert_uint_eq(state.records, expect_records);
  ck_assert_int_eq(message[0] != '\0', expect_warning);
  nq__journal_state_clear(&state);
  bytes_t untouched = read_bytes(path);
  ck_assert_uint_eq(untouched.size, cut);
  free(untouched.data);

  nq__journal_state_init(&state);
  nq__journal_t *journal = open_ok(&state, &header, message);
  ck_assert_msg(state.records == expect_records, "cut at %zu: %" PRIu64 " records", cut,
                state.records);
  ck_assert_msg((message[0] != '\0') == expect_warning, "cut at %zu: message \"%s\"", cut,
                message);
  if (expect_warning)
    ck_assert_ptr_nonnull(strstr(message, "torn last record at line 4"));
  /* The torn bytes are cut off before anything is appended after them. */
  append_small(journal, 40, 8, 5);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
  nq__journal_state_init(&state);
  journal = open_ok(&state, &header, message);
  ck_assert_str_eq(message, "");
  ck_assert_uint_eq(state.records, expect_records + 1);
  ck_assert_uint_eq(state.sums.units, expect_records == 3 ? 60 : 40);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
}

/* The last record cut at every byte: cut at its first byte, the journal
 * simply has one record less; cut anywhere inside it, newline included,
 * the record is dropped with a warning; whole, it is kept. */
START_TEST(test_journal_torn_tail_every_offset) {
  write_journal(three_batches, 3);
  bytes_t whole = read_bytes(path);
  size_t last_start = whole.size - 1;
  while (whole.data[last_start - 1] != '\n')
    last_start--;
  for (size_t cut = last_start; cut <= whole.size; cut++)
    open_cut(&whole, cut, cut == whole.size ? 3 : 2, cut != last_start && cut != whole.size);
  free(whole.data);
}
END_TEST

/* A torn check line is named as one, with what dropping it means: the
 * batch is checked again, not counted again; a torn run line loses
 * nothing.  Cut inside (a crash mid-write) or whole with a bad checksum. */
START_TEST(test_journal_torn_check_and_run_lines_named) {
  static const char *const kinds[] = {"check", "run"};
  static const char *const says[] = {"torn last check line at line 5",
                                     "torn last run line at line 5"};
  static const char *const means[] = {"checked again by --verify", "nothing is lost"};
  for (int kind = 0; kind < 2; kind++)
    for (int whole_line = 0; whole_line < 2; whole_line++) {
      unlink(path);
      nq__journal_state_t state;
      char message[NQ__MESSAGE_SIZE];
      nq__journal_t *journal = reopen_three_batches(&state, message);
      nq__totals_t batch;
      nq__totals_init(&batch);
      set_batch(&batch, 20, "200", "0", "7");
      if (kind == 0)
        ck_assert_int_eq(nq__journal_append_check(journal, 0, &batch, 1, 1700000000000, 0),
                         NQ_OK);
      else
        ck_assert_int_eq(nq__journal_append_run(journal, 1700000000000, 2), NQ_OK);
      nq__totals_clear(&batch);
      ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
      nq__journal_state_clear(&state);
      bytes_t bytes = read_bytes(path);
      if (whole_line)
        bytes.data[bytes.size - 3] ^= 1; /* the CRC no longer matches */
      write_bytes(path, bytes.data, whole_line ? bytes.size : bytes.size - 4);
      free(bytes.data);
      nq__journal_state_init(&state);
      const nq__journal_header_t header = test_header();
      journal = open_ok(&state, &header, message);
      ck_assert_msg(strstr(message, says[kind]) != NULL && strstr(message, means[kind]) != NULL,
                    "%s: \"%s\"", kinds[kind], message);
      ck_assert_uint_eq(state.checks, 0);
      ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
      nq__journal_state_clear(&state);
    }
}
END_TEST

/* A whole last line that fails its checksum is torn too: dropped, cut. */
START_TEST(test_journal_bad_last_line_dropped) {
  write_journal(three_batches, 3);
  bytes_t whole = read_bytes(path);
  size_t last_start = whole.size - 1;
  while (whole.data[last_start - 1] != '\n')
    last_start--;
  whole.data[last_start] ^= 1; /* '8' of "80" becomes '9' */
  write_bytes(path, whole.data, whole.size);
  nq__journal_header_t header = test_header();
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_ok(&state, &header, message);
  ck_assert_ptr_nonnull(strstr(message, "torn last record at line 4"));
  ck_assert_uint_eq(state.records, 2);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  bytes_t cut = read_bytes(path);
  ck_assert_uint_eq(cut.size, last_start);
  ck_assert_mem_eq(cut.data, whole.data, last_start);
  free(cut.data);
  free(whole.data);
  nq__journal_state_clear(&state);
}
END_TEST

/* A write that fails (here: past the file size limit, after writing part
 * of the line) ends the journal's appends, and the part it wrote is cut
 * off again: the next open finds whole records, nothing torn. */
START_TEST(test_journal_failed_write_stops_appends) {
  write_journal(three_batches, 2);
  nq__journal_header_t header = test_header();
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_ok(&state, &header, message);
  struct stat info;
  ck_assert_int_eq(stat(path, &info), 0);
  const off_t whole = info.st_size;
  struct rlimit saved, small;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
  small = saved;
  small.rlim_cur = (rlim_t)info.st_size + 10;
  void (*saved_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
  nq__totals_t batch;
  nq__totals_init(&batch);
  mpz_set_ui(batch.solutions, 123456789);
  batch.units = 20;
  int failed = nq__journal_append(journal, 80, &batch, 1, 1700000000000);
  int failed_errno = nq__journal_errno(journal);
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, saved_handler);
  /* The file could grow again: the journal still takes nothing. */
  batch.units = 8;
  int after = nq__journal_append(journal, 40, &batch, 1, 1700000000000);
  int closed = nq__journal_close(journal);
  ck_assert_int_eq(failed, NQ_EIO);
  ck_assert_int_eq(failed_errno, EFBIG);
  ck_assert_int_eq(after, NQ_EIO);
  ck_assert_int_eq(closed, NQ_EIO);
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert_int_eq(info.st_size, whole);
  nq__journal_state_clear(&state);
  nq__journal_state_init(&state);
  journal = open_ok(&state, &header, message);
  ck_assert_msg(strstr(message, "torn") == NULL, "%s", message);
  ck_assert_uint_eq(state.records, 2);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__totals_clear(&batch);
  nq__journal_state_clear(&state);
}
END_TEST

/* ---- refusals ---- */

/* Any change to a byte of a record with records after it is damage: the
 * journal is refused, untouched.  (Merged with the last record by a lost
 * newline, the record before the last would read as one torn last line.) */
START_TEST(test_journal_damaged_middle_refused) {
  static const uint64_t five[][2] = {{0, 16}, {16, 16}, {32, 16}, {48, 16}, {64, 16}};
  write_journal(five, 5);
  bytes_t whole = read_bytes(path);
  size_t start = 0;
  for (int newlines = 0; newlines < 2; start++)
    newlines += whole.data[start] == '\n';
  size_t end = start;
  while (whole.data[end] != '\n')
    end++;
  nq__journal_header_t header = test_header();
  const char replacements[] = {'\n', ' ', 'x', '0'};
  for (size_t at = start; at <= end; at++) {
    for (size_t r = 0; r <= sizeof replacements; r++) {
      char original = whole.data[at];
      char changed = r < sizeof replacements ? replacements[r] : (char)(original ^ 1);
      if (changed == original)
        continue;
      whole.data[at] = changed;
      write_bytes(path, whole.data, whole.size);
      whole.data[at] = original;
      expect_refused(&header, "damaged record at line");
    }
  }
  free(whole.data);
}
END_TEST

typedef struct wrong_field {
  const char *field;
  const char *why;
} wrong_field_t;

static const wrong_field_t wrong_fields[] = {
    {"n", "journal is for n = 8, this run is n = 9"},
    {"unique", "journal was written with --unique, this run is without it"},
    {"depth", "journal has depth 2, this run depth 3"},
    {"scheme", "journal uses unit scheme 1, this program scheme 2"},
    {"version", "journal was written by version test-1.0, this is version test-1.1"},
    {"units", "journal has 100 units in all, this run 101"},
};

/* Each header field that differs from the run's refuses the journal; a
 * different program version too, since fixes between versions may change
 * counts. */
START_TEST(test_journal_wrong_header_refused) {
  write_journal(three_batches, 2);
  nq__journal_header_t header = test_header();
  const char *field = wrong_fields[_i].field;
  if (strcmp(field, "n") == 0)
    header.n = 9;
  else if (strcmp(field, "unique") == 0)
    header.unique = 0;
  else if (strcmp(field, "depth") == 0)
    header.depth = 3;
  else if (strcmp(field, "scheme") == 0)
    header.scheme = NQ_UNIT_SCHEME + 1;
  else if (strcmp(field, "version") == 0)
    snprintf(header.version, sizeof header.version, "test-1.1");
  else
    header.total_units = TOTAL + 1;
  expect_refused(&header, wrong_fields[_i].why);
}
END_TEST

typedef struct not_journal {
  const char *name;
  const char *why;
} not_journal_t;

static const not_journal_t not_journals[] = {
    {"empty", "empty file"},
    {"text", "not a checkpoint journal"},
    {"binary", "not a checkpoint journal"},
    {"long line", "not a checkpoint journal"},
    {"header without newline", "no complete header line"},
    {"header checksum", "damaged journal header (checksum mismatch)"},
    {"format 2", "journal format 2, this program reads format 1"},
    {"header field", "damaged journal header (fields)"},
    {"overlap", "two records hold unit 10"},
    {"duplicate", "two records hold unit 0"},
    {"past the end", "record at line 2 holds 8 units from id 96, past the journal's 100 units"},
    {"no units", "record at line 2 holds no unit"},
    {"leading zero", "damaged record at line 2 (fields)"},
    {"missing field", "damaged record at line 3 (fields)"},
    {"directory", "not a regular file"},
};

/* What is not a journal, or a journal whose checksummed lines say
 * something impossible, is refused and left as it is. */
START_TEST(test_journal_not_a_journal_refused) {
  const char *name = not_journals[_i].name;
  char text[4096];
  size_t size = 0;
  const char *header_body = "nqueens-journal 1 n=8 unique=1 depth=2 scheme=1 version=test-1.0 "
                            "units=100";
  if (strcmp(name, "directory") == 0) {
    ck_assert_int_eq(mkdir(path, 0755), 0);
    nq__journal_header_t header = test_header();
    nq__journal_state_t state;
    nq__journal_state_init(&state);
    char message[NQ__MESSAGE_SIZE];
    nq__journal_t *journal = NULL;
    ck_assert_int_eq(nq__journal_open(&journal, &state, message, path, &header), NQ_EJOURNAL);
    ck_assert_ptr_nonnull(strstr(message, "cannot open"));
    nq__journal_state_clear(&state);
    ck_assert_int_eq(nq__journal_read(&state, message, path), NQ_EJOURNAL);
    ck_assert_ptr_nonnull(strstr(message, not_journals[_i].why));
    return;
  }
  if (strcmp(name, "empty") == 0)
    size = 0;
  else if (strcmp(name, "text") == 0)
    size = (size_t)sprintf(text, "hello\nworld\n");
  else if (strcmp(name, "binary") == 0) {
    for (size = 0; size < 300; size++)
      text[size] = (char)(size * 7 % 256);
  } else if (strcmp(name, "long line") == 0) {
    memset(text, 'a', sizeof text);
    size = sizeof text;
  } else if (strcmp(name, "header without newline") == 0) {
    size = put_line(text, header_body) - 1;
  } else if (strcmp(name, "header checksum") == 0) {
    size = put_line(text, header_body);
    text[20] = '9';
  } else if (strcmp(name, "format 2") == 0) {
    size = put_line(text, "nqueens-journal 2 n=8 unique=1 depth=2 scheme=1 version=test-1.0 "
                          "units=100");
  } else if (strcmp(name, "header field") == 0) {
    size = put_line(text, "nqueens-journal 1 n=8 unique=1 depth=2 scheme=1 version=test-1.0");
  } else {
    size = put_line(text, header_body);
    const char *records[2] = {NULL, NULL};
    if (strcmp(name, "overlap") == 0) {
      records[0] = "0 16 1 0 1 0 0";
      records[1] = "10 4 1 0 1 0 0";
    } else if (strcmp(name, "duplicate") == 0) {
      records[0] = "0 16 1 0 1 0 0";
      records[1] = "0 16 1 0 1 0 0";
    } else if (strcmp(name, "past the end") == 0) {
      records[0] = "96 8 1 0 1 0 0";
    } else if (strcmp(name, "no units") == 0) {
      records[0] = "5 0 1 0 1 0 0";
    } else if (strcmp(name, "leading zero") == 0) {
      records[0] = "0 016 1 0 1 0 0";
    } else {
      records[0] = "0 16 1 0 1 0 0";
      records[1] = "16 16 1 0 1 0";
    }
    for (int i = 0; i < 2; i++)
      if (records[i] != NULL)
        size += put_line(text + size, records[i]);
  }
  write_bytes(path, text, size);
  nq__journal_header_t header = test_header();
  expect_refused(&header, not_journals[_i].why);
}
END_TEST

/* The header alone, as auto's resume reads it: the same fields as a whole
 * read, and a refusal for what is not a journal, without reading on. */
/* A record's sum may be anything its units can give, 2^64 - 1 each
 * (unique_times_8: 8 times that), and not one more. */
START_TEST(test_journal_sum_bound_per_unit) {
  mpz_t value;
  mpz_init_set_ui(value, UINT64_MAX);
  ck_assert(nq__journal_sum_fits(value, 1, 1));
  ck_assert(!nq__journal_sum_fits(value, 0, 1));
  mpz_add_ui(value, value, 1);
  ck_assert(!nq__journal_sum_fits(value, 1, 1));
  ck_assert(nq__journal_sum_fits(value, 2, 1));
  ck_assert(nq__journal_sum_fits(value, 1, 8));
  const uint64_t units = 65536;
  for (unsigned per_unit = 1; per_unit <= 8; per_unit *= 8) {
    mpz_set_ui(value, UINT64_MAX);
    mpz_mul_ui(value, value, units);
    mpz_mul_ui(value, value, per_unit);
    ck_assert(nq__journal_sum_fits(value, units, per_unit));
    mpz_add_ui(value, value, 1);
    ck_assert(!nq__journal_sum_fits(value, units, per_unit));
  }
  mpz_clear(value);
}
END_TEST

START_TEST(test_journal_header_read_alone) {
  const uint64_t batches[][2] = {{0, 16}, {16, 16}};
  write_journal(batches, 2);
  nq__journal_header_t header, expected = test_header();
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_read_header(&header, message, path), NQ_OK);
  ck_assert(header.n == expected.n && header.unique == expected.unique &&
            header.depth == expected.depth && header.total_units == expected.total_units);
  ck_assert_str_eq(header.method, expected.method);
  ck_assert_str_eq(header.version, expected.version);
  write_bytes(path, "hello\n", 6);
  ck_assert_int_eq(nq__journal_read_header(&header, message, path), NQ_EJOURNAL);
  ck_assert_ptr_nonnull(strstr(message, "not a checkpoint journal"));
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(nq__journal_read_header(&header, message, path), NQ_EJOURNAL);
  ck_assert_ptr_nonnull(strstr(message, "cannot open"));
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert_int_eq(nq__journal_read_header(&header, message, path), NQ_EJOURNAL);
}
END_TEST

/* ---- the done cursor ---- */

static uint64_t random_below(uint64_t *seed, uint64_t bound) {
  *seed = *seed * 6364136223846793005u + 1442695040888963407u;
  return (*seed >> 33) % bound;
}

/* Random batches (a random cut of the ids, a random half of them done, in
 * random order): the loaded ranges and the cursor agree with a bitmap. */
START_TEST(test_journal_done_cursor_random) {
  uint64_t seed = (uint64_t)_i + 1;
  enum { MAX_BATCHES = TOTAL };
  uint64_t batches[MAX_BATCHES][2];
  size_t count = 0;
  char done[TOTAL] = {0};
  for (uint64_t first = 0; first < TOTAL;) {
    uint64_t units = 1 + random_below(&seed, 7);
    if (units > TOTAL - first)
      units = TOTAL - first;
    if (random_below(&seed, 2) == 0) {
      batches[count][0] = first;
      batches[count][1] = units;
      count++;
      memset(done + first, 1, units);
    }
    first += units;
  }
  for (size_t i = count; i > 1; i--) {
    size_t j = (size_t)random_below(&seed, i);
    uint64_t first = batches[i - 1][0], units = batches[i - 1][1];
    batches[i - 1][0] = batches[j][0];
    batches[i - 1][1] = batches[j][1];
    batches[j][0] = first;
    batches[j][1] = units;
  }
  write_journal((const uint64_t(*)[2])batches, count);

  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_read(&state, message, path), NQ_OK);
  uint64_t done_units = 0;
  for (uint64_t id = 0; id < TOTAL; id++)
    done_units += (uint64_t)done[id];
  ck_assert_uint_eq(state.sums.units, done_units);
  /* Sorted, disjoint, never touching, and exactly the done ids. */
  char covered[TOTAL] = {0};
  for (size_t r = 0; r < state.done_count; r++) {
    ck_assert_uint_lt(state.done[r].first, state.done[r].end);
    if (r > 0)
      ck_assert_uint_gt(state.done[r].first, state.done[r - 1].end);
    memset(covered + state.done[r].first, 1, state.done[r].end - state.done[r].first);
  }
  ck_assert_mem_eq(covered, done, TOTAL);
  /* Every id in turn, then a sparse increasing walk. */
  nq__journal_done_cursor_t cursor;
  nq__journal_done_cursor_init(&cursor, &state);
  for (uint64_t id = 0; id < TOTAL; id++)
    ck_assert_int_eq(nq__journal_done_cursor_next(&cursor, id), done[id]);
  nq__journal_done_cursor_init(&cursor, &state);
  for (uint64_t id = random_below(&seed, 5); id < TOTAL; id += 1 + random_below(&seed, 9))
    ck_assert_int_eq(nq__journal_done_cursor_next(&cursor, id), done[id]);
  nq__journal_state_clear(&state);
}
END_TEST

/* ---- the lock ---- */

/* The child takes the journal and holds it until killed; it never touches
 * MPI and leaves with _exit.  It also leaves when this process ends (its
 * end of `release` then reads end-of-file), so a failed test leaves no
 * child behind. */
static pid_t start_holder(int *release_fd) {
  int ready[2], release[2];
  ck_assert_int_eq(pipe(ready), 0);
  ck_assert_int_eq(pipe(release), 0);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    close(ready[0]);
    close(release[1]);
    nq__journal_header_t header = test_header();
    nq__journal_state_t state;
    nq__journal_state_init(&state);
    char message[NQ__MESSAGE_SIZE];
    nq__journal_t *journal = NULL;
    char answer = nq__journal_open(&journal, &state, message, path, &header) == NQ_OK ? 'L' : 'F';
    if (write(ready[1], &answer, 1) != 1 || answer != 'L')
      _exit(1);
    char never;
    while (read(release[0], &never, 1) > 0)
      continue;
    _exit(0);
  }
  close(ready[1]);
  close(release[0]);
  *release_fd = release[1];
  char answer = 0;
  ck_assert_int_eq(read(ready[0], &answer, 1), 1);
  close(ready[0]);
  ck_assert_int_eq(answer, 'L');
  return child;
}

/* A live run's lock refuses a second run; once the holder is killed, its
 * lock is gone with it and the journal opens. */
START_TEST(test_journal_lock_refuses_second_run) {
  write_journal(three_batches, 3);
  int release;
  pid_t holder = start_holder(&release);
  nq__journal_header_t header = test_header();
  expect_refused_with(NQ_EBUSY, &header, "in use by another run");
  ck_assert_int_eq(kill(holder, SIGKILL), 0);
  int status = 0;
  ck_assert_int_eq(waitpid(holder, &status, 0), holder);
  close(release);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_ok(&state, &header, message);
  ck_assert_str_eq(message, "");
  ck_assert_uint_eq(state.records, 3);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
}
END_TEST

/* A new journal of the test's header under `method`'s name, opened into
 * `state`. */
static nq__journal_t *open_new(nq__journal_state_t *state, char *message, const char *method) {
  nq__journal_header_t header = test_header();
  nq__journal_header_set_method(&header, method, header.scheme);
  nq__journal_state_init(state);
  return open_ok(state, &header, message);
}

/* A run counts as one of the count's runs once it records anything, even
 * within its first millisecond; a run that recorded nothing is none. */
START_TEST(test_journal_counting_runs) {
  nq__journal_state_t state;
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_new(&state, message, NQ__JOURNAL_DEFAULT_METHOD);
  ck_assert_int_eq(nq__journal_append_run(journal, 1700000000000, 1), NQ_OK);
  append_small(journal, 0, 16, 0); /* at 1700000000000, the run's own millisecond */
  ck_assert_int_eq(nq__journal_append_run(journal, 1700000000100, 1), NQ_OK);
  ck_assert_int_eq(nq__journal_append_run(journal, 1700000000200, 1), NQ_OK);
  append_small(journal, 16, 16, 0); /* at 1700000000016: before its run began */
  append_small(journal, 80, 20, 0); /* at 1700000000080 */
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
  nq__journal_state_init(&state);
  ck_assert_int_eq(nq__journal_read(&state, message, path), NQ_OK);
  ck_assert_uint_eq(state.runs, 3);
  ck_assert_uint_eq(state.counting_runs, 1);
  ck_assert_int_eq(state.counting_ms, 0);
  nq__journal_state_clear(&state);
}
END_TEST

/* A check line of `first`..`first + units - 1` with append_small's sums
 * for that batch, less `solutions_off` solutions and `nodes_off` nodes. */
static void append_check_of(nq__journal_t *journal, uint64_t first, uint64_t units,
                            int solutions_off, int nodes_off, int agrees) {
  nq__totals_t batch;
  nq__totals_init(&batch);
  mpz_set_ui(batch.solutions, first * 10 + units - (uint64_t)solutions_off);
  mpz_set_ui(batch.unique_times_8, first * 2);
  mpz_set_ui(batch.nodes, first * 1000 + 7 - (uint64_t)nodes_off);
  batch.units = units;
  ck_assert_int_eq(nq__journal_append_check(journal, first, &batch, 1, 1700000000000, agrees),
                   NQ_OK);
  nq__totals_clear(&batch);
}

/* three_batches under `method`'s name with five checks: one that agrees
 * with its record, one whose nodes differ, one whose count differs, one
 * of no recorded batch, and a "differ" one. */
static void write_checked_journal(const char *method) {
  nq__journal_state_t state;
  char message[NQ__MESSAGE_SIZE];
  nq__journal_t *journal = open_new(&state, message, method);
  for (size_t i = 0; i < 3; i++)
    append_small(journal, three_batches[i][0], three_batches[i][1], (int)i);
  append_check_of(journal, 0, 16, 0, 0, 1);
  append_check_of(journal, 16, 16, 0, 1, 1);
  append_check_of(journal, 80, 20, 1, 0, 1);
  append_check_of(journal, 80, 10, 0, 0, 1);
  append_check_of(journal, 0, 16, 1, 0, 0);
  ck_assert_int_eq(nq__journal_close(journal), NQ_OK);
  nq__journal_state_clear(&state);
}

/* Each "agree" check held to the record of its batch: the same sums
 * confirm it, other counts contradict it, other nodes only where the
 * header's method fixes them (the backtracker's, not the join's); a check
 * of no recorded batch and a "differ" one are neither. */
START_TEST(test_journal_checks_held_to_records) {
  write_checked_journal("backtrack");
  nq__journal_checks_t checks;
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_checks_confirm(&checks, message, path), NQ_OK);
  ck_assert_uint_eq(checks.agreeing, 4);
  ck_assert_uint_eq(checks.confirmed, 1);
  ck_assert_uint_eq(checks.contradicted, 2);
  ck_assert_uint_eq(checks.contradicted_first, 16);
  ck_assert_uint_eq(checks.contradicted_end, 32);
  unlink(path);
  write_checked_journal("join");
  ck_assert_int_eq(nq__journal_checks_confirm(&checks, message, path), NQ_OK);
  ck_assert_uint_eq(checks.agreeing, 4);
  ck_assert_uint_eq(checks.confirmed, 2);
  ck_assert_uint_eq(checks.contradicted, 1);
  ck_assert_uint_eq(checks.contradicted_first, 80);
  ck_assert_uint_eq(checks.contradicted_end, 100);
}
END_TEST

/* A journal without checks is read once and holds none. */
START_TEST(test_journal_checks_none) {
  write_journal(three_batches, 3);
  nq__journal_checks_t checks;
  char message[NQ__MESSAGE_SIZE];
  ck_assert_int_eq(nq__journal_checks_confirm(&checks, message, path), NQ_OK);
  ck_assert_uint_eq(checks.agreeing + checks.confirmed + checks.contradicted, 0);
  ck_assert_int_eq(nq__journal_checks_confirm(&checks, message, "/nonexistent/j"), NQ_EJOURNAL);
}
END_TEST

static Suite *journal_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("journal");
  TCase *format = support_tcase("format");
  tcase_add_checked_fixture(format, make_directory, remove_directory);
  tcase_add_test(format, test_journal_golden_bytes);
  tcase_add_test(format, test_journal_golden_reads);
  tcase_add_test(format, test_journal_round_trip);
  tcase_add_test(format, test_journal_header_read_alone);
  tcase_add_test(format, test_journal_sum_bound_per_unit);
  tcase_add_test(format, test_journal_append_refuses_bad_batches);
  tcase_add_test(format, test_journal_open_refuses_unwritable_header);
  tcase_add_test(format, test_journal_checks_held_to_records);
  tcase_add_test(format, test_journal_counting_runs);
  tcase_add_test(format, test_journal_checks_none);
  suite_add_tcase(suite, format);
  TCase *damage = support_tcase("damage");
  tcase_add_checked_fixture(damage, make_directory, remove_directory);
  tcase_add_test(damage, test_journal_torn_tail_every_offset);
  tcase_add_test(damage, test_journal_bad_last_line_dropped);
  tcase_add_test(damage, test_journal_torn_check_and_run_lines_named);
  tcase_add_test(damage, test_journal_failed_write_stops_appends);
  tcase_add_test(damage, test_journal_damaged_middle_refused);
  tcase_add_loop_test(damage, test_journal_wrong_header_refused, 0,
                      (int)(sizeof wrong_fields / sizeof wrong_fields[0]));
  tcase_add_loop_test(damage, test_journal_not_a_journal_refused, 0,
                      (int)(sizeof not_journals / sizeof not_journals[0]));
  suite_add_tcase(suite, damage);
  TCase *cursor = support_tcase("cursor");
  tcase_add_checked_fixture(cursor, make_directory, remove_directory);
  tcase_add_loop_test(cursor, test_journal_done_cursor_random, 0, 50);
  suite_add_tcase(suite, cursor);
  TCase *lock = support_tcase("lock");
  tcase_add_checked_fixture(lock, make_directory, remove_directory);
  tcase_add_test(lock, test_journal_lock_refuses_second_run);
  suite_add_tcase(suite, lock);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, journal_suite); }
