/* Host memory for the large arrays of a matrix build (entries, columns, values). */
#ifndef HAMLET_HOST_ALLOC_H
#define HAMLET_HOST_ALLOC_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* bytes of host memory, or NULL. From HM_HUGE_ALLOC_MIN bytes on, aligned to 2 MiB and marked for
 * transparent huge pages (madvise), so that the first touch of a large array takes one page fault
 * per 2 MiB instead of one per 4 KiB; smaller requests are plain malloc. Released with free(). */
void *hm_alloc_large(size_t bytes);

enum { HM_HUGE_ALLOC_MIN = 32 << 20 };
#ifdef __cplusplus
}
#endif
#endif
