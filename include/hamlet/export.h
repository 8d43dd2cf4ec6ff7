/* HM_API marks the functions of the public API: the only symbols libhamlet.so exports (the library
 * is compiled with hidden visibility, so everything else stays internal to it). */
#ifndef HAMLET_EXPORT_H
#define HAMLET_EXPORT_H
#if defined(__GNUC__) || defined(__clang__)
#define HM_API __attribute__((visibility("default")))
#else
#define HM_API
#endif
#endif
