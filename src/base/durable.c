#define _POSIX_C_SOURCE 200809L /* fsync, O_DIRECTORY, O_CLOEXEC */

#include "durable.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void nq__directory_of(char out[PATH_MAX], const char *path) {
  char copy[PATH_MAX];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(out, PATH_MAX, "%s", dirname(copy));
}

void nq__name_beside(char *out, size_t size, const char *path, const char *suffix) {
  const char *slash = strrchr(path, '/');
  const size_t directory = slash != NULL ? (size_t)(slash + 1 - path) : 0;
  const size_t name = strlen(path) - directory, added = strlen(suffix);
  const size_t kept = name + added <= NAME_MAX ? name : added < NAME_MAX ? NAME_MAX - added : 0;
  snprintf(out, size, "%.*s%s", (int)(directory + kept), path, suffix);
}

mode_t nq__mode_less_umask(mode_t mode) {
  mode_t mask = umask(0);
  umask(mask);
  return mode & ~mask;
}

int nq__sync_directory_of(const char *path) {
  char directory[PATH_MAX];
  nq__directory_of(directory, path);
  int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int synced = fsync(fd) == 0 || errno == EINVAL;
  int saved_errno = errno;
  close(fd);
  errno = saved_errno;
  return synced ? 0 : -1;
}
