#ifndef NQ_SRC_DURABLE_H
#define NQ_SRC_DURABLE_H

/* Durable files (durable.c): what the journal and the provenance record
 * share to make a name they create or replace survive a crash, once the
 * file itself is synced: the directory that holds the name is synced too. */

#include <limits.h>

/* The directory part of `path` ("." for a bare name); dirname(3) may
 * change its argument, so it works on a copy. */
void nq__directory_of(char out[PATH_MAX], const char *path);

/* Syncs the directory holding `path`, after a link, rename or create in
 * it.  0; or -1 with errno set (a filesystem that cannot sync a directory
 * answers EINVAL: that counts as done, there is nothing more to ask of it). */
int nq__sync_directory_of(const char *path);

#endif
