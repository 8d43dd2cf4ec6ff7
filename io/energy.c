/* Energy meters: NVML GPU counters (dlopen'ed, never linked) and RAPL package counters (powercap
 * sysfs), read as joules since open with RAPL wrap-around undone; and /energy in the result file. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "energy.h"
#include "output_internal.h"
#include "context_access.h"

enum { NAME_LEN = 128, NOTE_LEN = 1024, MAX_ZONES = 256 };

/* The few NVML declarations used (nvml.h is not needed to build). */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
enum { NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3, NVML_NAME_LEN = 96 };

typedef struct {
  void *lib;
  nvmlReturn_t (*init)(void);
  nvmlReturn_t (*shutdown)(void);
  nvmlReturn_t (*count)(unsigned int *);
  nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *); /* mJ since the driver loaded */
  nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
} nvml_api;

typedef struct {
  int is_gpu;
  char name[NAME_LEN];
  nvmlDevice_t device;     /* GPU */
  char *path;              /* CPU: the energy_uj file */
  unsigned long long range; /* counter wraps after this many units (0: never) */
  unsigned long long last; /* previous raw reading */
  double unit;             /* joules per counter unit */
  double total;            /* joules since open */
  int failed;
} meter;

struct hm_energy_meter {
  int count;
  meter meters[MAX_ZONES];
  nvml_api nvml;
  char note[NOTE_LEN];
  double last_read; /* monotonic seconds */
  /* The poller (hm_energy_start_polling) reads the counters while a long call (a dense solve, an
   * IDR solve) gives no callback; the lock orders its reads with the caller's. */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t poller;
  int polling, stop;
  double poll_seconds;
};

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Append "; text" to the probe note (silently truncated: the note is informative only). */
__attribute__((format(printf, 2, 3))) static void note(hm_energy_meter *m, const char *fmt, ...) {
  size_t n = strlen(m->note);
  if (n + 3 >= NOTE_LEN) return;
  if (n) n += (size_t)snprintf(m->note + n, NOTE_LEN - n, "; ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->note + n, NOTE_LEN - n, fmt, ap);
  va_end(ap);
}

/* ---- RAPL ---- */

/* First line of a small sysfs file, newline stripped; -1 with errno set on failure. */
static int read_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *got = fgets(buf, (int)len, f);
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (!got) {
    errno = err ? err : ENODATA;
    return -1;
  }
  buf[strcspn(buf, "\n")] = '\0';
  return 0;
}

static int read_counter(const char *path, unsigned long long *value) {
  char buf[64], *end;
  if (read_line(path, buf, sizeof buf)) return -1;
  errno = 0;
  *value = strtoull(buf, &end, 10);
  if (errno || end == buf || *end != '\0' || buf[0] == '-') {
    errno = EINVAL;
    return -1;
  }
  return 0;
}

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Top-level zones "intel-rapl:N" (no sub-zone "intel-rapl:N:M"), in index order. */
static int list_zones(const char *root, int *zones) {
  DIR *d = opendir(root);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_ZONES) {
    int idx, used = 0;
    if (sscanf(e->d_name, "intel-rapl:%d%n", &idx, &used) == 1 && e->d_name[used] == '\0' && idx >= 0)
      zones[n++] = idx;
  }
  closedir(d);
  qsort(zones, (size_t)n, sizeof *zones, compare_ints);
  return n;
}

static void add_rapl_zone(hm_energy_meter *m, const char *root, int zone) {
  char dir[PATH_MAX], path[PATH_MAX + 32], name[NAME_LEN - 8]; /* room for "cpu " */
  snprintf(dir, sizeof dir, "%s/intel-rapl:%d", root, zone);
  snprintf(path, sizeof path, "%s/name", dir);
  if (read_line(path, name, sizeof name)) {
    note(m, "rapl: %s: %s", path, strerror(errno));
    return;
  }
  if (strncmp(name, "package", 7) != 0) return; /* psys overlaps the packages */
  meter *x = &m->meters[m->count];
  memset(x, 0, sizeof *x);
  snprintf(path, sizeof path, "%s/max_energy_range_uj", dir);
  if (read_counter(path, &x->range) || x->range == 0) {
    note(m, "rapl: %s: %s", path, errno ? strerror(errno) : "zero range");
    return;
  }
  snprintf(path, sizeof path, "%s/energy_uj", dir);
  if (read_counter(path, &x->last)) {
    note(m, "rapl: %s: %s", path, strerror(errno));
    return;
  }
  x->path = strdup(path);
  if (!x->path) return;
  snprintf(x->name, NAME_LEN, "cpu %s", name);
  x->unit = 1e-6;
  m->count++;
}

