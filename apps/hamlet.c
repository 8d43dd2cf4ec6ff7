/* hamlet: the end-user program. Subcommands:
 *   hamlet run DECK [-o OUT.h5] [--quiet]       solve the deck (KPM DOS, LOBPCG, dense, IDR(s) / Green's functions)
 *   hamlet restart CHECKPOINT.h5 [-o OUT.h5]    continue a checkpointed run to the same result
 *   hamlet compare A.h5 B.h5 [--rtol R] [--atol A] [--only /PATH,...]   dataset by dataset; exit 0 equal, 1 different
 *   hamlet plot OUT.h5 [-o dos.png] [--window EMIN EMAX]   plot the DOS (or sigma) with its error band
 *   hamlet post OUT.h5 [--energies ..] [--temperatures ..] [--kernel ..] [-o NEW.h5]   sigma anew from stored moments
 *   hamlet export DECK -o H.mtx|H.h5            the deck's Hamiltonian (and mass) as Matrix Market or HDF5
 *   hamlet structure tbg M R -o FILE.xyz        a twisted bilayer graphene cell for model = structure
 *   hamlet info                                 backends compiled in, GPUs and energy meters each rank sees
 *   hamlet help deck [SECTION|--markdown]      every deck key: type, allowed values, default, when it applies
 *   hamlet --version                            version and build configuration
 * Run under mpiexec with any rank count (compare and plot work on rank 0). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "app.h"
#include "build_info.h"
#include "compare.h"
#include "deck_schema.h"
#include "stop.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: hamlet run DECK.ini [-o OUT.h5] [--quiet]\n"
          "       hamlet restart CHECKPOINT.h5 [-o OUT.h5] [--quiet]\n"
          "       hamlet compare A.h5 B.h5 [--rtol R] [--atol A] [--only /PATH,...]\n"
          "       hamlet plot OUT.h5 [-o dos.png] [--window EMIN EMAX]\n"
          "       hamlet post OUT.h5 [--energies Emin Emax count] [--temperatures T1,T2,...] [--kernel K] [-o NEW.h5]\n"
          "       hamlet export DECK.ini -o H.mtx|H.h5 [--velocity x,y,z]\n"
          "       hamlet structure tbg M R -o FILE.xyz [--a A] [--distance D] [--vacuum C]\n"
          "       hamlet info\n"
          "       hamlet help deck [SECTION | --markdown]\n"
          "       hamlet --version\n");
}

static int parse_double(const char *s, const char *flag, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  if (errno || *end || end == s || !(*v >= 0)) {
    fprintf(stderr, "hamlet: %s %s: must be a number >= 0\n", flag, s);
    return 0;
  }
  return 1;
}

static int cmd_compare(int argc, char **argv, int rank) {
  const char *a = NULL, *b = NULL;
  double rtol = 1e-10, atol = 1e-12;
  const char *only = NULL;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--rtol") && i + 1 < argc) { if (!parse_double(argv[++i], "--rtol", &rtol)) return HM_EXIT_USAGE; }
    else if (!strcmp(argv[i], "--atol") && i + 1 < argc) { if (!parse_double(argv[++i], "--atol", &atol)) return HM_EXIT_USAGE; }
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!a) a = argv[i];
    else if (!b) b = argv[i];
    else { if (rank == 0) usage(stderr); return HM_EXIT_USAGE; }
  }
  if (!a || !b) { if (rank == 0) usage(stderr); return HM_EXIT_USAGE; }
  int code = HM_EXIT_OK;
  if (rank == 0) {
    int equal = 0;
    if (hm_compare_files_only(a, b, rtol, atol, only, stdout, &equal)) {
      fprintf(stderr, "%s", hm_error_message());
      code = HM_EXIT_USAGE;
    } else {
      code = equal ? HM_EXIT_OK : HM_EXIT_FAIL;
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

/* The plot script: $HAMLET_PLOT_SCRIPT, else the one an installed hamlet has beside it
 * (bin/../share/hamlet/plot_dos.py), else the source tree's (a build tree's hamlet). */
static const char *plot_script(char *buf, size_t size) {
  if (getenv("HAMLET_PLOT_SCRIPT")) return getenv("HAMLET_PLOT_SCRIPT");
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(buf, size, "%s/../share/hamlet/plot_dos.py", exe);
    if (access(buf, R_OK) == 0) return buf;
  }
  return HAMLET_PLOT_SCRIPT;
}

/* The plot is drawn by tools/plot_dos.py with Debian's python3 (h5py, matplotlib). */
static int cmd_plot(int argc, char **argv, int rank) {
  const char *in = NULL, *out = "dos.png", *window[2] = {NULL, NULL};
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--window") && i + 2 < argc) window[0] = argv[++i], window[1] = argv[++i];
    else if (!in) in = argv[i];
    else { if (rank == 0) usage(stderr); return HM_EXIT_USAGE; }
  }
  if (!in) { if (rank == 0) usage(stderr); return HM_EXIT_USAGE; }
  int code = HM_EXIT_OK;
  if (rank == 0) {
    char buf[4200];
    const char *script = plot_script(buf, sizeof buf);
    pid_t pid = fork();
    if (pid == 0) {
      if (window[0]) execl("/usr/bin/python3", "python3", script, in, "-o", out, "--window", window[0], window[1], (char *)NULL);
      else execl("/usr/bin/python3", "python3", script, in, "-o", out, (char *)NULL);
      fprintf(stderr, "hamlet plot: cannot run /usr/bin/python3 %s: %s\n", script, strerror(errno));
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) code = HM_EXIT_FAIL;
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

static int cmd_run(int argc, char **argv, int rank, int restart) {
  hm_run_args args = {0};
  const char *path = NULL;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) args.output = argv[++i];
    else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) args.quiet = 1;
    else if (!path && argv[i][0] != '-') path = argv[i];
    else {
      if (rank == 0) { fprintf(stderr, "hamlet: unexpected argument '%s'\n", argv[i]); usage(stderr); }
      return HM_EXIT_USAGE;
    }
  }
  if (!path) { if (rank == 0) usage(stderr); return HM_EXIT_USAGE; }
  if (restart) args.checkpoint_path = path;
  else args.deck_path = path;
  return hm_app_run(&args);
}

