// The lazy loader of cuda_libs.h: the soname of the toolkit built against (its major version), first
// on the loader's path, then in the toolkit's library folder.
#include <dlfcn.h>
#include <cstdio>
#include "cuda_libs.h"
#include "error_macros.h"

#define HM_CUDA_LIBS_STR2(x) #x
#define HM_CUDA_LIBS_STR(x) HM_CUDA_LIBS_STR2(x)

namespace {

hm_cuda_libs table;
void *blas_lib = nullptr, *solver_lib = nullptr;
bool blas_ready = false, solver_ready = false;

int open_library(const char *soname, void **lib) {
  if (*lib) return HM_SUCCESS;
  *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
#ifdef HAMLET_CUDA_LIBRARY_DIR
  if (!*lib) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", HAMLET_CUDA_LIBRARY_DIR, soname);
    *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
#endif
  HM_CHECK(*lib, HM_ERR_CUDA, "cannot open %s, which the CUDA backend needs: %s", soname, dlerror());
  return HM_SUCCESS;
}

int find_symbol(void *lib, const char *soname, const char *name, void **fn) {
  *fn = dlsym(lib, name);
  HM_CHECK(*fn, HM_ERR_CUDA, "%s has no %s: a library of another CUDA version on the path?", soname, name);
  return HM_SUCCESS;
}

/* Opens soname once and fills slots[i] with its names[i]; *ready once every name resolved. */
int load(const char *soname, void **lib, const char *const *names, void **const *slots, int count, bool *ready) {
  HM_CALL(open_library(soname, lib));
  for (int i = 0; i < count; i++) HM_CALL(find_symbol(*lib, soname, names[i], slots[i]));
  *ready = true;
  return HM_SUCCESS;
}

#define HM_CUDA_LIBS_NAME(f) HM_CUDA_LIBS_STR(f),
#define HM_CUDA_LIBS_SLOT(f) (void **)&table.f,
const char *const blas_names[] = {HM_CUBLAS_FUNCTIONS(HM_CUDA_LIBS_NAME)};
void **const blas_slots[] = {HM_CUBLAS_FUNCTIONS(HM_CUDA_LIBS_SLOT)};
const char *const solver_names[] = {HM_CUSOLVER_FUNCTIONS(HM_CUDA_LIBS_NAME)};
void **const solver_slots[] = {HM_CUSOLVER_FUNCTIONS(HM_CUDA_LIBS_SLOT)};
#undef HM_CUDA_LIBS_NAME
#undef HM_CUDA_LIBS_SLOT

} // namespace

const hm_cuda_libs *hm_cuda_blas() {
  const int count = sizeof blas_names / sizeof *blas_names;
  return blas_ready || load("libcublas.so." HM_CUDA_LIBS_STR(CUBLAS_VER_MAJOR), &blas_lib, blas_names, blas_slots,
                            count, &blas_ready) == HM_SUCCESS
             ? &table
             : nullptr;
}

const hm_cuda_libs *hm_cuda_solver() {
  const int count = sizeof solver_names / sizeof *solver_names;
  return solver_ready || load("libcusolver.so." HM_CUDA_LIBS_STR(CUSOLVER_VER_MAJOR), &solver_lib, solver_names,
                              solver_slots, count, &solver_ready) == HM_SUCCESS
             ? &table
             : nullptr;
}

void *hm_cuda_solver_optional(const char *name) { return hm_cuda_solver() ? dlsym(solver_lib, name) : nullptr; }
