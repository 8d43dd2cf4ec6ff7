/* Energy meters against hand-made counters: a fake RAPL powercap tree (HAMLET_RAPL_ROOT) and a fake
 * NVML library (HAMLET_NVML_LIB = argv[1], built from fake_nvml.c), so joules, differences,
 * wrap-around, unreadable zones and absent or broken NVML are checked against numbers worked out
 * by hand. Then /energy written on every rank and read back with the plain HDF5 C API: the "none"
 * case, one node (only its first rank counts), every rank its own node (sum over nodes), and nodes
 * with different meters (one total). Readings are compared to 1e-12 J: differences of integer
 * counters times 1e-6 or 1e-3, exact but for rounding. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ftw.h>
#include <sys/stat.h>
#include "energy.h"
#include "test_output_util.h"

static const double TOL = 1e-12;
static char tmp_root[256];
static int rank, size;

static void put(const char *dir, const char *file, const char *text) {
  char path[512];
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "w");
  HM_TEST_ASSERT(f != NULL, "cannot write %s", path);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* root/<zone>/{name, max_energy_range_uj, energy_uj}; NULL leaves a file out. */
static void zone(const char *root, const char *zone, const char *name, const char *range, const char *energy) {
  char dir[512];
  mkdir(root, 0755);
  snprintf(dir, sizeof dir, "%s/%s", root, zone);
  mkdir(dir, 0755);
  if (name) put(dir, "name", name);
  if (range) put(dir, "max_energy_range_uj", range);
  if (energy) put(dir, "energy_uj", energy);
}

static void set_energy(const char *root, const char *z, unsigned long long uj) {
  char dir[512], text[64];
  snprintf(dir, sizeof dir, "%s/%s", root, z);
  snprintf(text, sizeof text, "%llu\n", uj);
  put(dir, "energy_uj", text);
}

static hm_energy_meter *open_with(const char *rapl_root, const char *nvml_lib) {
  setenv("HAMLET_RAPL_ROOT", rapl_root, 1);
  setenv("HAMLET_NVML_LIB", nvml_lib, 1);
  hm_energy_meter *m = NULL;
  HM_TEST_OK(hm_energy_open(&m));
  return m;
}

static int count_of(hm_energy_meter *m) {
  int n = -1;
  HM_TEST_OK(hm_energy_count(m, &n));
  return n;
}

static void expect_name(hm_energy_meter *m, int i, const char *want) {
  char name[128] = "";
  HM_TEST_OK(hm_energy_name(m, i, name, sizeof name));
  HM_TEST_ASSERT(strcmp(name, want) == 0, "meter %d is '%s', expected '%s'", i, name, want);
}

static void expect_joules(const double *got, const double *want, int n, const char *what) {
  for (int i = 0; i < n; i++) {
    int ok = isnan(want[i]) ? isnan(got[i]) : fabs(got[i] - want[i]) <= TOL;
    HM_TEST_ASSERT(ok, "%s: meter %d reads %.15g J, expected %.15g J", what, i, got[i], want[i]);
  }
}

static void expect_note(hm_energy_meter *m, const char *needle) {
  const char *note = hm_energy_probe_note(m);
  HM_TEST_ASSERT(strstr(note, needle), "the probe note lacks '%s': %s", needle, note);
}

/* No RAPL tree, no NVML library: no meter, no error, and the note says why. */
static void test_nothing(void) {
  char absent[300];
  snprintf(absent, sizeof absent, "%s/absent", tmp_root);
  hm_energy_meter *m = open_with(absent, "libhamlet-no-such-nvml.so");
  HM_TEST_ASSERT(m && count_of(m) == 0, "meters found where there are none");
  expect_note(m, "libhamlet-no-such-nvml.so");
  expect_note(m, "absent");
  HM_TEST_OK(hm_energy_read(m, NULL));
  HM_TEST_OK(hm_energy_poll(m));
  HM_TEST_FAILS(hm_energy_name(m, 0, (char[8]){0}, 8), HM_ERR_ARGUMENT, "does not exist");
  hm_energy_close(&m);
  HM_TEST_ASSERT(m == NULL, "close did not null the handle");
  /* A library without NVML's symbols is no NVML either. */
  m = open_with(absent, "libm.so.6");
  HM_TEST_ASSERT(count_of(m) == 0, "libm.so.6 taken for NVML");
  expect_note(m, "nvmlInit_v2 missing");
  hm_energy_close(&m);
}

