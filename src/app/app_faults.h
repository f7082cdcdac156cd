#ifndef NQ_SRC_APP_FAULTS_H
#define NQ_SRC_APP_FAULTS_H

/* The test build's faults (tests/CMakeLists.txt, nqueens-mpi-faults: main.c
 * built with NQ_TEST_FAULTS_FROM_ENV): what a count of this process
 * injects.  The installed program never calls this: its counts run
 * without faults. */

#include "count_faults.h"

void nq__app_inject_faults(const nq__faults_t *faults);

#endif
