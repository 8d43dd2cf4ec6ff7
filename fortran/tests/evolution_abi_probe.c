/* Layout of hm_evolution_options as the C compiler sees it, for test_fortran_evolution: its size and
 * the offset of every field, in declaration order. */
#include <stddef.h>
#include <stdint.h>
#include "hamlet.h"

void hm_evolution_abi_layout(int64_t out[9]) {
  const size_t v[9] = {sizeof(hm_evolution_options), offsetof(hm_evolution_options, dt),
                       offsetof(hm_evolution_options, accuracy), offsetof(hm_evolution_options, bounds),
                       offsetof(hm_evolution_options, lanczos_steps), offsetof(hm_evolution_options, bounds_margin),
                       offsetof(hm_evolution_options, emin), offsetof(hm_evolution_options, emax),
                       offsetof(hm_evolution_options, seed)};
  for (int i = 0; i < 9; i++) out[i] = (int64_t)v[i];
}