static void open_rapl(hm_energy_meter *m) {
  const char *root = getenv("HAMLET_RAPL_ROOT");
  if (!root || !root[0]) root = "/sys/class/powercap";
  int zones[MAX_ZONES];
  int n = list_zones(root, zones);
  if (n < 0) {
    note(m, "rapl: %s: %s", root, strerror(errno));
    return;
  }
  int before = m->count;
  for (int i = 0; i < n && m->count < MAX_ZONES; i++) add_rapl_zone(m, root, zones[i]);
  if (m->count == before) note(m, "rapl: no readable package zone under %s", root);
}

/* ---- NVML ---- */

static int load_symbol(hm_energy_meter *m, void *fn, const char *symbol) {
  void *p = dlsym(m->nvml.lib, symbol);
  if (!p) {
    note(m, "nvml: %s missing from the library", symbol);
    return -1;
  }
  memcpy(fn, &p, sizeof p); /* object -> function pointer, as POSIX allows */
  return 0;
}

static void add_gpu(hm_energy_meter *m, unsigned int index) {
  meter *x = &m->meters[m->count];
  memset(x, 0, sizeof *x);
  nvmlReturn_t r = m->nvml.handle(index, &x->device);
  if (r == NVML_SUCCESS) r = m->nvml.energy(x->device, &x->last);
  if (r != NVML_SUCCESS) {
    note(m, "nvml: gpu%u: %s", index, r == NVML_ERROR_NOT_SUPPORTED ? "energy counter not supported" : "query failed");
    return;
  }
  char name[NVML_NAME_LEN] = "";
  if (m->nvml.name(x->device, name, sizeof name) != NVML_SUCCESS) snprintf(name, sizeof name, "unknown GPU");
  name[NVML_NAME_LEN - 1] = '\0';
  snprintf(x->name, NAME_LEN, "gpu%u %s", index, name);
  x->is_gpu = 1;
  x->unit = 1e-3;
  m->count++;
}

static void close_nvml(hm_energy_meter *m) {
  if (!m->nvml.lib) return;
  dlclose(m->nvml.lib);
  memset(&m->nvml, 0, sizeof m->nvml);
}

static void open_nvml(hm_energy_meter *m) {
  const char *lib = getenv("HAMLET_NVML_LIB");
  if (!lib || !lib[0]) lib = "libnvidia-ml.so.1";
  m->nvml.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!m->nvml.lib) {
    const char *why = dlerror();
    note(m, "nvml: %s", why ? why : lib);
    return;
  }
  if (load_symbol(m, &m->nvml.init, "nvmlInit_v2") || load_symbol(m, &m->nvml.shutdown, "nvmlShutdown") ||
      load_symbol(m, &m->nvml.count, "nvmlDeviceGetCount_v2") ||
      load_symbol(m, &m->nvml.handle, "nvmlDeviceGetHandleByIndex_v2") ||
      load_symbol(m, &m->nvml.energy, "nvmlDeviceGetTotalEnergyConsumption") ||
      load_symbol(m, &m->nvml.name, "nvmlDeviceGetName")) {
    close_nvml(m);
    return;
  }
  if (m->nvml.init() != NVML_SUCCESS) {
    note(m, "nvml: nvmlInit_v2 failed (no driver or no GPU)");
    close_nvml(m);
    return;
  }
  unsigned int n = 0;
  if (m->nvml.count(&n) != NVML_SUCCESS) n = 0;
  for (unsigned int i = 0; i < n && m->count < MAX_ZONES; i++) add_gpu(m, i);
  if (m->count == 0) {
    if (n == 0) note(m, "nvml: no GPU");
    m->nvml.shutdown();
    close_nvml(m);
  }
}

/* ---- meters ---- */

