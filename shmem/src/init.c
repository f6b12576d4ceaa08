/*
 * Library setup, exit and query: shmem_init[_thread], shmem_finalize,
 * shmem_global_exit, my_pe/n_pes, info_*, query_thread, pe/addr
 * accessible, shmem_ptr/shmem_team_ptr, the deprecated names, and the
 * error reporting every other file uses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dash/dart/ext/dartx.h>
#include <mpi.h>

#include "shmem_internal.h"

SHMEMI_HIDDEN int shmemi_heap_init(void);
SHMEMI_HIDDEN void shmemi_heap_fini(void);

shmemi_state_t shmemi_g = {.my_pe = -1, .n_pes = 0};

static const char *public_name(const char *f)
{
  /* Inside pshmem_x, __func__ reads "pshmem_x": name shmem_x. */
  return strncmp(f, "pshmem_", 7) == 0 ? f + 1 : f;
}

/* The one line "shmem: [PE p] <function>: <message>" on stderr. */
static void log_line(const char *func, const char *fmt, va_list ap)
{
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  fprintf(stderr, "shmem: [PE %d] %s: %s\n", shmemi_g.my_pe, public_name(func),
          buf);
  fflush(stderr);
}

void shmemi_warn(const char *func, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_line(func, fmt, ap);
  va_end(ap);
}

void shmemi_fatal(const char *func, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_line(func, fmt, ap);
  va_end(ap);
  if (dart_initialized()) dart_abort(1);
  exit(1);
}

void shmemi_not_init(const char *func)
{
  shmemi_fatal(func, "called %s shmem_init",
               shmemi_g.finalized ? "after shmem_finalize" : "before");
}

int shmemi_my_pe(void)
{
  return shmemi_g.my_pe;
}
int shmemi_n_pes(void)
{
  return shmemi_g.n_pes;
}

static int init_dart(int requested, const char *fn)
{
  dart_thread_support_level_t lvl = DART_THREAD_SINGLE;
  if (!dart_initialized()) {
    dart_ret_t r = requested == SHMEM_THREAD_MULTIPLE
                       ? dart_init_thread(NULL, NULL, &lvl)
                       : dart_init(NULL, NULL);
    if (r != DART_OK) shmemi_fatal(fn, "dart_init failed (%d)", (int)r);
    shmemi_g.dart_owned = 1;
  } else {
    /* DART (and MPI) started by the application: MPI's level decides. */
    int mpi_lvl = MPI_THREAD_SINGLE;
    if (MPI_Query_thread(&mpi_lvl) == MPI_SUCCESS &&
        mpi_lvl == MPI_THREAD_MULTIPLE)
      lvl = DART_THREAD_MULTIPLE;
  }
  if (requested <= SHMEM_THREAD_SERIALIZED) return requested;
  return lvl == DART_THREAD_MULTIPLE ? SHMEM_THREAD_MULTIPLE
                                     : SHMEM_THREAD_SERIALIZED;
}

static int do_init(int requested, const char *fn)
{
  if (shmemi_g.initialized) return 0;
  if (shmemi_g.finalized)
    shmemi_fatal(fn, "the library cannot be initialized again after "
                     "shmem_finalize");
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
    shmemi_fatal(fn,
                 "requested thread level %d is not a SHMEM_THREAD_* "
                 "value",
                 requested);
  shmemi_g.thread_level = init_dart(requested, fn);
  dart_global_unit_t me;
  size_t n;
  if (dart_myid(&me) != DART_OK || dart_size(&n) != DART_OK)
    shmemi_fatal(fn, "DART does not answer myid/size");
  shmemi_g.my_pe = me.id;
  shmemi_g.n_pes = (int)n;
  if (shmemi_heap_init() != 0) return -1;
  shmemi_ctx_init_default();
  shmemi_g.initialized = 1;
  if (shmemi_team_init() != 0) shmemi_fatal(fn, "team setup failed");
  if (dart_barrier(DART_TEAM_ALL) != DART_OK)
    shmemi_fatal(fn, "initial barrier failed");
  return 0;
}

void shmem_init(void)
{
  if (do_init(SHMEM_THREAD_SINGLE, __func__) != 0)
    shmemi_fatal(__func__, "initialization failed");
}
SHMEMI_ALIAS(shmem_init);

int shmem_init_thread(int requested, int *provided)
{
  if (do_init(requested, __func__) != 0) return -1;
  if (provided != NULL) *provided = shmemi_g.thread_level;
  return 0;
}
SHMEMI_ALIAS(shmem_init_thread);

void start_pes(int npes)
{
  (void)npes;
  shmem_init();
}

