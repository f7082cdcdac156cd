#define _XOPEN_SOURCE 700 /* realpath, fsync, mkstemp, dirname, lstat */

#include "provenance.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "durable.h"
#include "journal.h"
#include "mpi_check.h"
#include "nqueens/error.h"
#include "standard_stream.h"

static int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void nq__provenance_start(nq__provenance_t *p) {
  memset(p, 0, sizeof *p);
  p->started_ms = now_ms();
}

static double cpu_seconds(void) {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec * 1e-6 +
         (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec * 1e-6;
}

static int compare_names(const void *a, const void *b) { return strcmp(a, b); }

/* Sorted, each name once. */
static int distinct_names(char *names, int count) {
  qsort(names, (size_t)count, MPI_MAX_PROCESSOR_NAME, compare_names);
  int kept = 0;
  for (int i = 0; i < count; i++) {
    char *name = names + (size_t)i * MPI_MAX_PROCESSOR_NAME;
    if (kept > 0 && strcmp(name, names + (size_t)(kept - 1) * MPI_MAX_PROCESSOR_NAME) == 0)
      continue;
    memmove(names + (size_t)kept++ * MPI_MAX_PROCESSOR_NAME, name, MPI_MAX_PROCESSOR_NAME);
  }
  return kept;
}

int nq__provenance_gather(nq__provenance_t *p, MPI_Comm comm) {
  int rank = 0, size = 1, length = 0;
  NQ_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
  NQ_MPI_CHECK(comm, MPI_Comm_size(comm, &size));
  p->ended_ms = now_ms();
  double mine = cpu_seconds();
  NQ_MPI_CHECK(comm, MPI_Reduce(&mine, &p->cpu_seconds, 1, MPI_DOUBLE, MPI_SUM, 0, comm));
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  NQ_MPI_CHECK(comm, MPI_Get_processor_name(name, &length));
  if (rank == 0)
    p->hosts = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  int rc = nq__agree_with_rank0(rank != 0 || p->hosts != NULL ? NQ_OK : NQ_ENOMEM, comm);
  if (rc != NQ_OK)
    return rc; /* on every rank */
  NQ_MPI_CHECK(comm, MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, p->hosts,
                                MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm));
  if (rank == 0) {
    p->host_count = distinct_names(p->hosts, size);
    NQ_MPI_CHECK(comm, MPI_Get_library_version(p->mpi_library, &length));
    p->mpi_library[strcspn(p->mpi_library, "\r\n")] = '\0'; /* its first line */
  }
  return NQ_OK;
}

void nq__provenance_clear(nq__provenance_t *p) {
  free(p->hosts);
  p->hosts = NULL;
}

void nq__provenance_iso_time(char out[32], int64_t ms) {
  time_t seconds = (time_t)(ms / 1000);
  struct tm utc;
  gmtime_r(&seconds, &utc);
  size_t length = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &utc);
  snprintf(out + length, 32 - length, ".%03dZ", (int)(ms % 1000));
}

static int failed(char message[static NQ__MESSAGE_SIZE], const char *what, const char *path,
                  int code) {
  nq__message(message, "%s %s: %s", what, path, strerror(errno));
  return code;
}

int nq__provenance_sha256(char out[NQ_SHA256_HEX], const char *path,
                          char message[static NQ__MESSAGE_SIZE]) {
  FILE *file = fopen(path, "rb");
  if (file == NULL)
    return failed(message, "cannot read", path, NQ_EIO);
  struct sha256_ctx context;
  sha256_init(&context);
  unsigned char buffer[1 << 16];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, file)) > 0)
    sha256_update(&context, got, buffer);
  int read_failed = ferror(file);
  fclose(file);
  if (read_failed)
    return failed(message, "cannot read", path, NQ_EIO);
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context, sizeof digest, digest);
  for (size_t i = 0; i < sizeof digest; i++)
    snprintf(out + 2 * i, 3, "%02x", digest[i]);
  return NQ_OK;
}

/* The path with its directory resolved (the file itself need not exist):
 * two names of one place compare equal.  Empty when the directory does
 * not resolve. */
static void canonical_path(char out[PATH_MAX], const char *path) {
  char directory[PATH_MAX], resolved[PATH_MAX], copy[PATH_MAX];
  out[0] = '\0';
  if (realpath(path, resolved) != NULL) {
    snprintf(out, PATH_MAX, "%s", resolved);
    return;
  }
  nq__directory_of(directory, path);
  snprintf(copy, sizeof copy, "%s", path);
  const char *name = basename(copy);
  size_t length = realpath(directory, resolved) != NULL ? strlen(resolved) : 0;
  if (length == 0 || length + 1 + strlen(name) >= PATH_MAX)
    return;
  memcpy(out, resolved, length);
  out[length] = '/';
  memcpy(out + length + 1, name, strlen(name) + 1);
}

/* Whether `path` names `kept` (by resolved path, or as one file). */
static int same_place(const char *path, const char *kept) {
  char a[PATH_MAX], b[PATH_MAX];
  struct stat path_info, kept_info;
  if (stat(path, &path_info) == 0 && stat(kept, &kept_info) == 0)
    return path_info.st_dev == kept_info.st_dev && path_info.st_ino == kept_info.st_ino;
  canonical_path(a, path);
  canonical_path(b, kept);
  return a[0] != '\0' && strcmp(a, b) == 0;
}

static const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  return S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* What FILE is now: nothing (it will be created), a regular file, or a
 * link to one, whose target then goes to `target`. */
