#ifndef NQ_SRC_JOURNAL_H
#define NQ_SRC_JOURNAL_H

/* The checkpoint journal: a text file of finished work that a rerun of the
 * same command resumes from (docs/design.md, "Checkpoint journal", gives
 * the format byte by byte).  Rank 0 alone opens it; one line per finished
 * batch (a contiguous range of unit ids with its exact sums), each line
 * checked by its own CRC-32.
 *
 * Refusals (NQ_EJOURNAL) fill `message` with one line naming the problem
 * and leave the file byte for byte as it was.  A POSIX record lock on the
 * journal keeps a second live run out; the kernel drops it when the holder
 * dies.  POSIX locks belong to the process: it must not open the same
 * journal twice, nor read it with nq__journal_read while it holds it
 * (closing any descriptor of the file releases the lock). */

#include <stddef.h>
#include <stdint.h>

#include "message.h"
#include "totals.h"

/* The longest program version a header carries. */
#define NQ__JOURNAL_VERSION_MAX 63
/* The longest method name a header carries. */
#define NQ__JOURNAL_METHOD_MAX 15
/* The method of a header without one (journals before methods had names). */
#define NQ__JOURNAL_DEFAULT_METHOD "backtrack"
/* Appends reach the disk (fdatasync) when the last sync is this old. */
#define NQ__JOURNAL_SYNC_SECONDS 2

/* What makes unit ids and sums mean the same thing in two runs: a journal
 * resumes only a run whose header is equal in every field. */
typedef struct nq__journal_header {
  int n;
  int unique; /* 0 or 1: the records carry Burnside sums */
  int depth;  /* the method's unit parameter, resolved (the backtracker's
                 pre-placed rows, the join's top rows) */
  int scheme; /* the method's unit scheme in the program that wrote it */
  char method[NQ__JOURNAL_METHOD_MAX + 1];   /* "backtrack" or "join" */
  char version[NQ__JOURNAL_VERSION_MAX + 1]; /* no spaces or control characters */
  uint64_t total_units;                      /* units of the whole enumeration */
  int slice_index, slice_count; /* the run's slice (nqueens/slice.h); 0 of 1: all units */
} nq__journal_header_t;

/* Unit ids first..end-1. */
typedef struct nq__journal_range {
  uint64_t first, end;
} nq__journal_range_t;

/* What a journal holds: the sums of its records and the ids they cover. */
typedef struct nq__journal_state {
  nq__journal_header_t header;
  nq__totals_t sums;         /* sums.units: units recorded */
  nq__journal_range_t *done; /* sorted, disjoint, never adjacent */
  size_t done_count;
  uint64_t records;
  int64_t first_time_ms, last_time_ms; /* earliest and latest record; 0 without any */
  uint64_t checks, checks_differing; /* check lines (--verify), and those that found a difference */
  uint64_t runs;                     /* run lines: counts that opened the journal */
  uint64_t differing_first, differing_end; /* the first such check's units */
  uint64_t device, inode; /* the file read (st_dev, st_ino): one file under two names */
  /* The time the count spent counting, summed over its runs (from each run
   * line to the run's last record), and the runs that recorded anything:
   * the hours a job waited between requeues are not in it. */
  int64_t counting_ms;
  uint64_t counting_runs;
} nq__journal_state_t;

/* One line of a journal as nq__journal_visit hands it over: a record, or a
 * check (a batch solved again by --verify, with the verdict its writer
 * found against the record). */
typedef struct nq__journal_line {
  int is_check;
  uint64_t first, count;
  const nq__totals_t *sums; /* sums.units is not set */
  int rank;
  int64_t time_ms;
  int agrees; /* checks only */
} nq__journal_line_t;

typedef int (*nq__journal_visitor_fn)(const nq__journal_line_t *line, void *context);

/* Walks the done ranges alongside ids streamed in increasing order. */
typedef struct nq__journal_done_cursor {
  const nq__journal_range_t *done;
  size_t done_count;
  size_t next; /* the first range that does not end at or before the last id asked */
} nq__journal_done_cursor_t;

typedef struct nq__journal nq__journal_t;

/* The header of this program for a count of n x n by the backtracker
 * (scheme NQ_UNIT_SCHEME, version NQ_VERSION). */
void nq__journal_header_init(nq__journal_header_t *header, int n, int unique, int depth,
                             uint64_t total_units);

/* Another method: its name (letters, at most NQ__JOURNAL_METHOD_MAX) and
 * unit scheme. */
void nq__journal_header_set_method(nq__journal_header_t *header, const char *method, int scheme);

void nq__journal_state_init(nq__journal_state_t *state);
void nq__journal_state_clear(nq__journal_state_t *state);

/* 1 when the file at `path` begins as a journal does (its first line's
 * word), else 0 (another file, or none that can be read): what must not
 * be replaced by anything but a journal's own writes. */
int nq__journal_file_is_one(const char *path);