int hm_energy_open(hm_energy_meter **m) {
  HM_CHECK(m, HM_ERR_ARGUMENT, "m is NULL");
  hm_energy_meter *e;
  HM_MALLOC(e, 1);
  open_nvml(e); /* GPUs first: they are index 0.. of the meters */
  open_rapl(e);
  e->last_read = now_seconds();
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->wake, NULL);
  *m = e;
  return HM_SUCCESS;
}

void hm_energy_close(hm_energy_meter **m) {
  if (!m || !*m) return;
  hm_energy_meter *e = *m;
  *m = NULL;
  if (e->polling) {
    pthread_mutex_lock(&e->lock);
    e->stop = 1;
    pthread_cond_signal(&e->wake);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->poller, NULL);
  }
  pthread_cond_destroy(&e->wake);
  pthread_mutex_destroy(&e->lock);
  for (int i = 0; i < e->count; i++) free(e->meters[i].path);
  if (e->nvml.lib) {
    e->nvml.shutdown();
    close_nvml(e);
  }
  free(e);
}

int hm_energy_count(const hm_energy_meter *m, int *count) {
  HM_CHECK(m && count, HM_ERR_ARGUMENT, "m or count is NULL");
  *count = m->count;
  return HM_SUCCESS;
}

int hm_energy_name(const hm_energy_meter *m, int i, char *name, size_t len) {
  HM_CHECK(m && name && len > 0, HM_ERR_ARGUMENT, "m or name is NULL, or len is 0");
  HM_CHECK(i >= 0 && i < m->count, HM_ERR_ARGUMENT, "meter %d does not exist (this node has %d, 0..%d)", i,
           m->count, m->count - 1);
  snprintf(name, len, "%s", m->meters[i].name);
  return HM_SUCCESS;
}

const char *hm_energy_probe_note(const hm_energy_meter *m) { return m ? m->note : ""; }

/* Units since the previous reading; a counter below its previous value has wrapped once. */
static void update(hm_energy_meter *m, meter *x) {
  if (x->failed) return;
  unsigned long long raw;
  int bad = x->is_gpu ? m->nvml.energy(x->device, &raw) != NVML_SUCCESS : read_counter(x->path, &raw) != 0;
  if (bad) {
    x->failed = 1;
    x->total = NAN;
    return;
  }
  unsigned long long delta = raw - x->last;
  if (raw < x->last) delta = x->range && x->last <= x->range ? x->range - x->last + raw : raw; /* NVML: a reset */
  x->total += x->unit * (double)delta;
  x->last = raw;
}

int hm_energy_read(hm_energy_meter *m, double *joules) {
  HM_CHECK(m && (joules || m->count == 0), HM_ERR_ARGUMENT, "m or joules is NULL");
  pthread_mutex_lock(&m->lock);
  for (int i = 0; i < m->count; i++) {
    update(m, &m->meters[i]);
    joules[i] = m->meters[i].total;
  }
  m->last_read = now_seconds();
  pthread_mutex_unlock(&m->lock);
  return HM_SUCCESS;
}

int hm_energy_poll(hm_energy_meter *m) {
  HM_CHECK(m, HM_ERR_ARGUMENT, "m is NULL");
  if (m->count == 0) return HM_SUCCESS;
  pthread_mutex_lock(&m->lock);
  if (now_seconds() - m->last_read >= 1.0) {
    for (int i = 0; i < m->count; i++) update(m, &m->meters[i]);
    m->last_read = now_seconds();
  }
  pthread_mutex_unlock(&m->lock);
  return HM_SUCCESS;
}

/* Wakes every poll_seconds (or at once when told to stop) and reads every counter. */
static void *poll_loop(void *arg) {
  hm_energy_meter *m = arg;
  pthread_mutex_lock(&m->lock);
  while (!m->stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double at = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + m->poll_seconds;
    until.tv_sec = (time_t)at;
    until.tv_nsec = (long)((at - (double)until.tv_sec) * 1e9);
    pthread_cond_timedwait(&m->wake, &m->lock, &until);
    if (m->stop) break;
    for (int i = 0; i < m->count; i++) update(m, &m->meters[i]);
    m->last_read = now_seconds();
  }
  pthread_mutex_unlock(&m->lock);
  return NULL;
}