/* Package zones 0, 2 and 10 are readable; sub-zones, psys, mmio and broken zones are not meters. */
static void make_rapl_tree(const char *root) {
  zone(root, "intel-rapl:0", "package-0\n", "1000000\n", "250000\n");
  zone(root, "intel-rapl:0:0", "core\n", "1000000\n", "5\n");
  zone(root, "intel-rapl:1", "psys\n", "1000000\n", "5\n");
  zone(root, "intel-rapl:2", "package-1\n", "262143328850\n", "7\n");
  zone(root, "intel-rapl:10", "package-2\n", "262143328850\n", "5000000\n");
  zone(root, "intel-rapl-mmio:0", "package-0\n", "1000000\n", "5\n");
  zone(root, "intel-rapl:3", "package-3\n", "1000000\n", NULL);     /* no counter */
  zone(root, "intel-rapl:4", "package-4\n", "1000000\n", NULL);     /* counter is a directory */
  char dir[512];
  snprintf(dir, sizeof dir, "%s/intel-rapl:4/energy_uj", root);
  mkdir(dir, 0755);
  zone(root, "intel-rapl:5", "package-5\n", "1000000\n", "garbage\n"); /* not a number */
  zone(root, "intel-rapl:6", "package-6\n", NULL, "5\n");              /* no range: wraps unknown */
  if (geteuid() != 0) {                                                /* root reads mode 000 anyway */
    zone(root, "intel-rapl:7", "package-7\n", "1000000\n", "5\n");
    snprintf(dir, sizeof dir, "%s/intel-rapl:7/energy_uj", root);
    chmod(dir, 0);
  }
}

static void test_rapl(void) {
  char root[300];
  snprintf(root, sizeof root, "%s/rapl", tmp_root);
  make_rapl_tree(root);
  hm_energy_meter *m = open_with(root, "libhamlet-no-such-nvml.so");
  HM_TEST_ASSERT(count_of(m) == 3, "%d RAPL meters, expected 3 (zones 0, 2, 10)", count_of(m));
  if (count_of(m) != 3) return;
  expect_name(m, 0, "cpu package-0");
  expect_name(m, 1, "cpu package-1");
  expect_name(m, 2, "cpu package-2");
  expect_note(m, "intel-rapl:3/energy_uj: No such file");
  expect_note(m, "intel-rapl:4/energy_uj: Is a directory");
  expect_note(m, "intel-rapl:5/energy_uj: Invalid argument");
  expect_note(m, "intel-rapl:6/max_energy_range_uj: No such file");
  if (geteuid() != 0) expect_note(m, "intel-rapl:7/energy_uj: Permission denied");

  double j[3], start[3], phase[3] = {1, 1, 1};
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){0, 0, 0}, 3, "first read");
  set_energy(root, "intel-rapl:0", 750000);
  set_energy(root, "intel-rapl:2", 7 + 1234567);
  set_energy(root, "intel-rapl:10", 7500000);
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){0.5, 1.234567, 2.5}, 3, "after counting");
  /* 750000 -> 100000 on a 1000000 range: wrapped, 250000 + 100000 uJ more. */
  set_energy(root, "intel-rapl:0", 100000);
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){0.85, 1.234567, 2.5}, 3, "after a wrap");
  /* A phase: what the counters gained since start, added to what the phase had. */
  HM_TEST_OK(hm_energy_read(m, start));
  set_energy(root, "intel-rapl:0", 300000);
  HM_TEST_OK(hm_energy_add_since(m, start, phase));
  expect_joules(phase, (double[]){1.2, 1, 1}, 3, "phase sum");
  /* Polls within a second are skipped: 300000 -> 900000 -> 400000 looks like +0.1 J. */
  HM_TEST_OK(hm_energy_read(m, j));
  set_energy(root, "intel-rapl:0", 900000);
  HM_TEST_OK(hm_energy_poll(m));
  set_energy(root, "intel-rapl:0", 400000);
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){1.15, 1.234567, 2.5}, 3, "poll within a second");
  /* A poll a second later sees 900000, so the drop to 300000 is a wrap: +0.5, then +0.4. */
  set_energy(root, "intel-rapl:0", 900000);
  usleep(1100000);
  HM_TEST_OK(hm_energy_poll(m));
  set_energy(root, "intel-rapl:0", 300000);
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){2.05, 1.234567, 2.5}, 3, "poll that keeps a wrap");
  /* A counter that disappears reads NaN from then on, even when it comes back. */
  char path[512];
  snprintf(path, sizeof path, "%s/intel-rapl:2/energy_uj", root);
  unlink(path);
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){2.05, NAN, 2.5}, 3, "lost counter");
  set_energy(root, "intel-rapl:2", 99);
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){2.05, NAN, 2.5}, 3, "lost counter back");
  hm_energy_close(&m);
}

