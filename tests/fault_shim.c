/* A fault shim for the end-to-end tests, loaded with LD_PRELOAD: it stands
 * between the program and the C library's file calls and makes the
 * failures a test cannot arrange by hand.  Each acts only on paths that
 * contain NQ_SHIM_PATH (a test's own directory), so the calls of Open MPI
 * and the shell go through untouched.
 *
 *   NQ_SHIM_CRASH_AT=K  the K-th call that changes a file there (write,
 *                       pwrite, fsync, fdatasync, ftruncate, link, rename,
 *                       unlink; counted from 1) is the last: a write writes
 *                       half its bytes first, then the process is killed
 *                       (SIGKILL), as a node failure or kill -9 would.
 *                       With NQ_SHIM_COUNT=FILE, each such call appends a
 *                       line to FILE first, so a test knows how many there
 *                       are.
 *   NQ_SHIM_READ_ONLY=1 opening a file there for writing fails with EROFS,
 *                       as on a read-only filesystem.
 *   NQ_SHIM_FULL=1      writes to files there fail with ENOSPC, as on a
 *                       full disk.
 *   NQ_SHIM_FULL_AFTER=B the disk fills after B bytes written there by
 *                       this process: the write that reaches B writes only
 *                       what fits, later ones fail with ENOSPC. */
#define _GNU_SOURCE /* RTLD_NEXT */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static const char *setting(const char *name) {
  const char *value = getenv(name);
  return value != NULL && value[0] != '\0' ? value : NULL;
}

static int path_watched(const char *path) {
  const char *watched = setting("NQ_SHIM_PATH");
  return watched != NULL && path != NULL && strstr(path, watched) != NULL;
}

static int fd_watched(int fd) {
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0)
    return 0;
  path[length] = '\0';
  return path_watched(path);
}

/* One more call that changes a watched file: 1 when it is the one to
 * crash at. */
static int crash_now(void) {
  static long calls;
  const char *count_file = setting("NQ_SHIM_COUNT"), *crash_at = setting("NQ_SHIM_CRASH_AT");
  calls++;
  if (count_file != NULL) {
    int (*real_open)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    ssize_t (*real_write)(int, const void *, size_t) =
        (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    int fd = real_open(count_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      real_write(fd, "x\n", 2);
      close(fd);
    }
  }
  return crash_at != NULL && calls == atol(crash_at);
}

static void die(void) {
  kill(getpid(), SIGKILL);
  _exit(137);
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

static int refuse_open(const char *path, int flags) {
  if (setting("NQ_SHIM_READ_ONLY") == NULL || !path_watched(path) ||
      (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) == 0)
    return 0;
  errno = EROFS;
  return 1;
}

int open(const char *path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(args, int) : 0;
  va_end(args);
  if (refuse_open(path, flags))
    return -1;
  return REAL("open", int (*)(const char *, int, ...))(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(args, int) : 0;
  va_end(args);
  if (refuse_open(path, flags))
    return -1;
  return REAL("open64", int (*)(const char *, int, ...))(path, flags, mode);
}

int mkstemp(char *template) {
  if (setting("NQ_SHIM_READ_ONLY") != NULL && path_watched(template)) {
    errno = EROFS;
    return -1;
  }
  return REAL("mkstemp", int (*)(char *))(template);
}

/* NQ_SHIM_FULL_AFTER: a write of *length bytes is cut to what fits; 0
 * when none does. */
static int fits_before_full(size_t *length) {
  static long long written;
  const char *after = setting("NQ_SHIM_FULL_AFTER");
  if (after == NULL)
    return 1;
  long long room = atoll(after) - written;
  if (room <= 0)
    return 0;
  if ((long long)*length > room)
    *length = (size_t)room;
  written += (long long)*length;
  return 1;
}

/* A write to a watched file: refused on a full disk, or the crash. */
static int fault_write(int fd, size_t *length) {
  if (!fd_watched(fd))
    return 0;
  if (setting("NQ_SHIM_FULL") != NULL || !fits_before_full(length)) {
    errno = ENOSPC;
    return -1;
  }
  if (crash_now()) {
    *length /= 2;
    return 1;
  }
  return 0;
}

ssize_t write(int fd, const void *data, size_t length) {
  int fault = fault_write(fd, &length);
  if (fault < 0)
    return -1;
  ssize_t written = REAL("write", ssize_t (*)(int, const void *, size_t))(fd, data, length);
  if (fault > 0)
    die();
  return written;
}

ssize_t pwrite(int fd, const void *data, size_t length, off_t offset) {
  int fault = fault_write(fd, &length);
  if (fault < 0)
    return -1;
  ssize_t written =
      REAL("pwrite", ssize_t (*)(int, const void *, size_t, off_t))(fd, data, length, offset);
  if (fault > 0)
    die();
  return written;
}

ssize_t pwrite64(int fd, const void *data, size_t length, off_t offset) {
  return pwrite(fd, data, length, offset);
}

/* stdio writes through the C library's own internal calls: a full disk is
 * also made here. */
size_t fwrite(const void *data, size_t size, size_t count, FILE *stream) {
  if (setting("NQ_SHIM_FULL") != NULL && fd_watched(fileno(stream))) {
    errno = ENOSPC;
    return 0;
  }
  return REAL("fwrite", size_t (*)(const void *, size_t, size_t, FILE *))(data, size, count,
                                                                           stream);
}

/* A call that changes a file without writing bytes: the crash comes
 * before it takes effect. */
static void fault_change(int watched) {
  if (watched && crash_now())
    die();
}

int fsync(int fd) {
  fault_change(fd_watched(fd));
  return REAL("fsync", int (*)(int))(fd);
}

int fdatasync(int fd) {
  fault_change(fd_watched(fd));
  return REAL("fdatasync", int (*)(int))(fd);
}

int ftruncate(int fd, off_t length) {
  fault_change(fd_watched(fd));
  return REAL("ftruncate", int (*)(int, off_t))(fd, length);
}

int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

int link(const char *from, const char *to) {
  fault_change(path_watched(to));
  return REAL("link", int (*)(const char *, const char *))(from, to);
}

int rename(const char *from, const char *to) {
  fault_change(path_watched(to));
  return REAL("rename", int (*)(const char *, const char *))(from, to);
}

int unlink(const char *path) {
  fault_change(path_watched(path));
  return REAL("unlink", int (*)(const char *))(path);
}