int hm_energy_start_polling(hm_energy_meter *m, double seconds) {
  HM_CHECK(m, HM_ERR_ARGUMENT, "m is NULL");
  HM_CHECK(seconds > 0 && seconds <= 3600, HM_ERR_ARGUMENT, "poll interval %g s: allowed (0, 3600]", seconds);
  HM_CHECK(!m->polling, HM_ERR_ARGUMENT, "the meters are polled already");
  if (m->count == 0) return HM_SUCCESS; /* nothing to read */
  m->poll_seconds = seconds;
  int err = pthread_create(&m->poller, NULL, poll_loop, m);
  HM_CHECK(err == 0, HM_ERR_MEMORY, "could not start the energy poller thread: %s", strerror(err));
  m->polling = 1;
  return HM_SUCCESS;
}

int hm_energy_add_since(hm_energy_meter *m, const double *start, double *phase) {
  HM_CHECK(m && ((start && phase) || m->count == 0), HM_ERR_ARGUMENT, "m, start or phase is NULL");
  double now[MAX_ZONES];
  HM_CALL(hm_energy_read(m, now));
  for (int i = 0; i < m->count; i++) phase[i] += now[i] - start[i];
  return HM_SUCCESS;
}

/* ---- /energy ---- */

/* FNV-1a of the meter names, 30 bits: equal lists on two nodes give equal hashes. */
static int names_hash(const hm_energy_meter *m) {
  unsigned h = 2166136261u;
  for (int i = 0; i < m->count; i++)
    for (const char *c = m->meters[i].name;; c++) {
      h = (h ^ (unsigned char)*c) * 16777619u;
      if (!*c) break;
    }
  return (int)(h & 0x3fffffffu);
}

static int check_phases(int nphases, const char **names) {
  HM_CHECK(nphases >= 0 && (names || nphases == 0), HM_ERR_ARGUMENT, "nphases = %d (>= 0) or phase_names is NULL",
           nphases);
  for (int p = 0; p < nphases; p++) {
    const char *s = names[p];
    HM_CHECK(s && s[0] && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "devices") && strlen(s) < 64,
             HM_ERR_ARGUMENT, "phase name %d ('%s') must be a word of 1..63 characters without '/', not \"devices\"",
             p, s ? s : "(null)");
    for (int q = 0; q < p; q++)
      HM_CHECK(strcmp(s, names[q]), HM_ERR_ARGUMENT, "phase name '%s' is given twice (%d and %d)", s, q, p);
  }
  return HM_SUCCESS;
}

/* What every rank agrees on before writing (identical metadata on every rank). */
typedef struct {
  int nodes, count_min, count_max, same, count; /* count: meters written */
  char kinds[32], note[NOTE_LEN];
  char names[MAX_ZONES][NAME_LEN];
  double *sums; /* [nphases][count] */
} summary;