static int resolve_destination(char *target, const char *path,
                               char message[static NQ__MESSAGE_SIZE]) {
  struct stat info;
  snprintf(target, PATH_MAX, "%s", path);
  if (lstat(path, &info) != 0) {
    if (errno == ENOENT)
      return NQ_OK; /* a new file */
    nq__message(message, "--json %s: %s", path, strerror(errno));
    return NQ_EINVAL;
  }
  if (S_ISLNK(info.st_mode)) {
    char resolved[PATH_MAX];
    if (realpath(path, resolved) == NULL || stat(resolved, &info) != 0) {
      nq__message(message, "--json %s: a symbolic link to nothing (%s)", path,
               strerror(errno));
      return NQ_EINVAL;
    }
    snprintf(target, PATH_MAX, "%s", resolved);
  }
  if (!S_ISREG(info.st_mode)) {
    nq__message(message, "--json %s: exists and is %s, not a file to replace",
             path, kind_of(info.st_mode));
    return NQ_EINVAL;
  }
  /* A record is never a program: one there (this one's own binary, a
   * script) is a slip of the command line. */
  if (info.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) {
    nq__message(message, "--json %s: is an executable file, which the record would replace",
                path);
    return NQ_EINVAL;
  }
  return NQ_OK;
}

/* access() answers for the permission bits, which root passes where the
 * file system still refuses (sysfs, an NFS export squashing root): the
 * record's temporary file made and removed at once says what the rename
 * at the end will meet.  errno tells why not. */
static int can_create_beside(const char *target) {
  char temp[PATH_MAX];
  nq__name_beside(temp, PATH_MAX, target, ".XXXXXX");
  int fd = mkstemp(temp);
  if (fd < 0)
    return 0;
  close(fd);
  unlink(temp);
  return 1;
}

int nq__provenance_check_destination(char *target, const char *path, const char *const *keep,
                                     int keep_count, char message[static NQ__MESSAGE_SIZE]) {
  char directory[PATH_MAX];
  if (path[0] == '\0' || strlen(path) >= PATH_MAX - 16) {
    nq__message(message, "--json needs a file name (shorter than %d bytes)",
             PATH_MAX - 16);
    return NQ_EINVAL;
  }
  /* Before the links are read: /dev/stdout on a pipe links to no path. */
  int stream = nq__standard_stream_at(path);
  if (stream != 0) {
    nq__message(message, "--json %s: is this run's %s, which the record would replace", path,
                nq__standard_stream_name(stream));
    return NQ_EINVAL;
  }
  int rc = resolve_destination(target, path, message);
  if (rc != NQ_OK)
    return rc;
  for (int i = 0; i < keep_count; i++)
    if (same_place(target, keep[i])) {
      nq__message(message, "--json %s: is the journal %s, which the record would destroy",
               path, keep[i]);
      return NQ_EINVAL;
    }
  /* Any run's journal, not only this one's: another run may be writing
   * it, or it may be the only copy of a slice's finished work. */
  if (nq__journal_file_is_one(target)) {
    nq__message(message, "--json %s: is a checkpoint journal, which the record would destroy",
                path);
    return NQ_EINVAL;
  }
  nq__directory_of(directory, target);
  if (access(directory, W_OK | X_OK) != 0 || !can_create_beside(target)) {
    nq__message(message, "--json %s: cannot write in %s: %s", path, directory,
             strerror(errno));
    return NQ_EINVAL;
  }
  return NQ_OK;
}

/* The mode the record gets: the replaced file's, else 0666 less the
 * umask, as a file made by open(2) would have. */
static mode_t record_mode(const char *path) {
  struct stat info;
  if (stat(path, &info) == 0 && S_ISREG(info.st_mode))
    return info.st_mode & 07777;
  return nq__mode_less_umask(0666);
}

FILE *nq__provenance_open_temp(const char *path, char *temp,
                               char message[static NQ__MESSAGE_SIZE]) {
  nq__name_beside(temp, PATH_MAX, path, ".XXXXXX");
  int fd = mkstemp(temp);
  if (fd < 0) {
    failed(message, "cannot create a file beside", path, NQ_EIO);
    return NULL;
  }
  FILE *file = fchmod(fd, record_mode(path)) == 0 ? fdopen(fd, "w") : NULL;
  if (file == NULL) {
    failed(message, "cannot write", temp, NQ_EIO);
    close(fd);
    unlink(temp);
  }
  return file;
}

int nq__provenance_commit(FILE *file, const char *temp, const char *path,
                          char message[static NQ__MESSAGE_SIZE]) {
  int rc = NQ_OK;
  if (fflush(file) != 0 || fsync(fileno(file)) != 0)
    rc = failed(message, "cannot write", temp, NQ_EIO);
  if (fclose(file) != 0 && rc == NQ_OK)
    rc = failed(message, "cannot write", temp, NQ_EIO);
  /* Checked before the count too; a run may have made its journal here
   * since. */
  if (rc == NQ_OK && nq__journal_file_is_one(path)) {
    nq__message(message,
                "%s: is now a checkpoint journal, which the record would destroy: "
                "the record is left in %s",
                path, temp);
    return NQ_EIO;
  }
  if (rc == NQ_OK && rename(temp, path) != 0)
    rc = failed(message, "cannot rename the record to", path, NQ_EIO);
  if (rc != NQ_OK) {
    unlink(temp);
    return rc;
  }
  if (nq__sync_directory_of(path) != 0) {
    char directory[PATH_MAX];
    int saved_errno = errno; /* the reason failed() gives */
    nq__directory_of(directory, path);
    errno = saved_errno;
    rc = failed(message, "cannot sync the directory", directory, NQ_EIO);
  }
  return rc;
}