static void test_nvml(const char *lib) {
  char absent[300];
  snprintf(absent, sizeof absent, "%s/absent", tmp_root);
  void *keep = dlopen(lib, RTLD_NOW); /* holds the fake's state across hm_energy_close */
  HM_TEST_ASSERT(keep, "cannot load %s: %s", lib, dlerror());
  if (!keep) return;
  int (*live)(void) = (int (*)(void))dlsym(keep, "fake_nvml_live");

  setenv("FAKE_NVML_MJ", "1000,x,2500", 1);
  hm_energy_meter *m = open_with(absent, lib);
  HM_TEST_ASSERT(count_of(m) == 2, "%d GPU meters, expected 2 (gpu1 is NOT_SUPPORTED)", count_of(m));
  expect_note(m, "gpu1: energy counter not supported");
  if (count_of(m) == 2) {
    expect_name(m, 0, "gpu0 Fake GPU 0");
    expect_name(m, 1, "gpu2 Fake GPU 2");
    double j[2];
    HM_TEST_OK(hm_energy_read(m, j));
    expect_joules(j, (double[]){0, 0}, 2, "nvml first read");
    setenv("FAKE_NVML_MJ", "1500,x,4000", 1);
    HM_TEST_OK(hm_energy_read(m, j));
    expect_joules(j, (double[]){0.5, 1.5}, 2, "nvml mJ to J");
    setenv("FAKE_NVML_MJ", "1750,x,e", 1);
    HM_TEST_OK(hm_energy_read(m, j));
    expect_joules(j, (double[]){0.75, NAN}, 2, "nvml failing counter");
  }
  HM_TEST_ASSERT(live() == 1, "NVML initialised %d times while open, expected once", live());
  hm_energy_close(&m);
  HM_TEST_ASSERT(live() == 0, "NVML not shut down by close (%d left)", live());

  /* No supported GPU, or a failing init: no GPU meter, no error, NVML left shut down. */
  setenv("FAKE_NVML_MJ", "x,x", 1);
  m = open_with(absent, lib);
  HM_TEST_ASSERT(count_of(m) == 0 && live() == 0, "unsupported GPUs: %d meters, %d inits left", count_of(m), live());
  hm_energy_close(&m);
  setenv("FAKE_NVML_INIT", "fail", 1);
  setenv("FAKE_NVML_MJ", "1000", 1);
  m = open_with(absent, lib);
  HM_TEST_ASSERT(count_of(m) == 0, "a failed nvmlInit still gave %d meters", count_of(m));
  expect_note(m, "nvmlInit_v2 failed");
  hm_energy_close(&m);
  unsetenv("FAKE_NVML_INIT");

  /* GPUs and CPU packages together: GPUs first. */
  char root[300];
  snprintf(root, sizeof root, "%s/rapl_gpu", tmp_root);
  zone(root, "intel-rapl:0", "package-0\n", "1000000\n", "10\n");
  setenv("FAKE_NVML_MJ", "7", 1);
  m = open_with(root, lib);
  HM_TEST_ASSERT(count_of(m) == 2, "%d meters, expected gpu0 and package-0", count_of(m));
  if (count_of(m) == 2) {
    expect_name(m, 0, "gpu0 Fake GPU 0");
    expect_name(m, 1, "cpu package-0");
  }
  hm_energy_close(&m);
  dlclose(keep);
}

