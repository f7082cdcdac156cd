/* A libFuzzer target for every reader of untrusted journal files: the
 * journal's loader (a resume's, a reader's beside a live run), --status and
 * --merge (tests/fuzz.sh builds it with clang and runs it).
 *
 * An input is one journal, or two separated by a line "=": each is written
 * to a file and read, reported on and merged alone, with a copy of itself
 * and with the other.  An input that begins with "C" has that byte taken
 * off and every line's checksum made right, so that the fuzzer also
 * explores journals that pass their CRCs (a forged record, an altered
 * header) and reach the logic behind them.  Besides crashes, hangs and leaks, which the
 * sanitizers and libFuzzer find, it fails on a wrong answer that passes:
 *  - a loaded journal whose done ranges are not sorted, disjoint and
 *    within its units, or do not add up to the units it says it holds;
 *  - a merge that gives a total while some journal that holds every unit
 *    alone sums to something else, or whose units do not add up. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "journal.h"
#include "merge.h"
#include "nqueens/error.h"
#include "status.h"

/* --status and --merge count the header's units again: quick only for
 * small boards, so larger ones are read but not reported or merged. */
enum { COUNTED_MAX_N = 14, FILES = 3 };

/* One journal file of the input: what reading it alone found. */
typedef struct file {
  char path[256];
  int loads, complete, n;
  mpz_t solutions;
} file_t;

static file_t files[FILES];
static int checksums_fixed; /* this input began with "C" */

static void fail(const char *what) {
  fprintf(stderr, "fuzz_journal: %s\n", what);
  abort();
}

static void write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *stream = fopen(path, "wb");
  if (stream == NULL || fwrite(data, 1, size, stream) != size || fclose(stream) != 0)
    fail("cannot write the input to a file");
}

/* The loader's state must describe what it says it holds. */
static void check_state(const nq__journal_state_t *state) {
  uint64_t units = 0, end = 0;
  for (size_t i = 0; i < state->done_count; i++) {
    const nq__journal_range_t *range = &state->done[i];
    if (range->first >= range->end || (i > 0 && range->first <= end) ||
        range->end > state->header.total_units)
      fail("done ranges not sorted, disjoint and within the journal's units");
    units += range->end - range->first;
    end = range->end;
  }
  if (units != state->sums.units)
    fail("done ranges do not add up to the units held");
}

static void report(const char *path) {
  FILE *null = fopen("/dev/null", "w");
  if (null == NULL)
    fail("cannot open /dev/null");
  nq__status_print(null, null, path, NQ_FORMAT_TEXT);
  nq__status_print(null, null, path, NQ_FORMAT_JSON);
  fclose(null);
}

/* Reads the file alone, and reports on it as --status would. */
static void read_one(file_t *f) {
  char message[NQ__MESSAGE_SIZE];
  nq__journal_state_t state;
  nq__journal_state_init(&state);
  f->loads = nq__journal_read(&state, message, f->path) == NQ_OK;
  f->complete = 0;
  f->n = -1;
  if (f->loads) {
    check_state(&state);
    f->n = state.header.n;
    f->complete = state.header.slice_count == 1 && nq__journal_complete(&state);
    mpz_set(f->solutions, state.sums.solutions);
    if (f->n <= COUNTED_MAX_N)
      report(f->path);
  }
  nq__journal_state_clear(&state);
}

/* Files a and b (b < 0: a alone) merged: a total must hold every unit and
 * agree with each of them that is whole alone. */
static void check_merge(int a, int b) {
  if (files[a].loads && files[a].n > COUNTED_MAX_N)
    return;
  char message[NQ__MESSAGE_SIZE], *list[2] = {files[a].path, b >= 0 ? files[b].path : NULL};
  nq__merge_result_t result;
  nq__merge_result_init(&result);
  /* Two journals whole alone, above all under checksums made right, are
   * where a wrong total can hide: branches of their own, so that libFuzzer
   * keeps and mutates the inputs that reach them (it keeps only inputs
   * that cover something new, and counts edges, not their combinations). */
  static volatile int both_whole, both_whole_forged;
  if (b >= 0 && files[a].complete && files[b].complete) {
    if (checksums_fixed)
      both_whole_forged++;
    else
      both_whole++;
  }
  if (nq__merge_journals(&result, message, list, b >= 0 ? 2 : 1) == NQ_OK &&
      nq__merge_is_total(&result)) {
    if (result.units_present != result.header.total_units)
      fail("a merge total that does not hold every unit");
    for (int i = 0; i < 2; i++) {
      const file_t *f = i == 0 ? &files[a] : b >= 0 ? &files[b] : NULL;
      if (f != NULL && f->complete && mpz_cmp(f->solutions, result.solutions) != 0)
        fail("a merge total that differs from a whole journal's own sum");
    }
  }
  nq__merge_result_clear(&result);
}

