/* `hamlet --version` (the build configuration) and `hamlet info` (what this run can use). */
#ifndef HAMLET_APP_BUILD_INFO_H
#define HAMLET_APP_BUILD_INFO_H
#include <stdio.h>

/* Not collective: the version, then one line per part of the build configuration. */
void hm_app_print_version(FILE *f);
/* Collective over MPI_COMM_WORLD: backends compiled in, then per rank its host, the GPUs it sees
 * and the energy meters readable on its node; rank 0 prints. Returns an exit code. */
int hm_app_info(int argc, char **argv);
#endif
