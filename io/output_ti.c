/* /hamiltonian for the TI lattice: the model's parameters as attributes, and its size (N, nnz). */
#include "output_internal.h"

static const char *boundary_word(int b) { return b == HM_BC_OPEN ? "open" : b == HM_BC_PERIODIC ? "periodic" : "?"; }

static int write_params(hid_t g, const hm_ti_params *p, int64_t n, int64_t nnz) {
  HM_CALL(hm_h5_attr_string(g, "model", "ti"));
  HM_CALL(hm_h5_attr_string(g, "description", "3D topological insulator, Wilson-Dirac lattice; energies in units of t"));
  HM_CALL(hm_h5_attr_int(g, "nx", p->nx));
  HM_CALL(hm_h5_attr_int(g, "ny", p->ny));
  HM_CALL(hm_h5_attr_int(g, "nz", p->nz));
  HM_CALL(hm_h5_attr_double(g, "t", p->t));
  HM_CALL(hm_h5_attr_double(g, "m", p->m));
  HM_CALL(hm_h5_attr_string(g, "boundary_x", boundary_word(p->boundary[0])));
  HM_CALL(hm_h5_attr_string(g, "boundary_y", boundary_word(p->boundary[1])));
  HM_CALL(hm_h5_attr_string(g, "boundary_z", boundary_word(p->boundary[2])));
  HM_CALL(hm_h5_attr_int(g, "dot_period_x", p->dot_period_x));
  HM_CALL(hm_h5_attr_int(g, "dot_period_y", p->dot_period_y));
  HM_CALL(hm_h5_attr_int(g, "dot_depth", p->dot_depth));
  HM_CALL(hm_h5_attr_double(g, "dot_radius", p->dot_radius));
  HM_CALL(hm_h5_attr_double(g, "dot_v0", p->dot_v0));
  HM_CALL(hm_h5_attr_double(g, "disorder_w", p->disorder_w));
  HM_CALL(hm_h5_attr_uint64(g, "disorder_seed", p->disorder_seed));
  HM_CALL(hm_h5_attr_int(g, "N", n));
  HM_CALL(hm_h5_attr_int(g, "nnz", nnz));
  return HM_SUCCESS;
}

int hm_output_write_ti(hm_output *out, const hm_ti_params *p, const hm_matrix *H) {
  HM_CHECK(out && out->file >= 0, HM_ERR_ARGUMENT, "out is NULL or closed");
  HM_CHECK(p && H, HM_ERR_ARGUMENT, "p or H is NULL");
  int64_t n, nnz;
  HM_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  hid_t g;
  HM_CALL(hm_h5_group(out->file, "/hamiltonian", &g));
  int st = write_params(g, p, n, nnz);
  H5Gclose(g);
  HM_CALL(st);
  return HM_SUCCESS;
}
