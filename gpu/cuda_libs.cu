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

int load_blas() {
  const char *soname = "libcublas.so." HM_CUDA_LIBS_STR(CUBLAS_VER_MAJOR);
  HM_CALL(open_library(soname, &blas_lib));
#define HM_CUDA_LIBS_FIND(f) HM_CALL(find_symbol(blas_lib, soname, HM_CUDA_LIBS_STR(f), (void **)&table.f));
  HM_CUBLAS_FUNCTIONS(HM_CUDA_LIBS_FIND)
#undef HM_CUDA_LIBS_FIND
  blas_ready = true;
  return HM_SUCCESS;
}

int load_solver() {
  const char *soname = "libcusolver.so." HM_CUDA_LIBS_STR(CUSOLVER_VER_MAJOR);
  HM_CALL(open_library(soname, &solver_lib));
#define HM_CUDA_LIBS_FIND(f) HM_CALL(find_symbol(solver_lib, soname, HM_CUDA_LIBS_STR(f), (void **)&table.f));
  HM_CUSOLVER_FUNCTIONS(HM_CUDA_LIBS_FIND)
#undef HM_CUDA_LIBS_FIND
  solver_ready = true;
  return HM_SUCCESS;
}

} // namespace

const hm_cuda_libs *hm_cuda_blas() { return blas_ready || load_blas() == HM_SUCCESS ? &table : nullptr; }

const hm_cuda_libs *hm_cuda_solver() { return solver_ready || load_solver() == HM_SUCCESS ? &table : nullptr; }