static int summarise(hm_context *ctx, MPI_Comm node, const hm_energy_meter *m, int nphases, const double *joules,
                     summary *s) {
  int node_rank;
  HM_CALL_MPI(MPI_Comm_rank(node, &node_rank));
  int leader = node_rank == 0, leader0 = leader;
  HM_CALL_MPI(MPI_Bcast(&leader0, 1, MPI_INT, 0, hm_io_comm(ctx)));
  HM_CHECK(leader0, HM_ERR_ARGUMENT, "rank 0 must be rank 0 of its node communicator");
  int h = names_hash(m);
  int mine[4] = {leader ? m->count : INT_MAX, leader ? -m->count : INT_MAX, leader ? h : INT_MAX, leader ? -h : INT_MAX};
  int all[4];
  HM_CALL_MPI(MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MIN, hm_io_comm(ctx)));
  HM_CALL_MPI(MPI_Allreduce(&leader, &s->nodes, 1, MPI_INT, MPI_SUM, hm_io_comm(ctx)));
  s->count_min = all[0];
  s->count_max = -all[1];
  s->same = all[0] == -all[1] && all[2] == -all[3];
  s->count = s->same ? s->count_max : 1;
  if (s->count_max == 0) s->count = 0;
  /* Names, kinds and note of rank 0's node. */
  if (hm_io_rank(ctx) == 0) {
    int gpu = 0, cpu = 0;
    for (int i = 0; i < m->count && i < MAX_ZONES; i++) {
      snprintf(s->names[i], NAME_LEN, "%s", m->meters[i].name);
      gpu |= m->meters[i].is_gpu;
      cpu |= !m->meters[i].is_gpu;
    }
    snprintf(s->kinds, sizeof s->kinds, "%s", gpu && cpu ? "nvml, rapl" : gpu ? "nvml" : cpu ? "rapl" : "none");
    snprintf(s->note, NOTE_LEN, "%s", m->note[0] ? m->note : "every source probed gave meters");
  }
  HM_CALL_MPI(MPI_Bcast(s->kinds, sizeof s->kinds, MPI_CHAR, 0, hm_io_comm(ctx)));
  HM_CALL_MPI(MPI_Bcast(s->note, NOTE_LEN, MPI_CHAR, 0, hm_io_comm(ctx)));
  if (s->same && s->count) HM_CALL_MPI(MPI_Bcast(s->names, s->count * NAME_LEN, MPI_CHAR, 0, hm_io_comm(ctx)));
  if (!s->same) {
    snprintf(s->kinds, sizeof s->kinds, "mixed");
    snprintf(s->names[0], NAME_LEN, "all meters of all nodes");
  }
  /* Per phase, meter by meter (same meters) or one total per node (mixed), summed over nodes. */
  size_t n = (size_t)nphases * (size_t)(s->count ? s->count : 1);
  double *part;
  HM_MALLOC(s->sums, n); /* freed by the caller */
  HM_MALLOC(part, n);
  for (int p = 0; leader && s->count && p < nphases; p++)
    for (int i = 0; i < m->count; i++) {
      size_t to = s->same ? (size_t)p * (size_t)s->count + (size_t)i : (size_t)p;
      part[to] += joules[(size_t)p * (size_t)m->count + (size_t)i];
    }
  /* n = phases x meters (at most MAX_ZONES + GPUs): small, an int. */
  int st = MPI_Allreduce(part, s->sums, (int)n, MPI_DOUBLE, MPI_SUM, hm_io_comm(ctx));
  free(part);
  HM_CHECK(st == MPI_SUCCESS, HM_ERR_MPI, "MPI_Allreduce of the phase energies failed");
  return HM_SUCCESS;
}

