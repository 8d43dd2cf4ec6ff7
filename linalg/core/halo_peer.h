/* Halo exchange between device ranks of one node, device to device (halo_peer.c); used by halo.c
 * in place of host staging where hm_halo_peer_setup finds every rank able to. */
#ifndef HAMLET_HALO_PEER_H
#define HAMLET_HALO_PEER_H
#include "objects.h"
#include "kernels.h"

/* Collective: sets A->halo.peer where every rank is a device rank of one node with peer memory
 * (and HAMLET_HALO_PEER is not 0); leaves it NULL otherwise. */
int hm_halo_peer_setup(struct hm_matrix_s *A);
void hm_halo_peer_free(hm_halo *h, const hm_kernels *K);
/* Wait until the receivers of the previous exchange have read pack_buf (it may be regrown then). */
int hm_halo_peer_wait_read(hm_halo *h);
/* Pack x's rows to send into pack_buf (rows of row_len doubles) and tell the receivers. */
int hm_halo_peer_begin(struct hm_matrix_s *A, struct hm_mvec_s *x, size_t row_len);
/* Read the halo rows from the senders into x's halo rows and acknowledge. */
int hm_halo_peer_end(struct hm_matrix_s *A);
#endif
