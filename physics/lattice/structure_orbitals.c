/* The orbitals of a structure's species (`orbitals = C:pz B:s,pz`, `species_onsite = B:3.3 N.s:-1`) and
 * the rows of one cell they give. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "structure.h"

static const char *const orbital_names[] = {"s", "px", "py", "pz"};

const char *hm_orbital_name(int kind) { return kind >= 0 && kind < 4 ? orbital_names[kind] : "?"; }

static int orbital_kind(const char *name) {
  for (int k = 0; k < 4; k++)
    if (!strcmp(name, orbital_names[k])) return k;
  return -1;
}

/* The next space-separated word of *text into word (at most cap - 1 characters); 0 at the end. */
static int next_word(const char **text, char *word, size_t cap, int *too_long) {
  const char *p = *text;
  while (*p && isspace((unsigned char)*p)) p++;
  size_t len = 0;
  while (p[len] && !isspace((unsigned char)p[len])) len++;
  *text = p + len;
  *too_long = len >= cap;
  if (!len || *too_long) return (int)len;
  memcpy(word, p, len);
  word[len] = 0;
  return (int)len;
}

static int valid_species(const char *name) {
  const size_t len = strlen(name);
  return len > 0 && len < HM_SPECIES_LEN && isalpha((unsigned char)name[0]);
}

static int find(const hm_species_orbitals *list, int n, const char *species) { /* its index, or -1 */
  for (int i = 0; i < n; i++)
    if (!strcmp(list[i].species, species)) return i;
  return -1;
}

/* One "SPECIES:ORB,ORB" word appended to list. */
static int parse_orbitals_word(char *word, hm_species_orbitals *list, int *n) {
  char *colon = strchr(word, ':');
  HM_CHECK(colon && colon[1], HM_ERR_INPUT, "orbitals: '%s': want SPECIES:ORB[,ORB...] with ORB one of s px py pz",
           word);
  *colon = 0;
  HM_CHECK(valid_species(word), HM_ERR_INPUT,
           "orbitals: species '%s': want a name of at most %d characters starting with a letter", word,
           HM_SPECIES_LEN - 1);
  HM_CHECK(find(list, *n, word) < 0, HM_ERR_INPUT, "orbitals: species '%s' is listed twice", word);
  hm_species_orbitals *sp = &list[(*n)++];
  memset(sp, 0, sizeof *sp);
  snprintf(sp->species, HM_SPECIES_LEN, "%s", word);
  for (char *name = colon + 1, *end; name; name = end ? end + 1 : NULL) {
    end = strchr(name, ',');
    if (end) *end = 0;
    const int k = orbital_kind(name);
    HM_CHECK(k >= 0, HM_ERR_INPUT, "orbitals: %s's orbital '%s': want one of s px py pz", sp->species, name);
    for (int o = 0; o < sp->count; o++)
      HM_CHECK(sp->kind[o] != k, HM_ERR_INPUT, "orbitals: %s lists %s twice", sp->species, name);
    sp->kind[sp->count++] = k;
  }
  return HM_SUCCESS;
}

