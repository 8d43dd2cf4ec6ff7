/* `hamlet info`: what a run of this build can use here. Each rank describes itself (host, GPUs it
 * sees, energy meters of its node) in a fixed-size text; rank 0 gathers and prints them in rank
 * order, so the output of a job script shows every node. */
#include <mpi.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app.h"
#include "build_info.h"
#include "energy.h"
#include "gpu_names.h"
#include "../linalg/core/gpu_probe.h" /* not gpu/gpu_probe.h, the self-test */
#include "hamlet_build_info.h"

enum { RANK_TEXT = 4096 };

/* Appends to a fixed buffer; a full buffer truncates (the text is informational). */
static void add(char *buf, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= RANK_TEXT) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, RANK_TEXT - used, fmt, ap);
  va_end(ap);
}

static void describe_gpus(char *buf) {
  int count = 0;
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  if (!hm_gpu_compiled()) {
    add(buf, "  GPUs: none (CUDA not compiled)\n");
    return;
  }
  if (hm_gpu_device_count(&count)) {
    add(buf, "  GPUs: cannot count them: %s\n", hm_error_message());
    return;
  }
  add(buf, "  GPUs: %d visible (CUDA_VISIBLE_DEVICES=%s)\n", count, visible ? visible : "unset");
  for (int d = 0; d < count; d++) {
    char text[256];
    if (hm_gpu_describe(d, text, sizeof text)) snprintf(text, sizeof text, "%s", hm_error_message());
    add(buf, "    gpu %d: %s\n", d, text);
  }
}

/* Meters of this node that gave a first reading; the probe note says why the others gave none. */
static void describe_meters(char *buf) {
  hm_energy_meter *m = NULL;
  int count = 0;
  if (hm_energy_open(&m) || hm_energy_count(m, &count)) {
    add(buf, "  energy meters: cannot probe: %s\n", hm_error_message());
    hm_energy_close(&m);
    return;
  }
  add(buf, "  energy meters: %d readable\n", count);
  for (int i = 0; i < count; i++) {
    char name[128];
    hm_energy_name(m, i, name, sizeof name);
    add(buf, "    %s\n", name);
  }
  const char *note = hm_energy_probe_note(m);
  if (note && note[0]) add(buf, "    (probe: %s)\n", note);
  hm_energy_close(&m);
}

int hm_app_info(int argc, char **argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 2) {
    if (rank == 0) fprintf(stderr, "hamlet info: unexpected argument '%s' (info takes none)\n", argv[2]);
    return HM_EXIT_USAGE;
  }
  char *mine = calloc(RANK_TEXT, 1), *all = rank == 0 ? calloc((size_t)size * RANK_TEXT, 1) : NULL;
  int ok = mine && (rank != 0 || all), all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all_ok) {
    if (rank == 0) fprintf(stderr, "hamlet info: out of memory\n");
    free(mine);
    free(all);
    return HM_EXIT_FAIL;
  }
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int len = 0;
  MPI_Get_processor_name(host, &len);
  add(mine, "rank %d on %s: %d OpenMP threads\n", rank, host, omp_get_max_threads());
  describe_gpus(mine);
  describe_meters(mine);
  MPI_Gather(mine, RANK_TEXT, MPI_CHAR, all, RANK_TEXT, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    char versions[128];
    hm_gpu_versions(versions, sizeof versions);
    printf("hamlet info: %d ranks\n", size);
    printf("backends compiled in: cpu (OpenMP %s)", HAMLET_INFO_OPENMP);
    if (hm_gpu_compiled()) printf(", cuda (%s; %s)", HAMLET_INFO_CUDA, versions);
    else printf("; cuda not compiled");
    printf("\n");
    for (int r = 0; r < size; r++) fputs(all + (size_t)r * RANK_TEXT, stdout);
  }
  free(mine);
  free(all);
  return HM_EXIT_OK;
}
