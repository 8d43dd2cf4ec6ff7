/* Before any work: no file plays two roles (an output over an input, the checkpoint over the
 * output), the output and checkpoint directories exist and take files, and the ".tmp" files a
 * killed run left behind are removed. Rank 0 looks (the files are shared by every rank) and
 * broadcasts its verdict; the message names the roles, the path and the system's reason. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include "deck_files.h"
#include "run_state.h"

enum { MAX_ROLES = HM_DECK_MAX_INPUTS + 3 };

typedef struct {
  char role[HM_PATH_MAX + 256], path[HM_PATH_MAX];
  int written; /* the run writes it (output, checkpoint); 2: the checkpoint given to restart */
} file_role;

/* The absolute path a file has or will have: the directory resolved, the name kept. */
static void resolve(const char *path, char *out, size_t n) {
  char dir_buf[PATH_MAX], base_buf[PATH_MAX], real_dir[PATH_MAX];
  snprintf(dir_buf, sizeof dir_buf, "%s", path);
  snprintf(base_buf, sizeof base_buf, "%s", path);
  const char *dir = dirname(dir_buf), *base = basename(base_buf);
  if (realpath(dir, real_dir)) snprintf(out, n, "%s/%s", strcmp(real_dir, "/") ? real_dir : "", base);
  else snprintf(out, n, "%s", path);
}

/* Same file: same resolved path, or (both existing) same device and inode (hard and soft links). */
static int same_file(const char *a, const char *b) {
  char ra[2 * PATH_MAX], rb[2 * PATH_MAX];
  resolve(a, ra, sizeof ra);
  resolve(b, rb, sizeof rb);
  if (!strcmp(ra, rb)) return 1;
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* "output ([run] output, deck.ini:2)": the role, and the deck line where the key gave the name. */
static void written_role(const hm_deck *d, const char *role, const char *key, char *out, size_t len) {
  const int line = hm_deck_line(d, "run", key);
  if (line) snprintf(out, len, "%s ([run] %s, %s:%d)", role, key, d->name, line);
  else snprintf(out, len, "%s", role);
}

/* Append a role; its text is written by the caller into the returned buffer. */
static char *add_role(file_role *r, int *n, int written, const char *path) {
  file_role *x = &r[(*n)++];
  x->written = written;
  snprintf(x->path, sizeof x->path, "%s", path);
  return x->role;
}

/* The deck, every input it names (the schema's file keys and the files they imply: io/deck_files.c),
 * the output and the checkpoint. */
static int collect_roles(const run_state *s, file_role *r) {
  const hm_deck *d = &s->deck;
  const size_t len = sizeof r->role;
  int n = 0;
  if (s->args->deck_path) snprintf(add_role(r, &n, 0, s->args->deck_path), len, "deck");
  hm_deck_input *in = calloc(HM_DECK_MAX_INPUTS, sizeof *in);
  if (!in) return -1; /* no list, no protection: refuse */
  const int ninputs = hm_deck_inputs(d, in, HM_DECK_MAX_INPUTS);
  for (int i = 0; i < ninputs; i++) snprintf(add_role(r, &n, 0, in[i].path), len, "input %s", in[i].role);
  free(in);
  char *role = add_role(r, &n, 1, s->output);
  if (s->args->output) snprintf(role, len, "output (-o)");
  else written_role(d, "output", "output", role, len);
  if (s->args->export_only && !s->export_h5 && run_export_has_mass(d))
    snprintf(add_role(r, &n, 1, s->export_mass), len, "mass matrix's export (-o's name with _mass)");
  for (int a = 0; a < 3; a++)
    if (s->args->export_only && !s->export_h5 && (s->args->export_velocity & (1 << a)))
      snprintf(add_role(r, &n, 1, s->export_velocity[a]), len, "velocity v_%c's export (-o's name with _v%c)", 'x' + a,
               'x' + a);
  /* A restart reads the checkpoint it was given and writes its later checkpoints there. */
  if (s->args->checkpoint_path)
    snprintf(add_role(r, &n, 2, s->checkpoint_path), len, "checkpoint given to restart");
  else if (d->checkpoint_every > 0 || d->checkpoint_seconds > 0)
    written_role(d, "checkpoint", "checkpoint", add_role(r, &n, 1, s->checkpoint_path), len);
  return n;
}

static int check_distinct(const file_role *r, int n, char *msg, size_t len) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!r[i].written && !r[j].written) continue; /* two inputs may share a file */
      if (same_file(r[i].path, r[j].path)) {
        const int same_text = !strcmp(r[i].path, r[j].path);
        /* the name to change: a file the run writes, never the restart's own checkpoint */
        const char *rename_role = r[i].written == 1 ? r[i].role : r[j].role;
        snprintf(msg, len, "the %s and the %s are the same file, %s%s%s: the run would overwrite it; give the %s "
                 "another name\n", r[i].role, r[j].role, r[i].path, same_text ? "" : " = ", same_text ? "" : r[j].path,
                 rename_role);
        return 1;
      }
    }
  return 0;
}

/* Remove a ".tmp" left by a killed run, then prove the directory takes a new file by creating it. */
static int check_writable(const file_role *r, char *msg, size_t len) {
  char tmp[HM_PATH_MAX + 8], dir_buf[HM_PATH_MAX + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", r->path);
  snprintf(dir_buf, sizeof dir_buf, "%s", r->path);
  const char *dir = dirname(dir_buf);
  struct stat st;
  if (stat(dir, &st) != 0) {
    snprintf(msg, len, "cannot write the %s %s: directory '%s': %s\n", r->role, r->path, dir, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(msg, len, "cannot write the %s %s: '%s' is not a directory\n", r->role, r->path, dir);
    return 1;
  }
  if (lstat(tmp, &st) == 0) {
    if (remove(tmp) != 0) {
      snprintf(msg, len, "could not remove '%s', left by an earlier run: %s\n", tmp, strerror(errno));
      return 1;
    }
    fprintf(stderr, "hamlet: removed '%s', left by an earlier run that did not finish\n", tmp);
  }
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    snprintf(msg, len, "cannot write the %s %s: directory '%s': %s\n", r->role, r->path, dir, strerror(errno));
    return 1;
  }
  close(fd);
  remove(tmp);
  if (stat(r->path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(msg, len, "the %s %s is a directory; name a file\n", r->role, r->path);
    return 1;
  }
  return 0;
}

int run_check_paths(run_state *s) {
  char msg[4 * HM_PATH_MAX + 1024] = "";
  int bad = 0;
  if (s->rank == 0) {
    file_role *r = calloc(MAX_ROLES, sizeof *r); /* paths are long: off the stack */
    const int n = r ? collect_roles(s, r) : -1;
    bad = n < 0;
    if (!r) snprintf(msg, sizeof msg, "out of memory checking the paths\n");
    if (!bad) bad = check_distinct(r, n, msg, sizeof msg);
    for (int i = 0; i < n && !bad; i++)
      if (r[i].written) bad = check_writable(&r[i], msg, sizeof msg);
    free(r);
    if (bad) fprintf(stderr, "hamlet: %s", msg);
    fflush(stdout);
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return bad ? HM_EXIT_USAGE : HM_EXIT_OK;
}
