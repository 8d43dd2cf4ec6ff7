/* Layout of hm_lobpcg_options as the C compiler sees it, for test_fortran_lobpcg: its size and
 * the offset of every field, in declaration order. */
#include <stddef.h>
#include <stdint.h>
#include "hamlet.h"

void hm_lobpcg_abi_layout(int64_t out[21]) {
  const size_t v[21] = {sizeof(hm_lobpcg_options), offsetof(hm_lobpcg_options, nev), offsetof(hm_lobpcg_options, block),
                        offsetof(hm_lobpcg_options, tol), offsetof(hm_lobpcg_options, maxit),
                        offsetof(hm_lobpcg_options, which), offsetof(hm_lobpcg_options, precond),
                        offsetof(hm_lobpcg_options, precond_matrix), offsetof(hm_lobpcg_options, precond_op),
                        offsetof(hm_lobpcg_options, seed), offsetof(hm_lobpcg_options, history),
                        offsetof(hm_lobpcg_options, verbosity), offsetof(hm_lobpcg_options, checkpoint_every),
                        offsetof(hm_lobpcg_options, checkpoint_seconds), offsetof(hm_lobpcg_options, checkpoint),
                        offsetof(hm_lobpcg_options, checkpoint_user), offsetof(hm_lobpcg_options, progress),
                        offsetof(hm_lobpcg_options, progress_user), offsetof(hm_lobpcg_options, stop),
                        offsetof(hm_lobpcg_options, stop_user),
                        offsetof(hm_lobpcg_options, convergence)};
  for (int i = 0; i < 21; i++) out[i] = (int64_t)v[i];
}
