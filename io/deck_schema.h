/* The deck schema: one table of every section and key (type, allowed range or words, default,
 * when it applies, help). Validation, defaults, error messages and the printed reference all
 * read this table, so a key is described in exactly one place. */
#ifndef HAMLET_DECK_SCHEMA_H
#define HAMLET_DECK_SCHEMA_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "deck.h"

typedef enum {
  HM_KEY_WORD,      /* one word of `words` */
  HM_KEY_WORD_LIST, /* exactly `count` words, each of `words` (boundary: x y z) */
  HM_KEY_WORD_SET,  /* distinct words of `words` OR-ed together; the word of value 0 stands alone */
  HM_KEY_STRING,    /* a file name */
  HM_KEY_INT,       /* plain decimal integer */
  HM_KEY_UINT64,    /* plain decimal integer in [0, 2^64) */
  HM_KEY_DOUBLE     /* finite decimal number */
} hm_key_type;

typedef enum { HM_KEY_OPTIONAL = 0, HM_KEY_REQUIRED = 1, HM_KEY_REQUIRED_WHEN = 2 } hm_key_need;

enum { HM_KEY_MAX_WORDS = 12, HM_KEY_NO_FIELD = -1 };
#define HM_KEY_MIN_OPEN 1u  /* value > min instead of >= min */
#define HM_KEY_EVEN 2u      /* integer must be even */
#define HM_KEY_NONEMPTY 4u  /* string must not be empty */
#define HM_KEY_TEXT 8u      /* string is not a file name but text the key's description explains */
#define HM_KEY_WRITTEN 16u  /* a file name the run writes (output, checkpoint); every other file key is an input */

typedef struct {
  const char *section, *key;
  hm_key_type type;
  const char *words[HM_KEY_MAX_WORDS + 1]; /* NULL-terminated */
  int values[HM_KEY_MAX_WORDS];            /* stored value of each word */
  int count;                               /* HM_KEY_WORD_LIST: number of words */
  int has_min, has_max;
  double min, max;
  unsigned flags;
  const char *def;       /* default as deck text; NULL = none (field keeps the library default) */
  hm_key_need need;
  /* The key applies only when key `when_key` (of the same section, or "section.key") has word
   * `when_word` (HM_KEY_WORD: equal; HM_KEY_WORD_SET: contains) or, with when_word NULL, is > 0,
   * and that key applies itself (conditions chain). */
  const char *when_key, *when_word;
  ptrdiff_t offset; /* into hm_deck, or HM_KEY_NO_FIELD */
  size_t size;      /* bytes of that field (ints: 4 or 8) */
  const char *help;
} hm_deck_key;

/* A parsed value: integers, word values and word-set masks in i, unsigned in u, numbers in d;
 * word lists in w; strings stay in the caller's text. */
typedef struct {
  int64_t i;
  uint64_t u;
  double d;
  int w[HM_KEY_MAX_WORDS];
} hm_key_value;

extern const hm_deck_key hm_deck_keys[];
extern const int hm_deck_nkeys;
extern const char *const hm_deck_sections[]; /* NULL-terminated, in deck order */

/* Index of (section, key) in hm_deck_keys, or -1. */
int hm_deck_key_find(const char *section, const char *key);
/* 1 when key k names a file: a string that is neither text (HM_KEY_TEXT) nor a list of numbers (a range).
 * Every such key without HM_KEY_WRITTEN is an input the run must never overwrite (apps/paths.c). */
int hm_deck_key_is_file(const hm_deck_key *k);
/* Index of the key that key k's condition reads, or -1 for a key that always applies. */
int hm_deck_key_when(const hm_deck_key *k);
/* "an even integer in [2, 100000000]", "one of: auto, cpu, cuda", ... */
void hm_deck_key_allowed(const hm_deck_key *k, char *buf, size_t len);
/* 1 when x lies in key k's range (or k has none); also for the numbers of a list key. */
int hm_deck_key_in_range(const hm_deck_key *k, double x);
/* Parse `text` as key k's value. 0 = ok; else a reason (without the allowed part) in why. */
int hm_deck_key_parse(const hm_deck_key *k, const char *text, hm_key_value *v, char *why, size_t len);
/* Store a parsed value into its hm_deck field (no-op for HM_KEY_NO_FIELD). Strings: `text`. */
int hm_deck_key_store(const hm_deck_key *k, const hm_key_value *v, const char *text, hm_deck *deck);
/* The value of word `word` of key k, or -1. */
int hm_deck_key_word_value(const hm_deck_key *k, const char *word);
/* When key k applies: "kernel = lorentz", "potential includes dots", "energies > 0". */
void hm_deck_key_condition(const hm_deck_key *k, char *buf, size_t len);
/* The reference of every key (io/deck_reference.c): plain text for `hamlet help deck`, all sections or
 * section `s` (an index of hm_deck_sections; -1 = all), or the Markdown page docs/guide/deck.md. */
int hm_deck_section_find(const char *name); /* "run" or "[run]" -> its index, or -1 */
void hm_deck_schema_print(FILE *f);
void hm_deck_schema_print_section(FILE *f, int s);
void hm_deck_schema_markdown(FILE *f);
#endif
