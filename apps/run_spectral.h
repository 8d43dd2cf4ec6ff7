/* method = spectral (run_spectral.c): what the rest of the app needs to know of it. */
#ifndef HAMLET_RUN_SPECTRAL_H
#define HAMLET_RUN_SPECTRAL_H

/* Columns of one KPM block of the app's batches (points x orbitals): bounds a batch's memory; the
 * ti's GPU traversal tiles are cut for it (model.c). */
enum { HM_SPECTRAL_MAX_WIDTH = 64 };

#endif
