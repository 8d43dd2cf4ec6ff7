/* Input decks (INI, parsed with libinih) validated against one schema (io/deck_schema.c):
 * unknown key, wrong type, out-of-range value, missing required key or conflicting options is
 * an HM_ERR_DECK error naming file, line, section, key and what is allowed. */
#ifndef HAMLET_DECK_H
#define HAMLET_DECK_H
#include "hamlet.h"

enum { HM_PATH_MAX = 4096 };

typedef struct {
  char name[HM_PATH_MAX]; /* file the text came from (for messages) */
  char *text;             /* the whole deck text (malloc'd), stored in every output */
  /* [run] */
  hm_backend backend;
  char output[HM_PATH_MAX];      /* default "hamlet.h5" */
  char checkpoint[HM_PATH_MAX];  /* "" = <output without .h5>_checkpoint.h5 */
  int checkpoint_every;          /* moment pairs; 0 = off */
  double checkpoint_seconds;     /* 0 = off */
  /* [hamiltonian] model = ti */
  hm_ti_params ti;
  /* [kpm] */
  hm_kpm_options kpm;
  hm_dos_options dos;
} hm_deck;

/* Parse and validate deck text; `name` is used in messages. Not collective. */
int hm_deck_parse_string(const char *text, const char *name, hm_deck *deck);
/* Read a file and parse it (reads on every caller; apps read on rank 0 and broadcast the text). */
int hm_deck_read_file(const char *path, char **text);
void hm_deck_free(hm_deck *deck);
/* The checkpoint file name the run uses (deck's, or derived from output). */
void hm_deck_checkpoint_path(const hm_deck *deck, char *path, size_t len);
#endif
