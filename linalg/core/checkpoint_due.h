/* The rule every solver's checkpoints follow, in one place. */
#ifndef HAMLET_CHECKPOINT_DUE_H
#define HAMLET_CHECKPOINT_DUE_H
#include <mpi.h>

/* Collective: *due = a checkpoint is due at count `count` (iterations, passes, restarts): every
 * `every` counts (0: never by count), or once `seconds` have passed since `t_last` by rank 0's clock
 * (0: never by time; one broadcast of an int, so every rank decides alike). */
int hm_checkpoint_due(MPI_Comm comm, int count, int every, double seconds, double t_last, int *due);

#endif