/* Every line that ends in a space and 8 characters gets the CRC-32 of
 * what precedes that space there, as the journal writes it. */
static void fix_checksums(uint8_t *text, size_t size) {
  static const char hex[] = "0123456789abcdef";
  size_t start = 0;
  for (size_t i = 0; i < size; i++) {
    if (text[i] != '\n')
      continue;
    if (i - start >= 10 && text[i - 9] == ' ') {
      uint32_t crc = (uint32_t)crc32(0L, text + start, (uInt)(i - 9 - start));
      for (int d = 0; d < 8; d++)
        text[i - 8 + d] = (uint8_t)hex[crc >> (28 - 4 * d) & 0xf];
    }
    start = i + 1;
  }
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* A journal's meaning is in its numbers: half the mutations change one
 * number of the text (a unit id, a count, a sum, a header field) by a
 * little, or to 0 or 1, keeping its digits digits; the others are
 * libFuzzer's own.  With "C" first the checksums are then made right, so
 * that such a change reaches the logic behind them. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  srand(seed);
  if (size == 0 || rand() % 2 == 0)
    return LLVMFuzzerMutate(data, size, max_size);
  size_t at = (size_t)rand() % size, start, end;
  while (at < size && (data[at] < '0' || data[at] > '9'))
    at++;
  if (at == size)
    return LLVMFuzzerMutate(data, size, max_size);
  for (start = at; start > 0 && data[start - 1] >= '0' && data[start - 1] <= '9'; start--)
    ;
  for (end = at; end < size && data[end] >= '0' && data[end] <= '9'; end++)
    ;
  char digits[24];
  size_t length = end - start < 19 ? end - start : 19;
  memcpy(digits, data + start, length);
  digits[length] = '\0';
  unsigned long long value = strtoull(digits, NULL, 10);
  switch (rand() % 4) {
  case 0: value += 1 + (unsigned)(rand() % 8); break;
  case 1: value -= value > 0 ? 1 + (unsigned)(rand() % (value < 8 ? value : 8)) : 0; break;
  case 2: value = (unsigned long long)(rand() % 2); break;
  default: value *= 2; break;
  }
  int written = snprintf(digits, sizeof digits, "%llu", value);
  size_t new_size = size - (end - start) + (size_t)written;
  if (new_size > max_size)
    return size;
  memmove(data + start + written, data + end, size - end);
  memcpy(data + start, digits, (size_t)written);
  return new_size;
}

/* The input split at its first line "=": the first journal and the
 * second (empty when there is none). */
static size_t split(const uint8_t *data, size_t size, size_t *second) {
  for (size_t i = 0; i + 1 < size; i++)
    if ((i == 0 || data[i - 1] == '\n') && data[i] == '=' && data[i + 1] == '\n') {
      *second = i + 2;
      return i;
    }
  *second = size;
  return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (files[0].path[0] == '\0') {
    const char *directory = getenv("NQ_FUZZ_DIR") != NULL ? getenv("NQ_FUZZ_DIR") : "/tmp";
    for (int i = 0; i < FILES; i++) {
      snprintf(files[i].path, sizeof files[i].path, "%s/fuzz-%ld-%d.journal", directory,
               (long)getpid(), i);
      mpz_init(files[i].solutions);
    }
  }
  uint8_t *fixed = NULL;
  checksums_fixed = size > 0 && data[0] == 'C';
  if (checksums_fixed) {
    fixed = malloc(size);
    if (fixed == NULL)
      return 0;
    memcpy(fixed, data + 1, size - 1);
    fix_checksums(fixed, size - 1);
    data = fixed;
    size--;
  }
  size_t second = 0, first_size = split(data, size, &second);
  write_file(files[0].path, data, first_size);
  write_file(files[1].path, data, first_size); /* a copy: another file, the same bytes */
  write_file(files[2].path, data + second, size - second);
  for (int i = 0; i < FILES; i++)
    read_one(&files[i]);
  check_merge(0, -1);
  check_merge(0, 1);
  check_merge(0, 2);
  for (int i = 0; i < FILES; i++)
    unlink(files[i].path);
  free(fixed);
  return 0;
}
