#define _POSIX_C_SOURCE 200809L /* fsync, O_DIRECTORY, O_CLOEXEC */

#include "durable.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <unistd.h>

void nq__directory_of(char out[PATH_MAX], const char *path) {
  char copy[PATH_MAX];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(out, PATH_MAX, "%s", dirname(copy));
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
