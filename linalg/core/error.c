/* The per-thread error text behind hm_error_message. */
#include <stdio.h>
#include <string.h>
#include "error_macros.h"

enum { HM_ERROR_TEXT_MAX = 8192 };
static _Thread_local char error_text[HM_ERROR_TEXT_MAX];

static void append(const char *fmt, ...) {
  size_t used = strlen(error_text);
  if (used + 1 >= sizeof error_text) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_text + used, sizeof error_text - used, fmt, ap);
  va_end(ap);
}

int hm_error_raise(int code, const char *file, int line, const char *func, const char *fmt, ...) {
  error_text[0] = '\0';
  append("hamlet error %d (%s): ", code, hm_status_string(code));
  size_t used = strlen(error_text);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_text + used, sizeof error_text - used, fmt, ap);
  va_end(ap);
  append("\n  at %s:%d in %s()\n", file, line, func);
  return code;
}

int hm_error_trace(int code, const char *file, int line, const char *func) {
  if (error_text[0] == '\0') append("hamlet error %d (%s)\n", code, hm_status_string(code));
  append("  at %s:%d in %s()\n", file, line, func);
  return code;
}

const char *hm_error_message(void) { return error_text; }

void hm_error_clear(void) { error_text[0] = '\0'; }

const char *hm_status_string(int status) {
#define HM_ERROR_CASE_(name, value, text) \
  case value: return text;
  switch (status) { HM_ERROR_LIST(HM_ERROR_CASE_) }
#undef HM_ERROR_CASE_
  return "unknown status";
}
