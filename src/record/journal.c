#define _POSIX_C_SOURCE 200809L /* fdatasync, pwrite, link, mkstemp, O_CLOEXEC */

#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "durable.h"
#include "journal_lines.h"
#include "journal_load.h"
#include "nqueens/error.h"

/* The journal's file (this file): opened or created under its lock,
 * appended to line by line, synced; its lines are journal_lines.c's, its
 * loading journal_load.c's. */

struct nq__journal {
  int fd;
  int read_only_errno;    /* opened for reading alone (why it could not be written), or 0 */
  off_t size;             /* bytes of whole lines in the file */
  int unsynced;           /* something was written since the last fdatasync */
  struct timespec synced; /* when it last was (CLOCK_MONOTONIC) */
  int status;             /* NQ_OK, or NQ_EIO once a write or sync failed */
  int failed_errno;
  uint64_t total_units;
};

/* ---- opening: lock, create, resume ---- */

/* A write lock, or for a journal that can only be read a read lock, which
 * a live run's write lock refuses all the same. */
static int lock_whole_file(int fd, short type, char *message, const char *path) {
  struct flock lock = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  if (fcntl(fd, F_SETLK, &lock) == 0)
    return NQ_OK;
  if (errno != EACCES && errno != EAGAIN)
    return nq__journal_refuse(message, path, "cannot lock: %s", strerror(errno));
  struct flock holder = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  if (fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK && holder.l_pid > 0)
    nq__journal_refuse(message, path, "in use by another run (process %ld holds its lock)",
                       (long)holder.l_pid);
  else
    nq__journal_refuse(message, path, "in use by another run (its lock is held)");
  return NQ_EBUSY;
}

/* pwrite until everything is written: 0, or -1 with errno set. */
static int write_all(int fd, const char *text, size_t length, off_t offset) {
  while (length > 0) {
    ssize_t written = pwrite(fd, text, length, offset);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      if (written == 0)
        errno = EIO;
      return -1;
    }
    text += written;
    length -= (size_t)written;
    offset += written;
  }
  return 0;
}

static int sync_directory(char *message, const char *path) {
  return nq__sync_directory_of(path) == 0
             ? NQ_OK
             : nq__journal_refuse(message, path, "cannot sync its directory: %s", strerror(errno));
}

/* Puts the temporary file in place under `path`.  link(2) does so only
 * while the name is free: of two runs started together, one creates the
 * journal and the other finds it, locked.  On a filesystem without hard
 * links, rename(2) has no such guard. */
static int publish(int *created, char *message, const char *temporary, const char *path) {
  *created = 0;
  if (link(temporary, path) == 0) {
    *created = 1;
    return NQ_OK;
  }
  if (errno == EEXIST)
    return NQ_OK;
  if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS)
    return nq__journal_refuse(message, path, "cannot create: %s", strerror(errno));
  if (rename(temporary, path) != 0)
    return nq__journal_refuse(message, path, "cannot create: %s", strerror(errno));
  *created = 1;
  return NQ_OK;
}

/* Fills `message` as nq__journal_refuse does; a failure of the disk
 * rather than of the path given (full, over quota, failing) is the run's
 * failure (NQ_EIO), not a refusal of its input (NQ_EJOURNAL). */
static int refuse_or_fail(char *message, const char *path, const char *what, const char *name,
                          int error) {
  int rc = nq__journal_refuse(message, path, "%s%s%s: %s", what, name[0] ? " " : "", name,
                              strerror(error));
  return error == ENOSPC || error == EDQUOT || error == EIO ? NQ_EIO : rc;
}

/* A new journal holding the header alone, never seen half written: the
 * header goes to a temporary file in the same directory, is synced, then
 * takes the journal's name, and the directory is synced.  The file is
 * locked before it has the name.  *created is 0, with NQ_OK, when another
 * run created the journal first. */
