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
#include "run_state.h"

enum { MAX_ROLES = 8 };

typedef struct {
  const char *role, *path;
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

static int collect_roles(const run_state *s, file_role *r) {
  const hm_deck *d = &s->deck;
  int n = 0;
  if (s->args->deck_path) r[n++] = (file_role){"deck", s->args->deck_path, 0};
  if (d->matrix_file[0]) r[n++] = (file_role){"matrix file ([hamiltonian] matrix)", d->matrix_file, 0};
  if (d->mass_file[0]) r[n++] = (file_role){"mass file ([hamiltonian] mass)", d->mass_file, 0};
  if (d->grid_file[0]) r[n++] = (file_role){"grid file ([hamiltonian] grid_file)", d->grid_file, 0};
  if (d->rhs.file[0]) r[n++] = (file_role){"right-hand side file ([rhs] file)", d->rhs.file, 0};
  r[n++] = (file_role){"output", s->output, 1};
  /* A restart reads the checkpoint it was given and writes its later checkpoints there. */
  if (s->args->checkpoint_path) r[n++] = (file_role){"checkpoint given to restart", s->checkpoint_path, 2};
  else if (d->checkpoint_every > 0 || d->checkpoint_seconds > 0)
    r[n++] = (file_role){"checkpoint", s->checkpoint_path, 1};
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
  char msg[3 * HM_PATH_MAX + 256] = "";
  int bad = 0;
  if (s->rank == 0) {
    file_role r[MAX_ROLES];
    const int n = collect_roles(s, r);
    bad = check_distinct(r, n, msg, sizeof msg);
    for (int i = 0; i < n && !bad; i++)
      if (r[i].written) bad = check_writable(&r[i], msg, sizeof msg);
    if (bad) fprintf(stderr, "hamlet: %s", msg);
    fflush(stdout);
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return bad ? HM_EXIT_USAGE : HM_EXIT_OK;
}