/* Profiling control: no levels of its own (tools intercept it). */
void shmem_pcontrol(const int level, ...)
{
  (void)level;
}
SHMEMI_ALIAS(shmem_pcontrol);

void shmem_query_thread(int *provided)
{
  shmemi_check_init(__func__);
  if (provided == NULL) shmemi_fatal(__func__, "provided is NULL");
  *provided = shmemi_g.thread_level;
}
SHMEMI_ALIAS(shmem_query_thread);

void shmem_finalize(void)
{
  if (!shmemi_g.initialized) return;
  shmemi_quiet_all();
  dart_barrier(DART_TEAM_ALL);
  shmemi_team_fini();
  shmemi_ctx_fini_all();
  shmemi_heap_fini();
  shmemi_g.initialized = 0;
  shmemi_g.finalized = 1;
  if (shmemi_g.dart_owned) dart_exit();
}
SHMEMI_ALIAS(shmem_finalize);

void shmem_global_exit(int status)
{
  fflush(stdout);
  fflush(stderr);
  if (dart_initialized()) dart_abort(status);
  exit(status);
}
SHMEMI_ALIAS(shmem_global_exit);

int shmem_my_pe(void)
{
  shmemi_check_init(__func__);
  return shmemi_g.my_pe;
}
SHMEMI_ALIAS(shmem_my_pe);

int shmem_n_pes(void)
{
  shmemi_check_init(__func__);
  return shmemi_g.n_pes;
}
SHMEMI_ALIAS(shmem_n_pes);

int _my_pe(void)
{
  return shmem_my_pe();
}
int _num_pes(void)
{
  return shmem_n_pes();
}

void shmem_info_get_version(int *major, int *minor)
{
  if (major == NULL || minor == NULL)
    shmemi_fatal(__func__, "major (%p) or minor (%p) is NULL", (void *)major,
                 (void *)minor);
  *major = SHMEM_MAJOR_VERSION;
  *minor = SHMEM_MINOR_VERSION;
}
SHMEMI_ALIAS(shmem_info_get_version);

void shmem_info_get_name(char *name)
{
  if (name == NULL) shmemi_fatal(__func__, "name is NULL");
  strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
  name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
SHMEMI_ALIAS(shmem_info_get_name);

int shmem_pe_accessible(int pe)
{
  shmemi_check_init(__func__);
  return pe >= 0 && pe < shmemi_g.n_pes;
}
SHMEMI_ALIAS(shmem_pe_accessible);

int shmem_addr_accessible(const void *addr, int pe)
{
  dart_gptr_t g;
  shmemi_check_init(__func__);
  if (pe < 0 || pe >= shmemi_g.n_pes) return 0;
  return shmemi_gptr(addr, pe, &g) == 0;
}
SHMEMI_ALIAS(shmem_addr_accessible);

void *shmem_ptr(const void *dest, int pe)
{
  shmemi_check_init(__func__);
  if (pe < 0 || pe >= shmemi_g.n_pes) {
    shmemi_warn(__func__, "PE %d out of range [0, %d)", pe, shmemi_g.n_pes);
    return NULL;
  }
  return shmemi_local_ptr(dest, pe);
}
SHMEMI_ALIAS(shmem_ptr);

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
  shmemi_check_init(__func__);
  if (team == SHMEM_TEAM_INVALID || !shmemi_team_valid(team)) {
    shmemi_warn(__func__, "invalid or destroyed team %p", (void *)team);
    return NULL;
  }
  int wpe = shmemi_team_world_pe(team, pe);
  if (wpe < 0) {
    shmemi_warn(__func__, "PE %d is not a member of the team", pe);
    return NULL;
  }
  return shmemi_local_ptr(dest, wpe);
}
SHMEMI_ALIAS(shmem_team_ptr);

/* Deprecated cache management: no effect (cache coherent machines). */
void shmem_clear_cache_inv(void) {}
SHMEMI_ALIAS(shmem_clear_cache_inv);
void shmem_set_cache_inv(void) {}
SHMEMI_ALIAS(shmem_set_cache_inv);
void shmem_clear_cache_line_inv(void *dest)
{
  (void)dest;
}
SHMEMI_ALIAS(shmem_clear_cache_line_inv);
void shmem_set_cache_line_inv(void *dest)
{
  (void)dest;
}
SHMEMI_ALIAS(shmem_set_cache_line_inv);
void shmem_udcflush(void) {}
SHMEMI_ALIAS(shmem_udcflush);
void shmem_udcflush_line(void *dest)
{
  (void)dest;
}
SHMEMI_ALIAS(shmem_udcflush_line);