static int create(nq__journal_t *journal, int *created, nq__journal_state_t *state, char *message,
                  const char *path, const nq__journal_header_t *header) {
  size_t size = strlen(path) + 32;
  char *temporary = malloc(size);
  if (temporary == NULL)
    return NQ_ENOMEM;
  /* A name no other process holds, where a pid could be (a stale file
   * of a crashed run whose pid came round again, another container's run
   * on a shared filesystem). */
  nq__name_beside(temporary, size, path, ".tmp.XXXXXX");
  int fd = mkstemp(temporary);
  if (fd >= 0 &&
      (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fchmod(fd, nq__mode_less_umask(0644)) != 0)) {
    int failed_errno = errno;
    close(fd);
    unlink(temporary);
    errno = failed_errno;
    fd = -1;
  }
  if (fd < 0) {
    int rc = refuse_or_fail(message, path, "cannot create", temporary, errno);
    free(temporary);
    return rc;
  }
  nq__journal_text_t line;
  nq__journal_format_header(&line, header);
  int rc = lock_whole_file(fd, F_WRLCK, message, temporary);
  if (rc == NQ_OK && (write_all(fd, line.text, line.length, 0) != 0 || fsync(fd) != 0))
    rc = refuse_or_fail(message, path, "cannot write", temporary, errno);
  if (rc == NQ_OK)
    rc = publish(created, message, temporary, path);
  unlink(temporary);
  free(temporary);
  if (rc == NQ_OK && *created)
    rc = sync_directory(message, path);
  if (rc != NQ_OK || !*created) {
    close(fd);
    return rc;
  }
  journal->fd = fd;
  journal->size = (off_t)line.length;
  state->header = *header;
  return NQ_OK;
}

/* An existing journal: locked first, so that nothing changes it while it
 * is read; cut back to its last whole record only once all of it is
 * known good. */
static int resume(nq__journal_t *journal, nq__journal_state_t *state, char *message,
                  const char *path, const nq__journal_header_t *expected, int fd) {
  journal->fd = fd;
  int rc = nq__journal_check_regular(state, fd, message, path);
  if (rc == NQ_OK)
    rc = lock_whole_file(fd, F_WRLCK, message, path);
  nq__journal_loader_t l = {.state = state, .message = message, .path = path, .expected = expected};
  if (rc == NQ_OK)
    rc = nq__journal_load(&l, fd);
  if (rc != NQ_OK)
    return rc;
  if (l.good_end < l.file_end) {
    if (ftruncate(fd, l.good_end) != 0 || fsync(fd) != 0)
      return refuse_or_fail(message, path, "cannot cut its torn last record", "", errno);
    nq__journal_refuse(message, path, "torn last %s at line %" PRIu64 " (%lld bytes) dropped: %s",
                       nq__journal_line_names[l.torn_kind], l.torn_line,
                       (long long)(l.file_end - l.good_end),
                       nq__journal_torn_drop_means[l.torn_kind]);
  }
  journal->size = l.good_end;
  return NQ_OK;
}

/* A journal that cannot be written (a read-only filesystem, a file
 * without write permission) serves a run only when it is complete: the
 * result comes from it and nothing is written. */
static int resume_read_only(nq__journal_t *journal, nq__journal_state_t *state, char *message,
                            const char *path, const nq__journal_header_t *expected,
                            int write_errno) {
  journal->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (journal->fd < 0)
    return nq__journal_refuse(message, path, "cannot open: %s", strerror(write_errno));
  journal->read_only_errno = write_errno;
  int rc = nq__journal_check_regular(state, journal->fd, message, path);
  if (rc == NQ_OK)
    rc = lock_whole_file(journal->fd, F_RDLCK, message, path);
  nq__journal_loader_t l = {.state = state, .message = message, .path = path, .expected = expected};
  if (rc == NQ_OK)
    rc = nq__journal_load(&l, journal->fd);
  if (rc != NQ_OK)
    return rc;
  if (!nq__journal_complete(state)) {
    rc = nq__journal_refuse(message, path,
                            "cannot be written (%s), and it holds %" PRIu64 " of its %" PRIu64
                            " units: a run could not record the rest",
                            strerror(write_errno), state->sums.units, nq__journal_units(state));
    nq__journal_state_reset(state);
    return rc;
  }
  if (l.good_end < l.file_end)
    nq__journal_refuse(message, path,
                       "torn last %s at line %" PRIu64 " (%lld bytes) left in place: %s",
                       nq__journal_line_names[l.torn_kind], l.torn_line,
                       (long long)(l.file_end - l.good_end), "the journal cannot be written");
  journal->size = l.good_end;
  return NQ_OK;
}