/* One "SPECIES:E" or "SPECIES.ORB:E" word added to the list's energies. */
static int parse_onsite_word(char *word, hm_species_orbitals *list, int n) {
  char *colon = strrchr(word, ':');
  HM_CHECK(colon && colon[1], HM_ERR_INPUT, "species_onsite: '%s': want SPECIES:E or SPECIES.ORB:E (eV)", word);
  *colon = 0;
  char *end = NULL;
  errno = 0;
  const double e = strtod(colon + 1, &end);
  HM_CHECK(!*end && errno == 0 && isfinite(e), HM_ERR_INPUT, "species_onsite: %s: '%s' is not an energy", word,
           colon + 1);
  char *dot = strchr(word, '.');
  if (dot) *dot = 0;
  const int at = find(list, n, word);
  HM_CHECK(at >= 0, HM_ERR_INPUT,
           "species_onsite: species '%s' has no orbitals: list it in orbitals (%s:pz for one p_z)", word, word);
  hm_species_orbitals *sp = &list[at];
  const char *orb = dot ? dot + 1 : NULL;
  const int k = orb ? orbital_kind(orb) : -1;
  HM_CHECK(!orb || k >= 0 || !strcmp(orb, "p"), HM_ERR_INPUT,
           "species_onsite: %s's orbital '%s': want one of s px py pz p", word, orb);
  int hit = 0;
  for (int o = 0; o < sp->count; o++) {
    const int kind = sp->kind[o];
    if (!orb || kind == k || (k < 0 && kind != HM_ORBITAL_S)) sp->onsite[o] += e, hit = 1;
  }
  HM_CHECK(hit, HM_ERR_INPUT, "species_onsite: %s has no orbital %s", word, orb);
  return HM_SUCCESS;
}

int hm_species_orbitals_parse(const char *orbitals, const char *onsite, hm_species_orbitals **list, int *n) {
  *list = NULL;
  *n = 0;
  const char *p = orbitals ? orbitals : "";
  int words = 1, too_long = 0;
  for (const char *q = p; *q; q++) words += isspace((unsigned char)*q) != 0;
  hm_species_orbitals *out = calloc((size_t)words + 1, sizeof *out);
  HM_CHECK(out, HM_ERR_MEMORY, "the orbitals of %d species", words);
  char word[128];
  int st = HM_SUCCESS, count = 0;
  while (!st && next_word(&p, word, sizeof word, &too_long))
    st = too_long ? hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "orbitals: a word of %zu or more "
                                   "characters", sizeof word)
                  : parse_orbitals_word(word, out, &count);
  for (p = onsite ? onsite : ""; !st && next_word(&p, word, sizeof word, &too_long);)
    st = too_long ? hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "species_onsite: a word of %zu or "
                                   "more characters", sizeof word)
                  : parse_onsite_word(word, out, count);
  if (st) {
    free(out);
    return st;
  }
  *list = out;
  *n = count;
  return HM_SUCCESS;
}

int hm_structure_rows(const hm_structure *s, const hm_hopping_rule *rule, int64_t *rows, int64_t **atom, int **kind,
                      double **onsite) {
  *rows = 0;
  *atom = NULL, *kind = NULL, *onsite = NULL;
  int64_t n = 0;
  for (int64_t a = 0; a < s->natoms; a++) {
    const int at = rule->nspecies ? find(rule->species, rule->nspecies, s->species[a]) : -1;
    const hm_species_orbitals *sp = at >= 0 ? &rule->species[at] : NULL;
    HM_CHECK(!rule->nspecies || sp, HM_ERR_INPUT,
             "atom %lld (counted from 1) is of species '%s', which orbitals does not list", (long long)a + 1,
             s->species[a]);
    n += sp ? sp->count : 1;
  }
  int64_t *at = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int *k = malloc(sizeof(int) * (size_t)(n + 1));
  double *e = malloc(sizeof(double) * (size_t)(n + 1));
  if (!at || !k || !e) {
    free(at), free(k), free(e);
    return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "the %lld rows of a cell", (long long)n);
  }
  int64_t r = 0;
  for (int64_t a = 0; a < s->natoms; a++) {
    const int which = rule->nspecies ? find(rule->species, rule->nspecies, s->species[a]) : -1;
    const hm_species_orbitals *sp = which >= 0 ? &rule->species[which] : NULL;
    for (int o = 0; o < (sp ? sp->count : 1); o++, r++) {
      at[r] = a;
      k[r] = sp ? sp->kind[o] : HM_ORBITAL_PZ;
      e[r] = rule->onsite + (sp ? sp->onsite[o] : 0);
    }
  }
  *rows = n, *atom = at, *kind = k, *onsite = e;
  return HM_SUCCESS;
}
