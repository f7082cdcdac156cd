#define _POSIX_C_SOURCE 200809L /* fstat, getppid */

#include "standard_stream.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The parent's stream, read through /proc: absent elsewhere, and refused
 * where the parent is another user's (slurmstepd), which then cannot be
 * writing this run's output into a file of its own. */
static int parents_stream_is(const struct stat *file, int stream) {
  char name[64];
  struct stat info;
  snprintf(name, sizeof name, "/proc/%ld/fd/%d", (long)getppid(), stream);
  return stat(name, &info) == 0 && same_file(file, &info);
}

int nq__standard_stream_at(const char *path) {
  struct stat file, info;
  if (stat(path, &file) != 0)
    return 0;
  for (int stream = STDOUT_FILENO; stream <= STDERR_FILENO; stream++)
    if ((fstat(stream, &info) == 0 && same_file(&file, &info)) ||
        parents_stream_is(&file, stream))
      return stream;
  return 0;
}

const char *nq__standard_stream_name(int stream) {
  return stream == STDERR_FILENO ? "standard error" : "standard output";
}
