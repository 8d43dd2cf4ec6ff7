/* hm_output: the result file's life (written as "<path>.tmp", renamed on commit), the deck text
 * and named scalars. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output_internal.h"

static void free_output(hm_output *o) {
  free(o->path);
  free(o->tmp_path);
  free(o);
}

int hm_output_create(hm_context *ctx, const char *path, hm_output **out) {
  HM_CHECK(ctx && path && out, HM_ERR_ARGUMENT, "ctx, path or out is NULL");
  *out = NULL;
  HM_CHECK(path[0] != '\0', HM_ERR_ARGUMENT, "the output path is empty");
  hm_output *o;
  HM_MALLOC(o, 1);
  size_t n = strlen(path);
  o->ctx = ctx;
  o->file = H5I_INVALID_HID;
  o->path = malloc(n + 1);
  o->tmp_path = malloc(n + 5);
  if (!o->path || !o->tmp_path) {
    free_output(o);
    HM_RAISE(HM_ERR_MEMORY, "could not copy the output path '%s'", path);
  }
  memcpy(o->path, path, n + 1);
  snprintf(o->tmp_path, n + 5, "%s.tmp", path);
  int st = hm_h5_create(ctx, o->tmp_path, &o->file);
  if (st) {
    free_output(o);
    HM_CALL(st);
  }
  *out = o;
  return HM_SUCCESS;
}

/* Collective close; a failed close still frees the handle. */
static int close_file(hm_output *o) {
  if (o->file < 0) return HM_SUCCESS;
  hid_t f = o->file;
  o->file = H5I_INVALID_HID;
  HM_CALL_HDF5(H5Fclose(f));
  return HM_SUCCESS;
}

int hm_output_commit(hm_output **out) {
  HM_CHECK(out && *out, HM_ERR_ARGUMENT, "out is NULL (already committed or destroyed?)");
  hm_output *o = *out;
  *out = NULL;
  int st = hm_h5_commit(o->ctx, o->file, o->tmp_path, o->path, HM_SUCCESS); /* the previous result stays on failure */
  free_output(o);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_output_destroy(hm_output **out) {
  if (!out || !*out) return HM_SUCCESS;
  hm_output *o = *out;
  *out = NULL;
  int st = close_file(o);
  int st_rm = hm_h5_remove(o->ctx, o->tmp_path);
  free_output(o);
  HM_CALL(st);
  HM_CALL(st_rm);
  return HM_SUCCESS;
}

int hm_output_write_input(hm_output *out, const char *deck_text) {
  HM_CHECK(out && out->file >= 0, HM_ERR_ARGUMENT, "out is NULL or closed");
  HM_CALL(hm_h5_write_text(out->ctx, out->file, "/input", deck_text,
                           "the input deck this result was computed from"));
  return HM_SUCCESS;
}

/* "/a/b/name" -> group "/a/b" (created as needed; close it) and leaf "name"; the leaf must be new. */
int hm_output_parent_group(hm_output *out, const char *path, hid_t *group, const char **leaf) {
  HM_CHECK(out && out->file >= 0, HM_ERR_ARGUMENT, "out is NULL or closed");
  HM_CHECK(path, HM_ERR_ARGUMENT, "path is NULL");
  const char *slash = strrchr(path, '/');
  HM_CHECK(path[0] == '/' && slash[1] != '\0' && !strstr(path, "//"), HM_ERR_ARGUMENT,
           "path '%s' must be absolute and end in a name, like \"/timing/build\"", path);
  size_t n = (size_t)(slash - path);
  char *parent;
  HM_MALLOC(parent, n + 2);
  memcpy(parent, path, n ? n : 1);
  hid_t g;
  int st = hm_h5_group(out->file, parent, &g);
  free(parent);
  HM_CALL(st);
  htri_t exists = H5Lexists(g, slash + 1, H5P_DEFAULT);
  if (exists != 0) {
    H5Gclose(g);
    HM_CHECK(exists < 0, HM_ERR_ARGUMENT, "'%s' is already in the output file; write each name once", path);
    return hm_error_raise_hdf5("H5Lexists", __FILE__, __LINE__, __func__);
  }
  *group = g;
  *leaf = slash + 1;
  return HM_SUCCESS;
}

int hm_output_write_scalar(hm_output *out, const char *path, double value, const char *unit) {
  HM_CHECK(unit, HM_ERR_ARGUMENT, "unit is NULL (give a unit such as \"s\", \"J\" or \"1\")");
  hid_t g = H5I_INVALID_HID;
  const char *leaf = NULL;
  HM_CALL(hm_output_parent_group(out, path, &g, &leaf));
  int st = hm_h5_write_small(out->ctx, g, leaf, 0, NULL, &value, unit, NULL);
  H5Gclose(g);
  HM_CALL(st);
  return HM_SUCCESS;
}
