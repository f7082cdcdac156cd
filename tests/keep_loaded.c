/*
 * The sanitizer build's programs (NQ_SANITIZE) keep every library they load
 * until they exit.  Open MPI unloads its components at MPI_Finalize, and
 * LeakSanitizer then matches the few thousand blocks Open MPI leaves
 * against tests/lsan-openmpi.supp frame by frame: each frame in an
 * unloaded component is an address no module holds, and for each one it
 * reads /proc/self/maps again, most of a 3-rank run's time
 * (docs/performance.md, "The suite's time").  With the components still
 * mapped, their frames are found at once.  The program's own leaks are
 * reported as before; only the components' unloading is skipped.
 * Exported from the program (-Wl,--export-dynamic-symbol=dlclose), this
 * definition is the one Open MPI's libraries call.
 */
#include <dlfcn.h>

int dlclose(void *handle)
{
  (void)handle;
  return 0;
}