/* hamlet export DECK -o H.mtx: the deck's model built as a run builds it, written instead of solved. */
static int cmd_export(int argc, char **argv, int rank) {
  hm_run_args args = {.export_only = 1, .quiet = 1};
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) args.output = argv[++i];
    else if (!strcmp(argv[i], "--velocity") && i + 1 < argc) {
      for (const char *p = argv[++i]; *p; p++) {
        if (*p == ',') continue;
        if (*p < 'x' || *p > 'z') {
          if (rank == 0) fprintf(stderr, "hamlet export: --velocity %s: a list of x, y, z (e.g. x,y)\n", argv[i]);
          return HM_EXIT_USAGE;
        }
        args.export_velocity |= 1 << (*p - 'x');
      }
    } else if (!args.deck_path && argv[i][0] != '-') args.deck_path = argv[i];
    else {
      if (rank == 0) fprintf(stderr, "hamlet export: unexpected argument '%s'\n", argv[i]);
      return HM_EXIT_USAGE;
    }
  }
  const size_t n = args.output ? strlen(args.output) : 0;
  if (!args.deck_path || n < 4 || (strcmp(args.output + n - 4, ".mtx") && strcmp(args.output + n - 3, ".h5"))) {
    if (rank == 0)
      fprintf(stderr, "hamlet export: usage: hamlet export DECK.ini -o H.mtx|H.h5 [--velocity x,y,z] (-o's name ends "
              "in .mtx: Matrix Market files; in .h5: one HDF5 file)\n");
    return HM_EXIT_USAGE;
  }
  return hm_app_run(&args);
}

/* hamlet help deck [SECTION | --markdown]: the deck reference from the schema (io/deck_reference.c). */
static int cmd_help(int argc, char **argv, int rank) {
  if (strcmp(argv[2], "deck") || argc > 4) {
    if (rank == 0) {
      fprintf(stderr, "hamlet help: unknown topic '%s' (allowed: hamlet help deck [SECTION | --markdown])\n", argv[2]);
      usage(stderr);
    }
    return HM_EXIT_USAGE;
  }
  const char *what = argc > 3 ? argv[3] : NULL;
  int section = -1;
  if (what && strcmp(what, "--markdown")) {
    section = hm_deck_section_find(what);
    if (section < 0) {
      if (rank == 0) {
        fprintf(stderr, "hamlet help deck: unknown section '%s' (allowed:", what);
        for (int s = 0; hm_deck_sections[s]; s++) fprintf(stderr, " %s", hm_deck_sections[s]);
        fprintf(stderr, ")\n");
      }
      return HM_EXIT_USAGE;
    }
  }
  if (rank == 0) {
    if (what && !strcmp(what, "--markdown")) hm_deck_schema_markdown(stdout);
    else if (section >= 0) hm_deck_schema_print_section(stdout, section);
    else hm_deck_schema_print(stdout);
  }
  return HM_EXIT_OK;
}

int main(int argc, char **argv) {
  int code = hm_app_mpi_init(&argc, &argv);
  if (code) return code;
  hm_app_fail_init();
  if (run_stop_install()) fprintf(stderr, "hamlet: cannot catch SIGTERM, SIGINT and SIGUSR1: %s\n", strerror(errno));
  int rank = 0;
  code = HM_EXIT_USAGE;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *cmd = argc > 1 ? argv[1] : "";
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    if (rank == 0) hm_app_print_version(stdout);
    code = HM_EXIT_OK;
  } else if (!strcmp(cmd, "help") && argc > 2) {
    code = cmd_help(argc, argv, rank);
  } else if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (rank == 0) usage(stdout);
    code = HM_EXIT_OK;
  } else if (!strcmp(cmd, "run")) code = cmd_run(argc, argv, rank, 0);
  else if (!strcmp(cmd, "restart")) code = cmd_run(argc, argv, rank, 1);
  else if (!strcmp(cmd, "compare")) code = cmd_compare(argc, argv, rank);
  else if (!strcmp(cmd, "plot")) code = cmd_plot(argc, argv, rank);
  else if (!strcmp(cmd, "post")) code = hm_app_post(argc, argv, rank);
  else if (!strcmp(cmd, "export")) code = cmd_export(argc, argv, rank);
  else if (!strcmp(cmd, "structure")) code = hm_app_structure(argc, argv, rank);
  else if (!strcmp(cmd, "info")) code = hm_app_info(argc, argv);
  else if (rank == 0) {
    if (*cmd) fprintf(stderr, "hamlet: unknown subcommand '%s' (allowed: run, restart, compare, plot, post, export, structure, info, help, --version)\n", cmd);
    usage(stderr);
  }
  hm_app_fail_free();
  MPI_Finalize();
  return code;
}
