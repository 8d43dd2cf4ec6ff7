/* The matrix-free operator's GPU kernel choice, validated in one place (words, the default from
 * HAMLET_STENCIL_KERNEL, hm_matrix_set_stencil_kernel), and the products each kernel served:
 * host-side counters of the launching thread, one set per rank. */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "objects.h"
#include "stencil_free.h"
#include "stencil_kernel_count.h"

static long long served[HM_STENCIL_KERNELS];
static const char *const kernel_names[HM_STENCIL_KERNELS] = {"auto", "staged", "box",    "mma",
                                                              "small", "site",   "generic"};

void hm_stencil_kernel_served(int kernel) {
  if (kernel >= 0 && kernel < HM_STENCIL_KERNELS) served[kernel]++;
}

long long hm_stencil_kernel_products(int kernel) {
  return kernel >= 0 && kernel < HM_STENCIL_KERNELS ? served[kernel] : 0;
}

const char *hm_stencil_kernel_name(int kernel) {
  return kernel >= 0 && kernel < HM_STENCIL_KERNELS ? kernel_names[kernel] : "unknown";
}

int hm_stencil_kernel_from_word(const char *word, hm_stencil_kernel *kernel) {
  HM_CHECK(word && kernel, HM_ERR_ARGUMENT, "word or kernel is NULL");
  for (int k = HM_STENCIL_KERNEL_AUTO; k <= HM_STENCIL_KERNEL_SITE; k++)
    if (!strcmp(word, kernel_names[k])) {
      *kernel = (hm_stencil_kernel)k;
      return HM_SUCCESS;
    }
  HM_RAISE(HM_ERR_ARGUMENT, "stencil kernel '%s' is unknown: allowed are auto, staged, box, mma, small, site", word);
}

int hm_stencil_tuning_compiled(void) {
#ifdef HAMLET_TUNING
  return 1;
#else
  return 0;
#endif
}

int hm_stencil_kernel_default(hm_stencil_kernel *kernel) {
  const char *v = getenv("HAMLET_STENCIL_KERNEL");
  *kernel = HM_STENCIL_KERNEL_AUTO;
  if (!v || !*v) return HM_SUCCESS;
  const int st = hm_stencil_kernel_from_word(v, kernel);
  HM_CHECK(!st, HM_ERR_ARGUMENT, "HAMLET_STENCIL_KERNEL=%s: allowed are auto, staged, box, mma, small, site", v);
  return HM_SUCCESS;
}

int hm_matrix_set_stencil_kernel(hm_matrix *A, hm_stencil_kernel kernel) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  HM_CHECK(A->stencil, HM_ERR_ARGUMENT, "the GPU kernel applies to a matrix-free operator (hm_matrix_create_stencil "
           "with HM_STENCIL_MATRIX_FREE); this matrix stores its entries");
  HM_CHECK(kernel >= HM_STENCIL_KERNEL_AUTO && kernel <= HM_STENCIL_KERNEL_SITE, HM_ERR_ARGUMENT,
           "stencil kernel %d is unknown: allowed are 0 (auto) to 5 (site)", (int)kernel);
  A->stencil->exec.kernel = (int)kernel;
  return HM_SUCCESS;
}
