/* Products served by each GPU kernel of the matrix-free operator: host-side counters of the
 * launching thread, one set per rank (stencil_kernel_count.h). */
#include <string.h>
#include "stencil_kernel_count.h"

static long long served[HM_STENCIL_KERNELS];
static const char *const kernel_names[HM_STENCIL_KERNELS] = {"staged", "box", "mma", "small", "site", "generic"};

void hm_stencil_kernel_served(hm_stencil_kernel kernel) {
  if (kernel >= 0 && kernel < HM_STENCIL_KERNELS) served[kernel]++;
}

long long hm_stencil_kernel_products(hm_stencil_kernel kernel) {
  return kernel >= 0 && kernel < HM_STENCIL_KERNELS ? served[kernel] : 0;
}

int hm_stencil_kernel_named(const char *name) {
  for (int k = 0; name && k < HM_STENCIL_KERNELS; k++)
    if (!strcmp(name, kernel_names[k])) return k;
  return -1;
}

const char *hm_stencil_kernel_name(hm_stencil_kernel kernel) {
  return kernel >= 0 && kernel < HM_STENCIL_KERNELS ? kernel_names[kernel] : "none";
}