/* /energy/devices: fixed-length strings, rank 0's buffer written collectively (others select none). */
static int write_devices(hm_context *ctx, hid_t g, const summary *s) {
  size_t width = 1;
  for (int i = 0; i < s->count; i++)
    if (strlen(s->names[i]) + 1 > width) width = strlen(s->names[i]) + 1;
  char *buf;
  HM_MALLOC(buf, (size_t)s->count * width);
  for (int i = 0; i < s->count; i++) memcpy(buf + (size_t)i * width, s->names[i], strlen(s->names[i]));
  int st = HM_SUCCESS;
  hsize_t dims[1] = {(hsize_t)s->count};
  hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID, dset = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;
  hid_t mspace = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, type = H5Tcopy(H5T_C_S1));
  HM_H5_GOTO(st, done, H5Tset_size(type, width));
  HM_H5_GOTO(st, done, H5Tset_strpad(type, H5T_STR_NULLTERM));
  HM_H5_GOTO(st, done, space = H5Screate_simple(1, dims, NULL));
  HM_H5_GOTO(st, done, mspace = H5Scopy(space));
  HM_H5_GOTO(st, done, dset = H5Dcreate2(g, "devices", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (hm_io_rank(ctx) != 0) {
    HM_H5_GOTO(st, done, H5Sselect_none(space));
    HM_H5_GOTO(st, done, H5Sselect_none(mspace));
  }
  HM_H5_GOTO(st, done, dxpl = H5Pcreate(H5P_DATASET_XFER));
  HM_H5_GOTO(st, done, H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  HM_H5_GOTO(st, done, H5Dwrite(dset, type, mspace, space, dxpl, buf));
  HM_CALL_GOTO(st, done, hm_h5_attr_string(dset, "unit", "none"));
  HM_CALL_GOTO(st, done, hm_h5_attr_string(dset, "description", "energy meters, in the order of the phase datasets"));
done:
  if (dxpl >= 0) H5Pclose(dxpl);
  if (dset >= 0) H5Dclose(dset);
  if (mspace >= 0) H5Sclose(mspace);
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  free(buf);
  return st;
}

static int write_group(hm_context *ctx, hid_t g, const summary *s, int nphases, const char **phase_names) {
  char text[NOTE_LEN + 256];
  size_t n = 0;
  text[0] = '\0';
  for (int p = 0; p < nphases && n < sizeof text; p++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", p ? " " : "", phase_names[p]);
  HM_CALL(hm_h5_attr_string(g, "meters", s->count ? s->kinds : "none"));
  HM_CALL(hm_h5_attr_int(g, "nodes", s->nodes));
  HM_CALL(hm_h5_attr_string(g, "phases", text));
  HM_CALL(hm_h5_attr_string(g, "probe", s->note));
  if (s->count == 0)
    snprintf(text, sizeof text, "no energy meter readable on %s (NVML absent or unsupported, RAPL unreadable); "
             "the probe attribute says what was tried on rank 0's node", s->nodes > 1 ? "any node" : "this node");
  else if (s->same && s->nodes == 1)
    snprintf(text, sizeof text, "energy per phase in J: /energy/<phase>[i] is meter /energy/devices[i], read by "
             "the node's first rank");
  else if (s->same)
    snprintf(text, sizeof text, "energy per phase in J: /energy/<phase>[i] is meter /energy/devices[i] read by "
             "the first rank of each node, summed over the %d nodes (all have these meters)", s->nodes);
  else
    snprintf(text, sizeof text, "energy per phase in J: the nodes differ in their meters (%d to %d per node), "
             "so /energy/<phase> holds one total, all meters of all %d nodes", s->count_min, s->count_max, s->nodes);
  HM_CALL(hm_h5_attr_string(g, "description", text));
  if (s->count == 0) return HM_SUCCESS;
  HM_CALL(write_devices(ctx, g, s));
  hsize_t dims[1] = {(hsize_t)s->count};
  for (int p = 0; p < nphases; p++) {
    snprintf(text, sizeof text, "energy of phase '%s' per meter, summed over nodes", phase_names[p]);
    HM_CALL(hm_h5_write_small(ctx, g, phase_names[p], 1, dims, s->sums + (size_t)p * s->count, "J", text));
  }
  return HM_SUCCESS;
}

int hm_energy_write_nodes(hm_output *out, MPI_Comm node, hm_energy_meter *m, int nphases, const char **phase_names,
                          const double *joules) {
  HM_CHECK(out && out->file >= 0, HM_ERR_ARGUMENT, "out is NULL or closed");
  HM_CHECK(m, HM_ERR_ARGUMENT, "m is NULL (hm_energy_open gives a meter set, possibly empty)");
  HM_CHECK(joules || m->count == 0 || nphases == 0, HM_ERR_ARGUMENT, "joules is NULL");
  HM_CALL(check_phases(nphases, phase_names));
  htri_t exists;
  HM_CALL_HDF5(exists = H5Lexists(out->file, "energy", H5P_DEFAULT));
  HM_CHECK(!exists, HM_ERR_ARGUMENT, "/energy is already in the output file; write it once");
  summary *s;
  HM_MALLOC(s, 1);
  hid_t g = H5I_INVALID_HID;
  int st = summarise(out->ctx, node, m, nphases, joules, s);
  if (!st) st = hm_h5_group(out->file, "/energy", &g);
  if (!st) st = write_group(out->ctx, g, s, nphases, phase_names);
  if (g >= 0) H5Gclose(g);
  free(s->sums);
  free(s);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_energy_write(hm_output *out, hm_energy_meter *m, int nphases, const char **phase_names,
                    const double *joules) {
  HM_CHECK(out && out->ctx, HM_ERR_ARGUMENT, "out is NULL");
  MPI_Comm node;
  HM_CALL_MPI(MPI_Comm_split_type(hm_io_comm(out->ctx), MPI_COMM_TYPE_SHARED, hm_io_rank(out->ctx), MPI_INFO_NULL, &node));
  int st = hm_energy_write_nodes(out, node, m, nphases, phase_names, joules);
  MPI_Comm_free(&node);
  HM_CALL(st);
  return HM_SUCCESS;
}