/* ---- /energy ---- */

static const char *phases[2] = {"build", "moments"};

/* joules[p][i] of a rank: distinct per rank, phase and meter, exact in binary. */
static void fill(double *j, int r, int count) {
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < count; i++) j[p * count + i] = 100.0 * (r + 1) + 10.0 * p + 0.25 * i;
}

static void write_file(hm_context *ctx, const char *path, MPI_Comm node, hm_energy_meter *m, const double *j) {
  hm_output *out = NULL;
  HM_TEST_OK(hm_output_create(ctx, path, &out));
  if (!out) return;
  if (node == MPI_COMM_NULL) HM_TEST_OK(hm_energy_write(out, m, 2, phases, j));
  else HM_TEST_OK(hm_energy_write_nodes(out, node, m, 2, phases, j));
  HM_TEST_OK(hm_output_commit(&out));
}

/* Names of /energy/devices. */
static int read_devices(hid_t f, char names[][128], int max) {
  hid_t d = H5Dopen2(f, "/energy/devices", H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d), t = H5Tcopy(H5T_C_S1);
  int n = (int)H5Sget_simple_extent_npoints(s);
  H5Tset_size(t, 128);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  if (n > max || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) < 0) n = -1;
  H5Tclose(t);
  H5Sclose(s);
  H5Dclose(d);
  return n;
}

/* On rank 0: /energy as expected (meters, nodes, device names, phase values). */
static void check_file(const char *path, const char *meters, int nodes, int count, char names[][128],
                       const double *want) {
  if (rank != 0) return;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  HM_TEST_ASSERT(f >= 0, "cannot open %s", path);
  if (f < 0) return;
  char text[1024];
  t_attr_string(f, "/energy", "meters", text, sizeof text);
  HM_TEST_ASSERT(strcmp(text, meters) == 0, "%s: meters = '%s', expected '%s'", path, text, meters);
  HM_TEST_ASSERT(t_attr_int(f, "/energy", "nodes") == nodes, "%s: nodes = %lld, expected %d", path,
                 t_attr_int(f, "/energy", "nodes"), nodes);
  t_attr_string(f, "/energy", "phases", text, sizeof text);
  HM_TEST_ASSERT(strcmp(text, "build moments") == 0, "%s: phases = '%s'", path, text);
  t_attr_string(f, "/energy", "description", text, sizeof text);
  if (count == 0) {
    HM_TEST_ASSERT(strstr(text, "no energy meter readable"), "%s: description '%s'", path, text);
    HM_TEST_ASSERT(H5Lexists(f, "/energy/build", H5P_DEFAULT) == 0, "%s: numbers without a meter", path);
  } else {
    char got[8][128];
    int n = read_devices(f, got, 8);
    HM_TEST_ASSERT(n == count, "%s: %d devices, expected %d", path, n, count);
    for (int i = 0; i < n && i < count; i++)
      HM_TEST_ASSERT(strcmp(got[i], names[i]) == 0, "%s: device %d '%s', expected '%s'", path, i, got[i], names[i]);
    for (int p = 0; p < 2; p++) {
      char ds[64];
      double v[8];
      snprintf(ds, sizeof ds, "/energy/%s", phases[p]);
      HM_TEST_ASSERT(t_read_doubles(f, ds, v, 8) == count, "%s: %s has the wrong size", path, ds);
      expect_joules(v, want + p * count, count, ds);
      t_attr_string(f, ds, "unit", text, sizeof text);
      HM_TEST_ASSERT(strcmp(text, "J") == 0, "%s: unit '%s'", path, text);
    }
  }
  H5Fclose(f);
}

