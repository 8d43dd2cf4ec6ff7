/* Large host arrays on transparent huge pages (host_alloc.h). Where the kernel has them only on
 * request (mode "madvise", as on many GPU servers), a large lattice's build otherwise spends
 * much of its time in the page faults of some 20 GB of fresh 4 KiB pages. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include "host_alloc.h"

enum { HUGE_PAGE = 2 << 20 };

void *hm_alloc_large(size_t bytes) {
  if (bytes < HM_HUGE_ALLOC_MIN) return malloc(bytes ? bytes : 1);
  void *p = NULL;
  const size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  if (posix_memalign(&p, HUGE_PAGE, rounded)) return NULL;
#ifdef MADV_HUGEPAGE
  (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: where refused, the pages are ordinary ones */
#endif
  return p;
}