int nq__journal_file_is_one(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return 0;
  char start[sizeof JOURNAL_MAGIC];
  ssize_t got;
  do
    got = read(fd, start, sizeof start - 1);
  while (got < 0 && errno == EINTR);
  close(fd);
  return got == (ssize_t)(sizeof start - 1) && memcmp(start, JOURNAL_MAGIC, sizeof start - 1) == 0;
}

static int is_symbolic_link(const char *path) {
  struct stat info;
  return lstat(path, &info) == 0 && S_ISLNK(info.st_mode);
}

static int open_or_create(nq__journal_t *journal, nq__journal_state_t *state, char *message,
                          const char *path, const nq__journal_header_t *expected) {
  /* A second try finds a journal that another run created between this
   * one's open and its link. */
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK); /* as in visit */
    if (fd >= 0)
      return resume(journal, state, message, path, expected, fd);
    if (errno == EROFS || errno == EACCES || errno == EPERM)
      return resume_read_only(journal, state, message, path, expected, errno);
    if (errno != ENOENT)
      return nq__journal_refuse(message, path, "cannot open: %s", strerror(errno));
    if (is_symbolic_link(path))
      return nq__journal_refuse(message, path,
                                "a symbolic link to nothing: a journal is created in place, "
                                "not through a link");
    int created = 0;
    int rc = create(journal, &created, state, message, path, expected);
    if (rc != NQ_OK || created)
      return rc;
  }
  return nq__journal_refuse(message, path, "cannot open: it vanished after another run created it");
}

int nq__journal_open(nq__journal_t **out_journal, nq__journal_state_t *state,
                     char message[static NQ__MESSAGE_SIZE], const char *path,
                     const nq__journal_header_t *expected) {
  *out_journal = NULL;
  message[0] = '\0';
  if (!nq__journal_header_is_valid(expected))
    return NQ_EINVAL;
  nq__journal_t *journal = calloc(1, sizeof *journal);
  if (journal == NULL)
    return NQ_ENOMEM;
  journal->fd = -1;
  journal->total_units = expected->total_units;
  int rc = open_or_create(journal, state, message, path, expected);
  if (rc != NQ_OK) {
    if (journal->fd >= 0)
      close(journal->fd);
    free(journal);
    return rc;
  }
  clock_gettime(CLOCK_MONOTONIC, &journal->synced);
  *out_journal = journal;
  return NQ_OK;
}

/* ---- appending ---- */

static int fail(nq__journal_t *journal, int failed_errno) {
  journal->status = NQ_EIO;
  journal->failed_errno = failed_errno;
  return NQ_EIO;
}

int nq__journal_sync(nq__journal_t *journal) {
  if (journal->status != NQ_OK || !journal->unsynced)
    return journal->status;
  int rc;
  do
    rc = fdatasync(journal->fd);
  while (rc != 0 && errno == EINTR);
  /* After a failed fdatasync the kernel may have dropped the pages it
   * could not write: nothing appended after that could be trusted. */
  if (rc != 0)
    return fail(journal, errno);
  journal->unsynced = 0;
  clock_gettime(CLOCK_MONOTONIC, &journal->synced);
  return NQ_OK;
}

