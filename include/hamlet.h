/* hamlet: spectra of large sparse Hamiltonians. The whole public C API. */
#ifndef HAMLET_H
#define HAMLET_H
#include "hamlet/export.h"
#include "hamlet/error.h"
#include "hamlet/context.h"
#include "hamlet/dist.h"
#include "hamlet/mvec.h"
#include "hamlet/matrix.h"
#include "hamlet/operator.h"
#include "hamlet/kpm.h"
#include "hamlet/dos.h"
#include "hamlet/ldos.h"
#include "hamlet/spectral.h"
#include "hamlet/conductivity.h"
#include "hamlet/marker.h"
#include "hamlet/lobpcg.h"
#include "hamlet/interior.h"
#include "hamlet/idr.h"
#include "hamlet/dense.h"
#include "hamlet/stencil.h"
#include "hamlet/ti.h"
#include "hamlet/mtx.h"
#include "hamlet/convdiff.h"
#include "hamlet/fem.h"
#include "hamlet/output.h"
#include "hamlet/checkpoint.h"
#include "hamlet/evolution.h"

#ifdef __cplusplus
extern "C" {
#endif
/* "0.1.0 (git 1234abcd)" */
HM_API const char *hm_version(void);
#ifdef __cplusplus
}
#endif
#endif
