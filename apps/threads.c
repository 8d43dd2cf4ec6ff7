/* OpenMP threads per rank from the rank's CPU set, and the binding line of the summary.
 * A scheduler or launcher that binds (srun --cpus-per-task=8, mpiexec's binding options) gives
 * each rank its own set: it gets one thread per CPU of that set. Ranks that share one set (no
 * binding: the whole node, or a job's cpuset) split it among themselves, so threads never
 * outnumber the CPUs. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>
#include "run_state.h"

enum { BINDING_TEXT = 160 };

/* "0-7,16-23": the set as ranges, cut with "..." where it does not fit. */
static void cpu_list(const cpu_set_t *set, char *text, size_t len) {
  size_t used = 0;
  text[0] = '\0';
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set)) last++;
    int n = last > c ? snprintf(text + used, len - used, "%s%d-%d", used ? "," : "", c, last)
                     : snprintf(text + used, len - used, "%s%d", used ? "," : "", c);
    if (n < 0 || (size_t)n >= len - used) {
      if (len > 4) snprintf(text + len - 4, 4, "...");
      return;
    }
    used += (size_t)n;
    c = last;
  }
}

void run_choose_threads(run_state *s) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  int have_set = sched_getaffinity(0, sizeof mine, &mine) == 0;
  int cpus = have_set ? CPU_COUNT(&mine) : omp_get_num_procs();
  /* How many ranks of this node have exactly this set: they share its CPUs. */
  MPI_Comm node;
  int on_node = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &on_node);
  cpu_set_t *sets = malloc(sizeof(cpu_set_t) * (size_t)on_node);
  int sharing = on_node;
  if (sets && have_set) {
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, sets, (int)sizeof mine, MPI_BYTE, node);
    sharing = 0;
    for (int r = 0; r < on_node; r++) sharing += CPU_EQUAL(&sets[r], &mine);
  }
  free(sets);
  MPI_Comm_free(&node);

  const char *asked = getenv("OMP_NUM_THREADS");
  if (!asked || !*asked) {
    int threads = cpus / (sharing > 0 ? sharing : 1);
    omp_set_num_threads(threads > 0 ? threads : 1);
  }
  /* The binding line: this rank's CPUs and threads, gathered on rank 0 for the header. */
  char host[64] = "?", list[96] = "?", line[BINDING_TEXT];
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  if (have_set) cpu_list(&mine, list, sizeof list);
  int threads = omp_get_max_threads();
  snprintf(line, sizeof line, "rank %d on %s: cpus %s (%d), %d thread%s%s", s->rank, host, list, cpus, threads,
           threads > 1 ? "s" : "", sharing > 1 ? ", set shared by ranks" : "");
  char *all = s->rank == 0 ? malloc((size_t)s->size * BINDING_TEXT) : NULL;
  MPI_Gather(line, BINDING_TEXT, MPI_CHAR, all, BINDING_TEXT, MPI_CHAR, 0, MPI_COMM_WORLD);
  s->binding = all;
}

void run_print_binding(const run_state *s) {
  enum { SHOWN = 8 }; /* a thousand ranks would drown the summary: the first ones, then a count */
  if (!s->binding) return;
  for (int r = 0; r < s->size && r < SHOWN; r++)
    printf("  binding      %s\n", s->binding + (size_t)r * BINDING_TEXT);
  if (s->size > SHOWN) printf("  binding      ... and %d more ranks\n", s->size - SHOWN);
}
