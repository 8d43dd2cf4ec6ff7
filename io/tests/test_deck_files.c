/* The deck's input files: every file key of the schema is either written by the run or listed as an
 * input that no output may overwrite (so a new file key cannot be forgotten), keys that do not apply
 * or are empty are not listed, each listed input names its key and line, and a Wannier90 model
 * implies its seedname_wsvec.dat when that file exists. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testing.h"
#include "deck.h"
#include "deck_files.h"
#include "deck_schema.h"

static hm_deck probe_deck;

/* A deck where every key applies and only key i names a file (on line 5). */
static int probe(int i, hm_deck_input *in) {
  hm_deck *d = &probe_deck;
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "probe.ini");
  memset(d->key_applies, 1, sizeof d->key_applies);
  d->key_line[i] = 5;
  snprintf((char *)d + hm_deck_keys[i].offset, hm_deck_keys[i].size, "probe_file");
  return hm_deck_inputs(d, in, HM_DECK_MAX_INPUTS);
}

static void test_every_file_key(void) {
  static hm_deck_input in[HM_DECK_MAX_INPUTS];
  int files = 0, written = 0;
  for (int i = 0; i < hm_deck_nkeys; i++) {
    const hm_deck_key *k = &hm_deck_keys[i];
    if (!hm_deck_key_is_file(k)) continue;
    files++;
    HM_TEST_ASSERT(k->offset != HM_KEY_NO_FIELD && k->size >= 256, "[%s] %s names a file but has no room for a path",
                   k->section, k->key);
    if (k->offset == HM_KEY_NO_FIELD) continue;
    const int n = probe(i, in);
    if (k->flags & HM_KEY_WRITTEN) {
      written++;
      HM_TEST_ASSERT(n == 0, "[%s] %s is written by the run but listed as an input", k->section, k->key);
      continue;
    }
    char key[128];
    snprintf(key, sizeof key, "[%s] %s (probe.ini:5)", k->section, k->key);
    HM_TEST_ASSERT(n == 1 && !strcmp(in[0].path, "probe_file") && strstr(in[0].role, key),
                   "[%s] %s is neither written by the run nor protected as an input (%d listed, role '%s')",
                   k->section, k->key, n, n ? in[0].role : "");
    /* the same key not applying, or empty, names no file */
    probe_deck.key_applies[i] = 0;
    HM_TEST_ASSERT(hm_deck_inputs(&probe_deck, in, HM_DECK_MAX_INPUTS) == 0, "[%s] %s listed where it does not apply",
                   k->section, k->key);
    probe_deck.key_applies[i] = 1;
    ((char *)&probe_deck + k->offset)[0] = '\0';
    HM_TEST_ASSERT(hm_deck_inputs(&probe_deck, in, HM_DECK_MAX_INPUTS) == 0, "[%s] %s listed while empty", k->section,
                   k->key);
  }
  /* the run writes its output and its checkpoint: both must be marked, or an input could be taken for one */
  HM_TEST_ASSERT(written == 2, "%d file keys are marked written; the run writes [run] output and checkpoint", written);
  HM_TEST_ASSERT(files > written, "no input file keys found");
}

static int parse(const char *text, hm_deck *d) { return hm_deck_parse_string(text, "dir/model.ini", d); }

/* A parsed lattice deck lists its lattice_file and centres with their lines, not its output. */
static void test_parsed_deck(void) {
  static hm_deck d;
  static hm_deck_input in[HM_DECK_MAX_INPUTS];
  HM_TEST_OK(parse("[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = m_hr.dat\nnx = 2\nny = 2\n"
                   "nz = 1\ncentres = m_centres.xyz\n", &d));
  HM_TEST_ASSERT(hm_deck_line(&d, "hamiltonian", "centres") == 9 && hm_deck_line(&d, "run", "output") == 2 &&
                 hm_deck_line(&d, "hamiltonian", "a1") == 0, "key lines %d %d %d",
                 hm_deck_line(&d, "hamiltonian", "centres"), hm_deck_line(&d, "run", "output"),
                 hm_deck_line(&d, "hamiltonian", "a1"));
  const int n = hm_deck_inputs(&d, in, HM_DECK_MAX_INPUTS);
  HM_TEST_ASSERT(n == 2, "%d inputs listed, expected lattice_file and centres", n);
  if (n == 2) {
    HM_TEST_ASSERT(!strcmp(in[0].path, "m_hr.dat") && strstr(in[0].role, "[hamiltonian] lattice_file (dir/model.ini:5)"),
                   "%s: %s", in[0].role, in[0].path);
    HM_TEST_ASSERT(!strcmp(in[1].path, "m_centres.xyz") && strstr(in[1].role, "[hamiltonian] centres (dir/model.ini:9)"),
                   "%s: %s", in[1].role, in[1].path);
  }
  hm_deck_free(&d);
  /* model = ti reads no file */
  HM_TEST_OK(parse("[hamiltonian]\nmodel = ti\nnx = 2\nny = 2\nnz = 2\n", &d));
  HM_TEST_ASSERT(hm_deck_inputs(&d, in, HM_DECK_MAX_INPUTS) == 0, "model = ti lists an input");
  hm_deck_free(&d);
}

/* seedname_hr.dat and seedname_tb.dat imply seedname_wsvec.dat where it exists; hamlet's format does not. */
static void test_implied_wsvec(void) {
  static hm_deck d;
  static hm_deck_input in[HM_DECK_MAX_INPUTS];
  char dir[] = "/tmp/hamlet-deck-files.XXXXXX", deck[512], wsvec[512];
  HM_TEST_ASSERT(mkdtemp(dir), "mkdtemp");
  snprintf(wsvec, sizeof wsvec, "%s/m_wsvec.dat", dir);
  static const struct {
    const char *file, *format;
    int wsvec_exists, implied;
  } cases[] = {{"m_hr.dat", "auto", 1, 1}, {"m_tb.dat", "auto", 1, 1}, {"m_hr.dat", "wannier90_hr", 1, 1},
               {"m_hr.dat", "auto", 0, 0}, {"m_hr.dat", "hamlet", 1, 0},    {"m.lattice", "auto", 1, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    if (cases[c].wsvec_exists) {
      FILE *f = fopen(wsvec, "w");
      if (f) fclose(f);
    } else {
      remove(wsvec);
    }
    snprintf(deck, sizeof deck, "[hamiltonian]\nmodel = lattice\nlattice_file = %s/%s\nlattice_format = %s\nnx = 1\n"
             "ny = 1\nnz = 1\n", dir, cases[c].file, cases[c].format);
    HM_TEST_OK(parse(deck, &d));
    const int n = hm_deck_inputs(&d, in, HM_DECK_MAX_INPUTS);
    HM_TEST_ASSERT(n == 1 + cases[c].implied, "%s (%s, wsvec %s): %d inputs", cases[c].file, cases[c].format,
                   cases[c].wsvec_exists ? "present" : "absent", n);
    if (n == 2)
      HM_TEST_ASSERT(!strcmp(in[1].path, wsvec) && strstr(in[1].role, "_wsvec.dat") &&
                     strstr(in[1].role, "[hamiltonian] lattice_file (dir/model.ini:3)"), "%s: %s", in[1].role,
                     in[1].path);
    hm_deck_free(&d);
  }
  remove(wsvec);
  rmdir(dir);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  test_every_file_key();
  test_parsed_deck();
  test_implied_wsvec();
  return hm_test_finish();
}