static void test_write(hm_context *ctx) {
  char path[128], absent[300], root[300], names[2][128] = {"cpu package-0", "cpu package-1"};
  snprintf(absent, sizeof absent, "%s/absent", tmp_root);
  /* No meter anywhere: the file says so. */
  hm_energy_meter *m = open_with(absent, "libhamlet-no-such-nvml.so");
  snprintf(path, sizeof path, "energy_none_np%d.h5", size);
  write_file(ctx, path, MPI_COMM_NULL, m, NULL);
  check_file(path, "none", 1, 0, NULL, NULL);
  double j[4], want[4] = {0, 0, 0, 0};
  hm_energy_close(&m);

  /* Two packages on every rank; all ranks share one node, so only rank 0's numbers count. */
  snprintf(root, sizeof root, "%s/two", tmp_root);
  zone(root, "intel-rapl:0", "package-0\n", "1000000\n", "1\n");
  zone(root, "intel-rapl:1", "package-1\n", "1000000\n", "1\n");
  m = open_with(root, "libhamlet-no-such-nvml.so");
  fill(j, rank, 2);
  fill(want, 0, 2);
  snprintf(path, sizeof path, "energy_node_np%d.h5", size);
  write_file(ctx, path, MPI_COMM_NULL, m, j);
  check_file(path, "rapl", 1, 2, names, want);

  /* Every rank its own node: the file holds the sum over ranks. */
  MPI_Comm own;
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &own);
  for (int k = 0; k < 4; k++) want[k] = 0;
  for (int r = 0; r < size; r++) {
    double jr[4];
    fill(jr, r, 2);
    for (int k = 0; k < 4; k++) want[k] += jr[k];
  }
  snprintf(path, sizeof path, "energy_sum_np%d.h5", size);
  write_file(ctx, path, own, m, j);
  check_file(path, "rapl", size, 2, names, want);

  /* Errors, raised identically on every rank before anything collective. */
  hm_output *out = NULL;
  snprintf(path, sizeof path, "energy_errors_np%d.h5", size);
  HM_TEST_OK(hm_output_create(ctx, path, &out));
  HM_TEST_FAILS(hm_energy_write(out, m, 2, (const char *[]){"a/b", "c"}, j), HM_ERR_ARGUMENT, "without '/'");
  HM_TEST_FAILS(hm_energy_write(out, m, 2, (const char *[]){"a", "a"}, j), HM_ERR_ARGUMENT, "given twice");
  HM_TEST_FAILS(hm_energy_write(out, m, 1, (const char *[]){"devices"}, j), HM_ERR_ARGUMENT, "devices");
  HM_TEST_FAILS(hm_energy_write(out, NULL, 2, phases, j), HM_ERR_ARGUMENT, "m is NULL");
  HM_TEST_OK(hm_energy_write(out, m, 2, phases, j));
  HM_TEST_FAILS(hm_energy_write(out, m, 2, phases, j), HM_ERR_ARGUMENT, "already");
  HM_TEST_OK(hm_output_destroy(&out));
  hm_energy_close(&m);

  /* Nodes with different meters (rank 1 has one package): one total over all meters and nodes. */
  if (size >= 2) {
    snprintf(root, sizeof root, rank == 1 ? "%s/one" : "%s/two", tmp_root);
    if (rank == 1) zone(root, "intel-rapl:0", "package-0\n", "1000000\n", "1\n");
    m = open_with(root, "libhamlet-no-such-nvml.so");
    int count = count_of(m);
    fill(j, rank, count);
    want[0] = want[1] = 0;
    for (int r = 0; r < size; r++) {
      int c = r == 1 ? 1 : 2;
      double jr[4];
      fill(jr, r, c);
      for (int p = 0; p < 2; p++)
        for (int i = 0; i < c; i++) want[p] += jr[p * c + i];
    }
    char total[1][128] = {"all meters of all nodes"};
    snprintf(path, sizeof path, "energy_mixed_np%d.h5", size);
    write_file(ctx, path, own, m, j);
    check_file(path, "mixed", size, 1, total, want);
    hm_energy_close(&m);
  }
  MPI_Comm_free(&own);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st; (void)flag; (void)ftw;
  return remove(path);
}

