/* The deck reference printed from the schema: `hamlet help deck [SECTION]` and the Markdown page
 * docs/guide/deck.md (a test regenerates that page and compares, so the page cannot drift). */
#include <ctype.h>
#include <string.h>
#include "deck_schema.h"

enum { WRAP = 100 }; /* text columns of the help paragraphs (Markdown lines stay under 120) */

int hm_deck_section_find(const char *name) {
  size_t n = strlen(name);
  if (n >= 2 && name[0] == '[' && name[n - 1] == ']') name++, n -= 2;
  for (int s = 0; hm_deck_sections[s]; s++)
    if (strlen(hm_deck_sections[s]) == n && !strncmp(hm_deck_sections[s], name, n)) return s;
  return -1;
}

/* "one of: auto, cpu; required; default "auto"; only when backend = mixed" */
static void key_summary(const hm_deck_key *k, int markdown, char *buf, size_t len) {
  char cond[160];
  hm_deck_key_allowed(k, buf, len);
  size_t used = strlen(buf);
  if (k->need == HM_KEY_REQUIRED) used += snprintf(buf + used, used < len ? len - used : 0, "; required");
  if (k->def && used < len)
    used += snprintf(buf + used, len - used, markdown ? "; default `%s`" : "; default \"%s\"",
                     *k->def ? k->def : (markdown ? "\"\"" : ""));
  if (k->when_key && used < len) {
    hm_deck_key_condition(k, cond, sizeof cond);
    snprintf(buf + used, len - used, "; %s when %s", k->need == HM_KEY_REQUIRED_WHEN ? "required" : "only", cond);
  }
}

/* Markdown would read * _ < | ` \ in the schema's plain text as markup: escape them (an underscore
 * inside a word is plain text in Markdown, so only one that starts a word). */
static size_t markdown_escape(const char *in, char *out, size_t len) {
  size_t o = 0;
  for (const char *p = in; *p && o + 6 < len; p++) {
    const int word_start = *p == '_' && (p == in || !isalnum((unsigned char)p[-1]));
    if (*p == '<') o += (size_t)snprintf(out + o, len - o, "&lt;");
    else if (strchr("*|`\\", *p) || word_start) out[o++] = '\\', out[o++] = *p;
    else out[o++] = *p;
  }
  out[o] = '\0';
  return o;
}

/* A word that would start a list or heading at the start of a Markdown line stays on the line before. */
static int sticky(const char *w, size_t n) {
  if (n == 1 && strchr("-+=#", *w)) return 1;
  size_t d = 0;
  while (d < n && isdigit((unsigned char)w[d])) d++;
  return d && d + 1 == n && (w[d] == '.' || w[d] == ')');
}

/* `text` in lines of at most WRAP columns, broken at spaces; lines after the first start with `indent`. */
static void print_wrapped(FILE *f, const char *text, int first_column, const char *indent) {
  int column = first_column, at_start = 1;
  for (const char *p = text; *p;) {
    const size_t n = strcspn(p, " ");
    if (n) {
      if (!at_start && column + 1 + (int)n > WRAP && !sticky(p, n)) {
        fprintf(f, "\n%s", indent);
        column = (int)strlen(indent);
        at_start = 1;
      }
      if (!at_start) fputc(' ', f), column++;
      fprintf(f, "%.*s", (int)n, p);
      column += (int)n;
      at_start = 0;
    }
    p += n;
    while (*p == ' ') p++;
  }
  fputc('\n', f);
}

void hm_deck_schema_print_section(FILE *f, int s) {
  fprintf(f, "[%s]\n", hm_deck_sections[s]);
  for (int i = 0; i < hm_deck_nkeys; i++) {
    const hm_deck_key *k = &hm_deck_keys[i];
    if (strcmp(k->section, hm_deck_sections[s])) continue;
    char summary[512];
    key_summary(k, 0, summary, sizeof summary);
    fprintf(f, "  %-20s", k->key);
    if (strlen(k->key) >= 20) fprintf(f, "\n  %-20s", "");
    print_wrapped(f, k->help, 22, "                      ");
    fprintf(f, "  %-20s", "");
    print_wrapped(f, summary, 22, "                      ");
  }
}

void hm_deck_schema_print(FILE *f) {
  for (int s = 0; hm_deck_sections[s]; s++) {
    if (s) fputc('\n', f);
    hm_deck_schema_print_section(f, s);
  }
}

void hm_deck_schema_markdown(FILE *f) {
  fprintf(f, "# Deck reference\n\n"
             "Every key of a deck, section by section, as `hamlet help deck [SECTION]` prints it: what it means,\n"
             "its type and allowed values, its default and when it applies. This page is generated from the\n"
             "schema in io/deck_schema.c (`hamlet help deck --markdown`); the test `deck_reference_page`\n"
             "fails when it differs from the schema. How decks work: [decks.md](decks.md).\n");
  for (int s = 0; hm_deck_sections[s]; s++) {
    fprintf(f, "\n## [%s]\n\n", hm_deck_sections[s]);
    for (int i = 0; i < hm_deck_nkeys; i++) {
      const hm_deck_key *k = &hm_deck_keys[i];
      if (strcmp(k->section, hm_deck_sections[s])) continue;
      char summary[512], help[2048], escaped[1024];
      key_summary(k, 1, summary, sizeof summary);
      markdown_escape(k->help, help, sizeof help);
      char line[6144]; /* room for every part at its largest: no truncation */
      /* the summary's own words escaped, its default kept as code */
      const char *tick = strstr(summary, "; default `");
      if (tick) {
        const char *end = strchr(tick + 11, '`');
        char before[512];
        snprintf(before, sizeof before, "%.*s", (int)(tick - summary), summary);
        markdown_escape(before, escaped, sizeof escaped);
        char after[512];
        markdown_escape(end ? end + 1 : "", after, sizeof after);
        snprintf(line, sizeof line, "- **%s**: %s%.*s%s. %s", k->key, escaped, (int)(end ? end + 1 - tick : 0), tick,
                 after, help);
      } else {
        markdown_escape(summary, escaped, sizeof escaped);
        snprintf(line, sizeof line, "- **%s**: %s. %s", k->key, escaped, help);
      }
      print_wrapped(f, line, 0, "  ");
    }
  }
}
