/* The files a deck names. The schema knows which keys name files (hm_deck_key_is_file) and which
 * of those the run writes (HM_KEY_WRITTEN); everything else it names is an input, so a new file key
 * is protected without being listed here. Inputs a deck implies without a file key (a Wannier90
 * model's _wsvec.dat, [evolution] start = file PATH) come from one function, implied_inputs. */
#define _DEFAULT_SOURCE
#include <string.h>
#include <unistd.h>
#include "deck_files.h"
#include "deck_schema.h"

static char *field(hm_deck *deck, const hm_deck_key *k) { return (char *)deck + k->offset; }

/* A word of a file key's `words` (wsvec = auto | none) names no file. */
static int is_word(const hm_deck_key *k, const char *value) {
  for (int w = 0; w < HM_KEY_MAX_WORDS && k->words[w]; w++)
    if (!strcmp(k->words[w], value)) return 1;
  return 0;
}

static int is_input_key(const hm_deck *deck, int i) {
  const hm_deck_key *k = &hm_deck_keys[i];
  return hm_deck_key_is_file(k) && !(k->flags & HM_KEY_WRITTEN) && k->offset != HM_KEY_NO_FIELD &&
         deck->key_applies[i] && field((hm_deck *)deck, k)[0] && !is_word(k, field((hm_deck *)deck, k));
}

/* "[hamiltonian] lattice_file (deck.ini:7)", or without the line where the key was not given. */
static void key_role(const hm_deck *deck, int i, const char *prefix, char *role, size_t len) {
  const hm_deck_key *k = &hm_deck_keys[i];
  if (deck->key_line[i])
    snprintf(role, len, "%s[%s] %s (%s:%d)", prefix, k->section, k->key, deck->name, deck->key_line[i]);
  else
    snprintf(role, len, "%s[%s] %s", prefix, k->section, k->key);
}

static int ends_with(const char *s, const char *tail) {
  const size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

/* A Wannier90 model's seedname_wsvec.dat, where it exists and wsvec = auto. */
static int implied_wsvec(const hm_deck *deck, hm_deck_input *in, int max) {
  const int file = hm_deck_key_find("hamiltonian", "lattice_file");
  const char *model = deck->lattice.file;
  const int wannier90 = deck->lattice.format == 2 || deck->lattice.format == 3 || deck->lattice.format == 0;
  if (max < 1 || !is_input_key(deck, file) || !wannier90 || strcmp(deck->lattice.wsvec, "auto")) return 0;
  if (!ends_with(model, "_hr.dat") && !ends_with(model, "_tb.dat")) return 0;
  char wsvec[HM_PATH_MAX];
  const int seed = (int)strlen(model) - (int)strlen("_hr.dat");
  if (snprintf(wsvec, sizeof wsvec, "%.*s_wsvec.dat", seed, model) >= (int)sizeof wsvec || access(wsvec, F_OK))
    return 0;
  key_role(deck, file, "Wannier90 _wsvec.dat beside ", in[0].role, sizeof in[0].role);
  snprintf(in[0].path, sizeof in[0].path, "%s", wsvec);
  return 1;
}

/* [evolution] start = file PATH names its file inside the start's text. */
static int start_file_input(const hm_deck *deck) {
  return deck->solver.method == HM_METHOD_EVOLUTION && deck->evolution.start_kind == HM_START_FILE &&
         deck->key_applies[hm_deck_key_find("evolution", "start")];
}

/* Files a deck reads without a file key naming them: the start state of [evolution] start = file PATH;
 * beside a Wannier90 seedname_hr.dat or seedname_tb.dat, its seedname_wsvec.dat when it exists and
 * wsvec = auto (the Wigner-Seitz images). */
static int implied_inputs(const hm_deck *deck, hm_deck_input *in, int max) {
  if (max >= 1 && start_file_input(deck)) {
    key_role(deck, hm_deck_key_find("evolution", "start"), "", in[0].role, sizeof in[0].role);
    snprintf(in[0].path, sizeof in[0].path, "%s", deck->evolution.start_file);
    return 1 + implied_wsvec(deck, in + 1, max - 1);
  }
  return implied_wsvec(deck, in, max);
}

int hm_deck_inputs(const hm_deck *deck, hm_deck_input *in, int max) {
  int n = 0;
  for (int i = 0; i < hm_deck_nkeys && n < max; i++) {
    if (!is_input_key(deck, i)) continue;
    key_role(deck, i, "", in[n].role, sizeof in[n].role);
    snprintf(in[n].path, sizeof in[n].path, "%s", field((hm_deck *)deck, &hm_deck_keys[i]));
    n++;
  }
  return n + implied_inputs(deck, in + n, max - n);
}

void hm_deck_resolve_inputs(hm_deck *deck) {
  const char *slash = strrchr(deck->name, '/');
  if (!slash) return;
  for (int i = 0; i < hm_deck_nkeys; i++) {
    if (!is_input_key(deck, i)) continue;
    char *path = field(deck, &hm_deck_keys[i]), joined[2 * HM_PATH_MAX];
    if (path[0] == '/' || access(path, F_OK) == 0) continue;
    snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - deck->name), deck->name, path);
    if (access(joined, F_OK) == 0 && strlen(joined) < hm_deck_keys[i].size) memcpy(path, joined, strlen(joined) + 1);
  }
  char *start = deck->evolution.start_file, joined[2 * HM_PATH_MAX];
  if (!start_file_input(deck) || start[0] == '/' || access(start, F_OK) == 0) return;
  snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - deck->name), deck->name, start);
  if (access(joined, F_OK) == 0 && strlen(joined) < sizeof deck->evolution.start_file)
    memcpy(start, joined, strlen(joined) + 1);
}