/* The counter replaced in one step (rename), so the poller never reads a half-written file. */
static void set_energy_atomic(const char *root, const char *z, unsigned long long uj) {
  char path[512], tmp[520], text[64];
  snprintf(path, sizeof path, "%s/%s/energy_uj", root, z);
  snprintf(tmp, sizeof tmp, "%s.new", path);
  snprintf(text, sizeof text, "%llu\n", uj);
  FILE *f = fopen(tmp, "w");
  HM_TEST_ASSERT(f != NULL, "cannot write %s", tmp);
  if (!f) return;
  fputs(text, f);
  fclose(f);
  HM_TEST_ASSERT(rename(tmp, path) == 0, "cannot rename %s", tmp);
}

/* The poller thread sees a counter that climbs and wraps between two reads of the caller:
 * 100000 -> 900000 -> (wrap on a 1000000 range) 300000 is 0.8 + 0.4 J; a caller that read only
 * before and after would count 0.2 J. Then close stops the thread (no hang, no read after free). */
static void test_poller(void) {
  char root[512];
  snprintf(root, sizeof root, "%s/poll", tmp_root);
  zone(root, "intel-rapl:0", "package-0\n", "1000000\n", "100000\n");
  hm_energy_meter *m = open_with(root, "/nonexistent/libnvidia-ml.so");
  HM_TEST_ASSERT(count_of(m) == 1, "one RAPL zone expected, found %d", count_of(m));
  HM_TEST_FAILS(hm_energy_start_polling(m, 0), HM_ERR_ARGUMENT, "allowed (0, 3600]");
  HM_TEST_OK(hm_energy_start_polling(m, 0.02));
  HM_TEST_FAILS(hm_energy_start_polling(m, 0.02), HM_ERR_ARGUMENT, "polled already");
  double j[1];
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){0}, 1, "poller: first read");
  set_energy_atomic(root, "intel-rapl:0", 900000);
  usleep(200000);
  set_energy_atomic(root, "intel-rapl:0", 300000);
  usleep(200000);
  HM_TEST_OK(hm_energy_read(m, j));
  expect_joules(j, (double[]){1.2}, 1, "poller: a wrap between the caller's reads");
  hm_energy_close(&m);
  HM_TEST_ASSERT(m == NULL, "close must null the handle");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  snprintf(tmp_root, sizeof tmp_root, "/tmp/hamlet_energy_%d_XXXXXX", rank);
  HM_TEST_ASSERT(mkdtemp(tmp_root), "cannot make a temporary directory");
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  test_nothing();
  test_rapl();
  test_poller();
  if (argc > 1) test_nvml(argv[1]);
  else HM_TEST_ASSERT(0, "usage: test_energy FAKE_NVML_LIBRARY");
  test_write(ctx);
  hm_context_destroy(&ctx);
  nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return hm_test_finish();
}
