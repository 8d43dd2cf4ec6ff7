/* Energy meters of this node and the /energy group of the result file (internal to hamlet).
 *
 * Meters found by hm_energy_open (none of them is an error to lack):
 *   - NVIDIA GPUs: NVML's total-energy counter (mJ since the driver loaded), NVML loaded at run
 *     time with dlopen (library name from $HAMLET_NVML_LIB, default "libnvidia-ml.so.1"); a GPU
 *     whose counter is NOT_SUPPORTED has no meter. Named "gpu<index> <NVML name>".
 *   - CPU packages: RAPL powercap zones <root>/intel-rapl:N whose name starts with "package"
 *     (root from $HAMLET_RAPL_ROOT, default /sys/class/powercap). Sub-zones (core, uncore, dram)
 *     and "psys" are left out: they overlap the packages. A zone whose energy_uj or
 *     max_energy_range_uj cannot be read (root-only since Linux 5.10, absent in most VMs and
 *     containers) has no meter. Named "cpu <zone name>".
 * Meters see the whole node, so every rank of a node sees the same ones.
 *
 * Readings are joules since hm_energy_open. RAPL counters wrap (every few minutes to hours); each
 * read adds the wrap-corrected difference since the previous one, so a long phase must be read
 * at least once per wrap period: hm_energy_start_polling reads them from a thread of its own
 * (every method and phase, even one long library call); hm_energy_poll serves callers without it. */
#ifndef HAMLET_ENERGY_H
#define HAMLET_ENERGY_H
#include <stddef.h>
#include <mpi.h>
#include "hamlet/output.h"

typedef struct hm_energy_meter hm_energy_meter;

/* Not collective. Finds the meters of this node and takes a first reading; fails only for memory. */
int hm_energy_open(hm_energy_meter **m);
void hm_energy_close(hm_energy_meter **m); /* nulls *m */

int hm_energy_count(const hm_energy_meter *m, int *count);
int hm_energy_name(const hm_energy_meter *m, int i, char *name, size_t len); /* truncated to len */
/* What was probed and why a source gave no meter, e.g. "nvml: libnvidia-ml.so.1 not loadable". */
const char *hm_energy_probe_note(const hm_energy_meter *m);

/* joules[count]: energy since open. A meter that fails after open reads NaN from then on. */
int hm_energy_read(hm_energy_meter *m, double *joules);
/* A read whose result is dropped, at most once a second (cheap enough for every KPM step). */
int hm_energy_poll(hm_energy_meter *m);
/* A thread that reads every counter each `seconds` (0 < seconds <= 3600) until hm_energy_close;
 * it calls no MPI. Without meters no thread is started. Reads and polls are thread-safe. */
int hm_energy_start_polling(hm_energy_meter *m, double seconds);
/* phase[i] += now[i] - start[i], start from an earlier hm_energy_read. */
int hm_energy_add_since(hm_energy_meter *m, const double *start, double *phase);

/* Collective over the output's ranks, identical nphases and phase_names on every rank.
 * joules[nphases][count] is this rank's energy per phase and meter; only the first rank of each
 * node (MPI_COMM_TYPE_SHARED) contributes, and the file holds the sum over nodes:
 *   /energy                 attributes meters ("nvml", "rapl", "nvml, rapl", "none", "mixed"),
 *                           nodes, phases (names in order), probe (rank 0's note), description
 *   /energy/devices         [count] meter names (rank 0's node)
 *   /energy/<phase>         [count] J, meter i summed over nodes
 * With no meter on any node only the group and its attributes are written (meters = "none").
 * When nodes differ in their meters, one meter "all meters of all nodes" holds the total. */
int hm_energy_write(hm_output *out, hm_energy_meter *m, int nphases, const char **phase_names,
                    const double *joules);
/* The same with the ranks grouped into "nodes" by `node` (a split of the output's communicator;
 * the rank of node rank 0 contributes). hm_energy_write passes the MPI_COMM_TYPE_SHARED split;
 * tests pass other groupings to check the sum over nodes on one machine. */
int hm_energy_write_nodes(hm_output *out, MPI_Comm node, hm_energy_meter *m, int nphases,
                          const char **phase_names, const double *joules);
#endif
