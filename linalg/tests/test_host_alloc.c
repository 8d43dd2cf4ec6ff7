/* hm_alloc_large: small requests work like malloc; large ones are aligned to 2 MiB, writable to the
 * last byte, and, where the kernel grants transparent huge pages on request and compacts memory
 * for them, sit on huge pages once touched (read from /proc/self/smaps). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_alloc.h"
#include "testing.h"

/* Whether the first line of a sysfs file marks one of the given modes as chosen ("[mode]"). */
static int mode_chosen(const char *path, const char *const *modes, int count) {
  char line[256] = "";
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  const int got = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  for (int i = 0; got && i < count; i++) {
    char want[64];
    snprintf(want, sizeof want, "[%s]", modes[i]);
    if (strstr(line, want)) return 1;
  }
  return 0;
}

/* kB of huge pages in the mapping of /proc/self/smaps that holds p; -1 where none holds it. */
static long huge_kb_at(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int inside = 0;
  long kb = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's first line: its address range */
      inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
      continue;
    }
    long v;
    if (inside && sscanf(line, "AnonHugePages: %ld kB", &v) == 1) kb = v;
  }
  fclose(f);
  return kb;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  unsigned char *small = hm_alloc_large(100), *none = hm_alloc_large(0);
  HM_TEST_ASSERT(small && none, "small requests returned NULL");
  if (small) memset(small, 7, 100);
  free(small);
  free(none);

  const size_t bytes = (size_t)HM_HUGE_ALLOC_MIN + (8u << 20) + 5;
  unsigned char *big = hm_alloc_large(bytes);
  HM_TEST_ASSERT(big != NULL, "a request of %zu bytes returned NULL", bytes);
  if (big) {
    HM_TEST_ASSERT((uintptr_t)big % (2u << 20) == 0, "a large array at %p is not aligned to 2 MiB", (void *)big);
    for (size_t i = 0; i < bytes; i++) big[i] = (unsigned char)(i * 31u);
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; i++) wrong += big[i] != (unsigned char)(i * 31u);
    HM_TEST_ASSERT(wrong == 0, "%zu bytes of the large array did not keep what was written", wrong);
    const char *on[] = {"always", "madvise"}, *compacts[] = {"always", "madvise", "defer+madvise"};
    if (mode_chosen("/sys/kernel/mm/transparent_hugepage/enabled", on, 2) &&
        mode_chosen("/sys/kernel/mm/transparent_hugepage/defrag", compacts, 3)) {
      const long kb = huge_kb_at(big);
      printf("huge pages under the large array's mapping: %ld kB\n", kb);
      HM_TEST_ASSERT(kb >= 2048, "the large array is on no huge page (AnonHugePages %ld kB)", kb);
    } else {
      printf("transparent huge pages are off or not compacted for on request here: not checked\n");
    }
    free(big);
  }
  return hm_test_finish();
}
