/* The Hamiltonian's identity on checkpoints (checkpoint_identity.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checkpoint_identity_write.h"
#include "h5util.h"
#include "context_access.h"

enum { MAX_KEYS = 128, LINE_MAX_CHARS = 1024 };
static const uint64_t probe_seed = 0x48616d696c746f6eull; /* any fixed seed: the probe is the same on every run */
static const double probe_rtol = 1e-10; /* rounding differs on another rank count, a changed H by far more */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Size and content of a file the section names; a file that cannot be read hashes as missing
 * (the build has already failed or succeeded on it). */
static uint64_t hash_file(uint64_t h, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return fnv1a(h, "missing", 7);
  char buf[1 << 16];
  size_t n, total = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    h = fnv1a(h, buf, n);
    total += n;
  }
  fclose(f);
  return fnv1a(h, &total, sizeof total);
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

/* One "key=value" line of the section: comments cut, key lower-cased, blanks in value collapsed. */
static int normalise(char *line, char *out, size_t n) {
  for (char *c = line; *c; c++)
    if ((*c == ';' || *c == '#') && (c == line || isspace((unsigned char)c[-1]))) *c = 0;
  char *eq = strchr(line, '=');
  if (!eq) return 0;
  *eq = 0;
  char *key = trim(line), *value = trim(eq + 1);
  size_t k = 0;
  for (; *key && k + 1 < n; key++) out[k++] = (char)tolower((unsigned char)*key);
  if (k + 1 < n) out[k++] = '=';
  for (int blank = 0; *value && k + 1 < n; value++) {
    if (isspace((unsigned char)*value)) { blank = 1; continue; }
    if (blank) out[k++] = ' ';
    blank = 0;
    if (k + 1 < n) out[k++] = *value;
  }
  out[k] = 0;
  return 1;
}

static int compare_lines(const void *a, const void *b) { return strcmp(a, b); }

static uint64_t hash_section(const char *text) {
  static char lines[MAX_KEYS][LINE_MAX_CHARS];
  int count = 0, inside = 0;
  const char *p = text ? text : "";
  while (*p && count < MAX_KEYS) {
    char line[LINE_MAX_CHARS];
    size_t len = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    p += len + (p[len] == '\n');
    char *t = trim(line);
    if (*t == '[') {
      char *close = strchr(t, ']');
      if (close) *close = 0;
      inside = strcmp(trim(t + 1), "hamiltonian") == 0;
    } else if (inside && normalise(t, lines[count], LINE_MAX_CHARS)) {
      count++;
    }
  }
  qsort(lines, (size_t)count, sizeof lines[0], compare_lines);
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < count; i++) {
    h = fnv1a(h, lines[i], strlen(lines[i]) + 1);
    const char *eq = strchr(lines[i], '=');
    size_t klen = (size_t)(eq - lines[i]);
    if ((klen == 6 && !strncmp(lines[i], "matrix", 6)) || (klen == 4 && !strncmp(lines[i], "mass", 4)) ||
        (klen == 9 && !strncmp(lines[i], "grid_file", 9)))
      if (eq[1]) h = hash_file(h, eq + 1);
  }
  return h;
}

int hm_ham_identity_compute(hm_matrix *H, const char *deck_text, hm_ham_identity *id) {
  HM_CHECK(H && id, HM_ERR_ARGUMENT, "H or id is NULL");
  hm_context *ctx;
  HM_CALL(hm_matrix_context(H, &ctx));
  uint64_t h = hm_io_rank(ctx) == 0 ? hash_section(deck_text) : 0;
  HM_CALL_MPI(MPI_Bcast(&h, 1, MPI_UINT64_T, 0, hm_io_comm(ctx)));
  id->deck_hash = h;
  const hm_dist *dist;
  hm_scalar type;
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(hm_matrix_info(H, NULL, NULL, &type));
  hm_mvec *p = NULL, *y = NULL;
  double dots[2] = {0, 0};
  int st = hm_mvec_create(ctx, dist, type, 1, &p);
  if (!st) st = hm_mvec_create(ctx, dist, type, 1, &y);
  if (!st) st = hm_mvec_random_phase(p, probe_seed);
  if (!st) st = hm_matrix_apply(H, p, y);
  if (!st) st = hm_mvec_norms(y, &id->probe_norm);
  if (!st) st = hm_mvec_dot(p, y, dots);
  id->probe_rayleigh = dots[0];
  hm_mvec_destroy(&p);
  hm_mvec_destroy(&y);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_checkpoint_identity_write(hid_t file, const hm_ham_identity *id) {
  if (!id) return HM_SUCCESS;
  HM_CALL(hm_h5_attr_uint64(file, "hamiltonian_hash", id->deck_hash));
  HM_CALL(hm_h5_attr_double(file, "hamiltonian_probe_norm", id->probe_norm));
  HM_CALL(hm_h5_attr_double(file, "hamiltonian_probe_rayleigh", id->probe_rayleigh));
  return HM_SUCCESS;
}

static int check_probe(const char *path, const char *what, double stored, double mine) {
  double scale = fmax(fabs(stored), fabs(mine));
  HM_CHECK(fabs(stored - mine) <= probe_rtol * scale, HM_ERR_INPUT,
           "checkpoint '%s' belongs to another Hamiltonian: %s of H applied to the probe vector is %.17g in the "
           "checkpoint and %.17g for this deck's H (allowed relative difference %g); restart with the matrix, grid "
           "and [hamiltonian] keys it was written with", path, what, stored, mine, probe_rtol);
  return HM_SUCCESS;
}

static int check_attrs(hid_t f, const char *path, const hm_ham_identity *mine) {
  HM_CHECK(H5Aexists(f, "hamiltonian_hash") > 0, HM_ERR_INPUT,
           "checkpoint '%s' carries no identity of its Hamiltonian (attribute 'hamiltonian_hash'): it cannot be checked",
           path);
  hm_ham_identity stored;
  HM_CALL(hm_h5_read_attr_uint64(f, "hamiltonian_hash", &stored.deck_hash));
  HM_CALL(hm_h5_read_attr_double(f, "hamiltonian_probe_norm", &stored.probe_norm));
  HM_CALL(hm_h5_read_attr_double(f, "hamiltonian_probe_rayleigh", &stored.probe_rayleigh));
  HM_CHECK(stored.deck_hash == mine->deck_hash, HM_ERR_INPUT,
           "checkpoint '%s' belongs to another Hamiltonian: its [hamiltonian] keys or the files they name differ "
           "from those it was written with (hash %016llx when written, %016llx now: was /input edited or a "
           "matrix/grid file changed?)", path, (unsigned long long)stored.deck_hash,
           (unsigned long long)mine->deck_hash);
  HM_CALL(check_probe(path, "the norm", stored.probe_norm, mine->probe_norm));
  HM_CALL(check_probe(path, "<p|Hp>", stored.probe_rayleigh, mine->probe_rayleigh));
  return HM_SUCCESS;
}

int hm_checkpoint_identity_check(hm_context *ctx, const char *path, const hm_ham_identity *mine) {
  HM_CHECK(ctx && path && mine, HM_ERR_ARGUMENT, "ctx, path or mine is NULL");
  hid_t f;
  HM_CALL(hm_h5_open_read(ctx, path, &f));
  int st = check_attrs(f, path, mine);
  H5Fclose(f);
  HM_CALL(st);
  return HM_SUCCESS;
}
