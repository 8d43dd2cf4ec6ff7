/* Halo exchange between device ranks of one node, device to device (halo_peer.c); used by halo.c
 * in place of host staging where hm_halo_peer_setup finds every rank able to. */
#ifndef HAMLET_HALO_PEER_H
#define HAMLET_HALO_PEER_H
#include "objects.h"
#include "kernels.h"

/* Collective: sets A->halo.peer where every rank is a device rank of one node with peer memory
 * (and HAMLET_HALO_PEER is not 0); leaves it NULL otherwise. */
int hm_halo_peer_setup(struct hm_matrix_s *A);
/* Collective (every rank frees after the same exchanges): the last acknowledgements cross here. */
void hm_halo_peer_free(hm_halo *h, const hm_kernels *K, MPI_Comm comm);
/* Acknowledge the reads of the last exchange and wait until the receivers of the last exchange
 * have read pack_buf (it may be regrown or repacked then). */
int hm_halo_peer_wait_read(struct hm_matrix_s *A);
/* Queue the packing of x's rows to send into pack_buf. */
int hm_halo_peer_begin(struct hm_matrix_s *A, struct hm_mvec_s *x);
/* Once packed, tell the receivers; queue the reads of the halo rows from the senders into x's halo
 * rows (mark HM_MARK_HALO). Not deferred: wait for them and acknowledge; deferred: the caller's
 * kernels wait for the mark, and hm_halo_peer_wait_read acknowledges. */
int hm_halo_peer_end(struct hm_matrix_s *A, int deferred);
#endif
