/* The device side in a build without CUDA: there is no device. */

#include "gpu.h"
#include "nqueens/error.h"

int nq__gpu_device_count(void) { return 0; }

int nq__gpu_device_open(nq__gpu_device_t **out_device, int index) {
  (void)out_device, (void)index;
  return NQ_ENOTSUP;
}

void nq__gpu_device_close(nq__gpu_device_t *device) { (void)device; }

const char *nq__gpu_device_name(const nq__gpu_device_t *device) {
  (void)device;
  return "none";
}

int nq__gpu_device_walk(nq__gpu_device_t *device, const nq__gpu_work_t *work) {
  (void)device, (void)work;
  return NQ_ENOTSUP;
}
