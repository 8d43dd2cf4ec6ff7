/* A stand-in for libnvidia-ml.so.1 (the energy test dlopens it through HAMLET_NVML_LIB), driven by
 * the environment so the test can move the counters between reads:
 *   FAKE_NVML_MJ    comma list, one entry per GPU: its energy counter in mJ, "x" = NOT_SUPPORTED,
 *                   "e" = an unknown error (a counter that fails)
 *   FAKE_NVML_INIT  "fail": nvmlInit_v2 reports the driver not loaded
 * fake_nvml_live() is the number of nvmlInit_v2 calls not yet matched by nvmlShutdown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct nvmlDevice_st *nvmlDevice_t;
enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, DRIVER_NOT_LOADED = 9, UNKNOWN = 999 };

static int live = 0;
static char devices[16]; /* handles are addresses in here */

int fake_nvml_live(void) { return live; }

/* Entry i of FAKE_NVML_MJ into buf; the number of entries is returned. */
static int entry(int i, char *buf, size_t len) {
  const char *s = getenv("FAKE_NVML_MJ");
  int n = 0;
  buf[0] = '\0';
  while (s && *s) {
    size_t w = strcspn(s, ",");
    if (n == i) snprintf(buf, len, "%.*s", (int)w, s);
    n++;
    s += w + (s[w] == ',');
  }
  return n;
}

int nvmlInit_v2(void) {
  const char *init = getenv("FAKE_NVML_INIT");
  if (init && strcmp(init, "fail") == 0) return DRIVER_NOT_LOADED;
  live++;
  return OK;
}

int nvmlShutdown(void) {
  if (live == 0) return UNINITIALIZED;
  live--;
  return OK;
}

int nvmlDeviceGetCount_v2(unsigned int *count) {
  char buf[32];
  if (!live) return UNINITIALIZED;
  int n = entry(0, buf, sizeof buf);
  *count = (unsigned)(n < 16 ? n : 16);
  return OK;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  unsigned int n = 0;
  if (nvmlDeviceGetCount_v2(&n) != OK) return UNINITIALIZED;
  if (index >= n) return INVALID_ARGUMENT;
  *device = (nvmlDevice_t)(void *)&devices[index];
  return OK;
}

int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy) {
  if (!live) return UNINITIALIZED;
  char buf[32];
  entry((int)((char *)(void *)device - devices), buf, sizeof buf);
  if (strcmp(buf, "x") == 0) return NOT_SUPPORTED;
  if (strcmp(buf, "e") == 0 || buf[0] == '\0') return UNKNOWN;
  *energy = strtoull(buf, NULL, 10);
  return OK;
}

int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
  if (!live) return UNINITIALIZED;
  snprintf(name, length, "Fake GPU %d", (int)((char *)(void *)device - devices));
  return OK;
}
