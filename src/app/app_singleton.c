/* A process started without a launcher: the lean Open MPI start it asks
 * for, in a session directory of its own (app.h). */
#define _DEFAULT_SOURCE /* d_type, DT_* */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "app_modes.h"

/* Open MPI's session tree under a top directory is a few levels deep
 * (jf.0/1/0); nothing deeper is looked at. */
enum { SESSION_TREE_DEPTH = 4 };

/* Where Open MPI puts its session directories, as it finds it itself. */
static const char *session_directory_base(void) {
  static const char *const variables[] = {"OMPI_MCA_orte_tmpdir_base", "TMPDIR", "TEMP", "TMP"};
  for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++) {
    const char *base = getenv(variables[i]);
    if (base != NULL && base[0] != '\0')
      return base;
  }
  return "/tmp";
}

/* The directories under `path`, then `path`, each removed where empty:
 * rmdir takes nothing else, so a tree that holds any file stays whole. */
static void remove_empty_tree(const char *path, int depth) {
  DIR *directory = depth > 0 ? opendir(path) : NULL;
  if (directory != NULL) {
    char child[PATH_MAX];
    for (struct dirent *entry; (entry = readdir(directory)) != NULL;) {
      if (entry->d_type != DT_DIR || strcmp(entry->d_name, ".") == 0 ||
          strcmp(entry->d_name, "..") == 0)
        continue;
      int length = snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
      if (length > 0 && (size_t)length < sizeof child)
        remove_empty_tree(child, depth - 1);
    }
    closedir(directory);
  }
  rmdir(path);
}

/* The process id a name `<prefix><pid>` gives, or 0. */
static pid_t named_process(const char *name, const char *prefix) {
  size_t prefix_length = strlen(prefix);
  if (strncmp(name, prefix, prefix_length) != 0)
    return 0;
  char *end = NULL;
  errno = 0;
  long pid = strtol(name + prefix_length, &end, 10);
  if (errno != 0 || end == name + prefix_length || *end != '\0' || pid <= 0)
    return 0;
  return (pid_t)pid;
}

/* A singleton killed before MPI_Finalize leaves its empty session tree;
 * each later start on the node sweeps those of processes now gone. */
static void sweep_dead_session_directories(const char *base, const char *prefix) {
  DIR *directory = opendir(base);
  if (directory == NULL)
    return;
  char path[PATH_MAX];
  for (struct dirent *entry; (entry = readdir(directory)) != NULL;) {
    pid_t pid = named_process(entry->d_name, prefix);
    if (pid == 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
      continue;
    int length = snprintf(path, sizeof path, "%s/%s", base, entry->d_name);
    if (length > 0 && (size_t)length < sizeof path)
      remove_empty_tree(path, SESSION_TREE_DEPTH);
  }
  closedir(directory);
}

/* Open MPI names every isolated singleton alike, so that they all share
 * one session directory (<tmp>/ompi.<host>.<uid>/jf.0/1/0): one that ends
 * removes it under another that is starting, whose MPI_Init then fails
 * (docs/performance.md).  Concurrent singletons are common: array tasks
 * on one node, scripts asking --status.  A top directory of the process's
 * own keeps them apart; Open MPI removes it, empty, at MPI_Finalize. */
static void own_session_directory(void) {
  if (getenv("OMPI_MCA_orte_top_session_dir") != NULL)
    return;
  char host[256] = "";
  char prefix[384];
  char top[PATH_MAX];
  if (gethostname(host, sizeof host - 1) != 0)
    strcpy(host, "localhost");
  const char *base = session_directory_base();
  snprintf(prefix, sizeof prefix, "ompi.%s.%lu.", host, (unsigned long)geteuid());
  int length = snprintf(top, sizeof top, "%s/%s%ld", base, prefix, (long)getpid());
  if (length <= 0 || (size_t)length >= sizeof top)
    return;
  sweep_dead_session_directories(base, prefix);
  setenv("OMPI_MCA_orte_top_session_dir", top, 0);
}

void nq__app_tune_singleton(void) {
  if (nq__app_started_by_launcher())
    return;
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  setenv("OMPI_MCA_pml", "ob1", 0);
  setenv("OMPI_MCA_btl", "self", 0);
  own_session_directory();
}