int nq__journal_sync_if_due(nq__journal_t *journal) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t elapsed_ms = (int64_t)(now.tv_sec - journal->synced.tv_sec) * 1000 +
                       (now.tv_nsec - journal->synced.tv_nsec) / 1000000;
  if (elapsed_ms < NQ__JOURNAL_SYNC_SECONDS * 1000)
    return journal->status;
  return nq__journal_sync(journal);
}

/* Whether a batch of ids first_id.. can be recorded. */
static int batch_is_valid(const nq__journal_t *journal, uint64_t first_id,
                          const nq__totals_t *batch, int rank, int64_t time_ms) {
  uint64_t total = journal->total_units;
  return batch->units > 0 && first_id < total && batch->units <= total - first_id && rank >= 0 &&
         time_ms >= 0;
}

/* A failed write (a full disk) may leave part of the line: it is cut off
 * again, so that the journal holds whole lines.  Where even that fails the
 * torn last line stays, which the next open drops with a warning.
 * Nothing is appended after it. */
static int append_line(nq__journal_t *journal, const nq__journal_text_t *line) {
  if (journal->read_only_errno != 0)
    return fail(journal, journal->read_only_errno);
  if (write_all(journal->fd, line->text, line->length, journal->size) != 0) {
    const int write_errno = errno;
    if (ftruncate(journal->fd, journal->size) != 0) {
      /* the torn line stays: see above */
    }
    return fail(journal, write_errno);
  }
  journal->size += (off_t)line->length;
  journal->unsynced = 1;
  return nq__journal_sync_if_due(journal);
}

int nq__journal_append(nq__journal_t *journal, uint64_t first_id, const nq__totals_t *batch,
                       int rank, int64_t time_ms) {
  if (journal->status != NQ_OK)
    return journal->status;
  nq__journal_text_t line;
  if (!batch_is_valid(journal, first_id, batch, rank, time_ms) ||
      nq__journal_format_record(&line, first_id, batch, rank, time_ms) != NQ_OK)
    return NQ_EINVAL;
  return append_line(journal, &line);
}

int nq__journal_append_run(nq__journal_t *journal, int64_t time_ms, int ranks) {
  if (journal->status != NQ_OK)
    return journal->status;
  if (time_ms < 0 || ranks < 1)
    return NQ_EINVAL;
  nq__journal_text_t line = {.length = 0};
  nq__journal_put_word(&line, RUN_WORD " ");
  nq__journal_put_u64(&line, (uint64_t)time_ms);
  nq__journal_put_char(&line, ' ');
  nq__journal_put_u64(&line, (uint64_t)ranks);
  nq__journal_put_crc(&line);
  return append_line(journal, &line);
}

int nq__journal_append_check(nq__journal_t *journal, uint64_t first_id, const nq__totals_t *batch,
                             int rank, int64_t time_ms, int agrees) {
  if (journal->status != NQ_OK)
    return journal->status;
  nq__journal_text_t line;
  if (!batch_is_valid(journal, first_id, batch, rank, time_ms) ||
      nq__journal_format_check(&line, first_id, batch, rank, time_ms, agrees) != NQ_OK)
    return NQ_EINVAL;
  int rc = append_line(journal, &line);
  /* A difference is what every later run must see to refuse the total:
   * on the disk at once, not when a sync is due. */
  return rc == NQ_OK && !agrees ? nq__journal_sync(journal) : rc;
}

int nq__journal_errno(const nq__journal_t *journal) { return journal->failed_errno; }

int nq__journal_read_only(const nq__journal_t *journal) { return journal->read_only_errno != 0; }

int nq__journal_close(nq__journal_t *journal) {
  if (journal == NULL)
    return NQ_OK;
  int rc = nq__journal_sync(journal);
  /* close() reports what a network filesystem could not write back. */
  if (close(journal->fd) != 0 && rc == NQ_OK)
    rc = fail(journal, errno);
  free(journal);
  return rc;
}

int64_t nq__journal_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}
