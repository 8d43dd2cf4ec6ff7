/* Layout of hm_stencil as the C compiler sees it, for test_fortran_stencil: its size and the offset
 * of every field, in declaration order. */
#include <stddef.h>
#include <stdint.h>
#include "hamlet.h"

void hm_stencil_abi_layout(int64_t out[19]) {
  const size_t v[19] = {sizeof(hm_stencil), offsetof(hm_stencil, cells), offsetof(hm_stencil, orbitals),
                        offsetof(hm_stencil, nblocks), offsetof(hm_stencil, shift), offsetof(hm_stencil, block),
                        offsetof(hm_stencil, boundary), offsetof(hm_stencil, twist),
                        offsetof(hm_stencil, disorder_w), offsetof(hm_stencil, disorder_seed),
                        offsetof(hm_stencil, disorder_stream), offsetof(hm_stencil, disorder_per_site),
                        offsetof(hm_stencil, vacancy_p), offsetof(hm_stencil, vacancy_seed),
                        offsetof(hm_stencil, vacancy_stream), offsetof(hm_stencil, peierls),
                        offsetof(hm_stencil, wrap_phase), offsetof(hm_stencil, antihermitian), 0};
  for (int i = 0; i < 19; i++) out[i] = (int64_t)v[i];
}
