/* Internal: state of the DART progress thread (progress.c). */
#ifndef DART__ONESIDED_PROGRESS_H
#define DART__ONESIDED_PROGRESS_H

#include <stdbool.h>

#include "dart_log.h"

/* True while the progress thread runs (tests and diagnostics). */
DART__HIDDEN bool dart__progress_active(void);

#endif /* DART__ONESIDED_PROGRESS_H */
