#ifndef NQ_SRC_DURABLE_H
#define NQ_SRC_DURABLE_H

/* Durable files (durable.c): what the journal and the provenance record
 * share to make a name they create or replace survive a crash, once the
 * file itself is synced: the directory that holds the name is synced too. */

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* The directory part of `path` ("." for a bare name); dirname(3) may
 * change its argument, so it works on a copy. */
void nq__directory_of(char out[PATH_MAX], const char *path);

/* Into out (`size` bytes, at least strlen(path) + strlen(suffix) + 1):
 * a name beside `path`, in its directory, so that a rename or link onto
 * `path` is atomic: path's own name followed by `suffix`, the name cut
 * short where the two would pass NAME_MAX (a legal name of 250 bytes
 * must not leave its temporary file without a legal one). */
void nq__name_beside(char *out, size_t size, const char *path, const char *suffix);

/* `mode` less the process's umask: what open(2) would have given a file
 * it created, for one made by mkstemp(3) (always 0600). */
mode_t nq__mode_less_umask(mode_t mode);

/* Syncs the directory holding `path`, after a link, rename or create in
 * it.  0; or -1 with errno set (a filesystem that cannot sync a directory
 * answers EINVAL: that counts as done, there is nothing more to ask of it). */
int nq__sync_directory_of(const char *path);

#endif
