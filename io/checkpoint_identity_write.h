/* The writers' side of checkpoint_identity.h (needs HDF5, which the apps do not see). */
#ifndef HAMLET_CHECKPOINT_IDENTITY_WRITE_H
#define HAMLET_CHECKPOINT_IDENTITY_WRITE_H
#include <hdf5.h>
#include "checkpoint_identity.h"

/* Attributes of id (none where id is NULL), on every rank alike. */
int hm_checkpoint_identity_write(hid_t file, const hm_ham_identity *id);
#endif
