/*
 * Data movement on the MPI path: MPI_Put / MPI_Get and their
 * request-based forms, contiguous or with derived datatypes, chunked
 * above INT_MAX elements.
 */
#include "transport/transport.h"

size_t dart__rma_max_count = INT_MAX;

/* One MPI data-movement call; request-based if req != NULL. */
static dart_ret_t issue(const char *func, bool put, void *buf, int ocount,
                        MPI_Datatype otype, const dart__rma_target_t *t,
                        MPI_Aint disp, int tcount, MPI_Datatype ttype,
                        MPI_Request *req)
{
  MPI_Win win = t->win;
  int rc;
  const char *call;
  if (put && req) {
    call = "MPI_Rput";
    rc = MPI_Rput(buf, ocount, otype, t->unit, disp, tcount, ttype, win, req);
  } else if (put) {
    call = "MPI_Put";
    rc = MPI_Put(buf, ocount, otype, t->unit, disp, tcount, ttype, win);
  } else if (req) {
    call = "MPI_Rget";
    rc = MPI_Rget(buf, ocount, otype, t->unit, disp, tcount, ttype, win, req);
  } else {
    call = "MPI_Get";
    rc = MPI_Get(buf, ocount, otype, t->unit, disp, tcount, ttype, win);
  }
  if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
    dart__mpi_log_error(func, call, rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Count and MPI type of nelem elements laid out as l. */
static size_t mpi_count(const dart__rma_layout_t *l, size_t nelem,
                        MPI_Datatype *ty)
{
  if (l->contiguous) {
    *ty = l->elem;
    return nelem;
  }
  *ty = l->inst;
  return nelem / l->num_elem;
}

dart_ret_t dart__mpi_xfer(const char *func, bool put, void *buf,
                          const dart__rma_target_t *t,
                          const dart__rma_xfer_t *x, MPI_Request *req)
{
  const dart__rma_layout_t *loc = put ? &x->src : &x->dst;
  const dart__rma_layout_t *rem = put ? &x->dst : &x->src;
  if (req != NULL) *req = MPI_REQUEST_NULL;
  MPI_Datatype lt, rt;
  size_t lc = mpi_count(loc, x->nelem, &lt);
  size_t rc = mpi_count(rem, x->nelem, &rt);
  /* MPICH 4.0 completes an MPI_Rget with a derived datatype (either side)
   * before the data is in place: such gets complete by flush instead. */
  if (!put && !dart__rma_xfer_contiguous(x)) req = NULL;
  size_t max = dart__rma_max_count;
  if (__builtin_expect(lc <= max && rc <= max, 1))
    return issue(func, put, buf, (int)lc, lt, t, t->disp, (int)rc, rt, req);
  if (!dart__rma_xfer_contiguous(x)) {
    dart__log(DART__LOG_ERROR, func,
              "non-contiguous transfer of %zu elements exceeds INT_MAX "
              "instances",
              x->nelem);
    return DART_ERR_INVAL;
  }
  /* Contiguous and large: chunks of max elements, flush-completed. */
  size_t esz = loc->base_size;
  for (size_t done = 0; done < x->nelem;) {
    size_t n = x->nelem - done;
    if (n > max) n = max;
    dart_ret_t ret = issue(func, put, (char *)buf + done * esz, (int)n, lt, t,
                           t->disp + (MPI_Aint)(done * esz), (int)n, rt, NULL);
    if (ret != DART_OK) return ret;
    done += n;
  }
  return DART_OK;
}

dart_ret_t dart__mpi_get_word(const char *func, MPI_Win win, int unit,
                              MPI_Aint disp, void *buf, MPI_Datatype type)
{
  int rc = MPI_Get(buf, 1, type, unit, disp, 1, type, win);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Get", rc);
    return DART_ERR_OTHER;
  }
  return dart__flush_target(func, win, unit);
}

int dart__mpi_word_fetch(MPI_Win win, int rank, MPI_Aint disp, uint64_t *out)
{
  static const uint64_t unused = 0;
  return MPI_Fetch_and_op(&unused, out, MPI_UINT64_T, rank, disp, MPI_NO_OP,
                          win);
}

int dart__mpi_word_replace(MPI_Win win, int rank, MPI_Aint disp, uint64_t val)
{
  return MPI_Accumulate(&val, 1, MPI_UINT64_T, rank, disp, 1, MPI_UINT64_T,
                        MPI_REPLACE, win);
}

int dart__mpi_get_bytes(MPI_Win win, int rank, MPI_Aint disp, void *buf,
                        int bytes)
{
  return MPI_Get(buf, bytes, MPI_BYTE, rank, disp, bytes, MPI_BYTE, win);
}

int dart__mpi_flush_win(const char *func, MPI_Win win)
{
  DART__WATCH(func, "MPI_Win_flush_all", DART__WATCH_NONE, DART__WATCH_NONE,
              DART__WATCH_NONE, -1);
  int rc = MPI_Win_flush_all(win);
  dart__watch_end();
  return rc;
}
