/*
 * The extension interface for layers over DART (include/dash/dart/ext/
 * dartx.h). Kept small on purpose: it calls the segment resolver
 * (dart_segment.h) and the progress poke (transport/progress.h), nothing
 * else of DART's internals.
 */
#include <dash/dart/ext/dartx.h>

#include "dart_log.h"
#include "dart_mpi.h"
#include "globmem/dart_segment.h"
#include "transport/progress.h"

dart_ret_t dartx_gptr_mapped(dart_gptr_t gptr, size_t nbytes, void **addr)
{
  if (addr == NULL) {
    DART_LOG_ERROR("addr is NULL");
    return DART_ERR_INVAL;
  }
  *addr = NULL;
  if (!dart__g.initialized) {
    DART_LOG_ERROR("DART is not initialized");
    return DART_ERR_NOTINIT;
  }
  dart__target_t t;
  dart_ret_t ret = dart__segment_resolve(__func__, gptr, nbytes, &t);
  if (ret != DART_OK) return ret;
  *addr = t.local;
  return DART_OK;
}

void dartx_progress(void)
{
  if (dart__g.initialized) dart__progress_poke();
}
