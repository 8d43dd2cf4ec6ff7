/* hamlet post's work on a result of method = evolution: the mean-square displacement, diffusivity,
 * sigma, mean free path and localization length anew from the stored moments (new energies, or the
 * Lorentz or Jackson kernel), written to a copy (or in place through a temporary copy renamed when
 * complete). Serial: one process reads and writes. */
#ifndef HAMLET_EVOLUTION_POST_H
#define HAMLET_EVOLUTION_POST_H
#include <stddef.h>
#include "conductivity_post.h"

/* Whether the file holds /evolution (0 for any file it cannot open). */
int hm_evolution_post_applies(const char *path);
/* HM_ERR_INPUT: no msd moments, or arguments of another method; HM_ERR_IO: cannot write. summary:
 * one line of what was done. */
int hm_evolution_post(const hm_post_args *a, char *summary, size_t len);
#endif