/* Opens `path` for the run `expected` describes and locks it.  A missing
 * file is created holding the header alone, atomically (temporary file,
 * fsync, link into place, fsync of the directory); an existing one is
 * loaded into `state` (which must be initialised and empty) and validated.
 * A torn last record is dropped and cut off the file; `message` then holds
 * a one-line warning, else it is empty.  A journal that cannot be written
 * (EROFS, EACCES) is opened for reading alone when it is complete (see
 * nq__journal_read_only), and refused otherwise.  NQ_EJOURNAL (with
 * `message`) when
 * the file cannot serve: another header, damage anywhere but the last
 * record, not a journal, empty, or an I/O failure while opening; NQ_EBUSY
 * (with `message`) when a live run holds its lock; NQ_EINVAL for a header
 * that cannot be written; NQ_ENOMEM.
 * On failure *out_journal is NULL and the file is untouched. */
int nq__journal_open(nq__journal_t **out_journal, nq__journal_state_t *state,
                     char message[static NQ__MESSAGE_SIZE], const char *path,
                     const nq__journal_header_t *expected);

/* Loads `path` without locking or changing it, whatever its header (for a
 * reader beside a live run: a torn last record may be an append under
 * way, and gives a warning in `message`).  Refuses as nq__journal_open. */
int nq__journal_read(nq__journal_state_t *state, char message[static NQ__MESSAGE_SIZE],
                     const char *path);

/* The header of the journal at `path`, from its first line alone (a
 * journal of a record count is gigabytes): NQ_OK, or NQ_EJOURNAL with the
 * reason in `message` (no such file, not a journal, a damaged header). */
int nq__journal_read_header(nq__journal_header_t *header, char message[static NQ__MESSAGE_SIZE],
                            const char *path);

/* nq__journal_read that also hands every record and check line, in file
 * order, to `visit` (a non-zero return stops the reading and is
 * returned). */
int nq__journal_visit(nq__journal_state_t *state, char message[static NQ__MESSAGE_SIZE],
                      const char *path, nq__journal_visitor_fn visit, void *context);

/* Appends a check of the batch of ids first_id..first_id + batch->units -
 * 1: the sums `rank` found solving it again, and whether they agree with
 * the record.  As nq__journal_append otherwise, but a check that differs
 * is synced before it returns. */
int nq__journal_append_check(nq__journal_t *journal, uint64_t first_id, const nq__totals_t *batch,
                             int rank, int64_t time_ms, int agrees);

/* Appends a run line: a count of `ranks` ranks opened the journal at
 * `time_ms` (restarts are the runs after the first). */
int nq__journal_append_run(nq__journal_t *journal, int64_t time_ms, int ranks);

/* Appends one finished batch: ids first_id..first_id + batch->units - 1
 * with batch's sums, solved by `rank` at `time_ms` (nq__journal_now_ms).
 * The line reaches the kernel at once, so a killed process loses nothing
 * it appended; it reaches the disk at the next sync, which this runs when
 * the last one is NQ__JOURNAL_SYNC_SECONDS old.  The caller appends each
 * id once: a range that overlaps a recorded one makes the journal refused
 * as damaged.  NQ_EINVAL for an empty range, one past total_units or a
 * negative rank; NQ_EIO when a write or sync fails (nq__journal_errno
 * says why), after which every append and sync fails. */
int nq__journal_append(nq__journal_t *journal, uint64_t first_id, const nq__totals_t *batch,
                       int rank, int64_t time_ms);

/* fdatasync of everything appended, when anything was since the last
 * one.  NQ_EIO on failure. */
int nq__journal_sync(nq__journal_t *journal);

/* nq__journal_sync when the last sync is NQ__JOURNAL_SYNC_SECONDS old:
 * for a caller's loop that may go a while without appending. */
int nq__journal_sync_if_due(nq__journal_t *journal);

/* Whether the journal was opened for reading alone: it could not be
 * written, and nq__journal_open took it only because it is complete.
 * Every append fails (NQ_EIO, with the reason it could not be written). */
int nq__journal_read_only(const nq__journal_t *journal);

/* errno of the write or sync that failed, 0 if none did. */
int nq__journal_errno(const nq__journal_t *journal);

/* Syncs, unlocks and frees (NULL is a no-op): the sync's status. */
int nq__journal_close(nq__journal_t *journal);

/* Wall-clock milliseconds since the Unix epoch. */
int64_t nq__journal_now_ms(void);

/* For a reader that trusts nothing but the checksums (--status, --merge):
 * NQ_EJOURNAL (with `message`) unless the header's unit total is the one
 * its n and depth have under this program's unit scheme (a header is
 * counted again: n = 27 in 0.06 s, n = 64 in 19 s).  A header of
 * another scheme passes: it is refused wherever units are compared. */
int nq__journal_check_units(const nq__journal_header_t *header,
                            char message[static NQ__MESSAGE_SIZE], const char *path);

/* 1 when every unit of the enumeration is recorded: the result is final. */
int nq__journal_complete(const nq__journal_state_t *state);

/* Units the journal's run counts: its slice's, or the whole count's. */
uint64_t nq__journal_units(const nq__journal_state_t *state);

/* A cursor over state's done ranges; the state must outlive it. */
void nq__journal_done_cursor_init(nq__journal_done_cursor_t *cursor,
                                  const nq__journal_state_t *state);

/* 1 when unit `id` is recorded, else 0.  Ids must come in increasing
 * order: amortised O(1) a call (one comparison while inside a gap). */
int nq__journal_done_cursor_next(nq__journal_done_cursor_t *cursor, uint64_t id);

#endif
