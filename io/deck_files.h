/* The files a deck names: every input it reads (the schema's file keys and the files they imply),
 * so that no output ever overwrites one (apps/paths.c), and relative names resolved once. */
#ifndef HAMLET_DECK_FILES_H
#define HAMLET_DECK_FILES_H
#include "deck.h"

enum { HM_DECK_MAX_INPUTS = 32 };

typedef struct {
  char role[HM_PATH_MAX + 192]; /* "[hamiltonian] lattice_file (deck.ini:7)": what the file is and where it is named */
  char path[HM_PATH_MAX];       /* as the readers open it */
} hm_deck_input;

/* The deck's input files: the value of every file key of the schema that applies, is not empty
 * and is not written by the run (HM_KEY_WRITTEN), then the files those imply (a Wannier90 model's
 * seedname_wsvec.dat) and the start state of [evolution] start = file PATH. Returns how many were
 * stored in in[0..max). */
int hm_deck_inputs(const hm_deck *deck, hm_deck_input *in, int max);
/* Every input file key's relative name that is not found from the working directory but is found
 * from the deck's directory is replaced by that path (decks in inputs/ find inputs/lattices/). */
void hm_deck_resolve_inputs(hm_deck *deck);
#endif
