/*
 * Capability probe of the MPI underneath (probe.h): the transport's part,
 * the RMA calls the probe issues and judges, the capability record and
 * the paths chosen from it. The scratch windows the probe runs on are the
 * memory layer's (globmem/probe_windows.c), which creates them, opens and
 * closes their epochs and calls in here.
 *
 * At the first dart_init of an MPI session every unit creates two scratch
 * windows on the job's communicator, one with MPI_Win_create over private
 * memory and one with MPI_Win_create_dynamic plus an attachment: the two
 * flavours DART creates over memory it did not get from a shared window
 * (registrations, every unit alone on its node, dart_memalloc growth).
 * On the first it runs each atomic DART issues on the MPI path once,
 * against its right neighbour, reads the result back and compares it with
 * the value the operation must produce. One MPI_Allreduce(MIN) agrees the
 * results, so every unit chooses the same paths. A single unit needs no
 * window between units: it probes nothing and every path is local.
 *
 * Cost: two window creations and frees, six small collectives, once per
 * MPI session (application-owned MPI with many dart_init cycles, as in
 * DASH's test suite, pays it once).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_mpi.h"
#include "transport/osc_list.h"
#include "transport/probe.h"
#include "transport/wait.h"

dart__caps_t dart__caps DART__HIDDEN;

static const char *const cap_name[DART__CAP_COUNT] = {
    [DART__CAP_WIN_SHARED] = "MPI_Win_allocate_shared on a node",
    [DART__CAP_WIN_CREATE] = "MPI_Win_create between units",
    [DART__CAP_WIN_DYNAMIC] = "dynamic window + attach + put",
    [DART__CAP_UNIFIED] = "MPI_WIN_UNIFIED",
    [DART__CAP_ACC_INT] = "4/8-byte int SUM, BAND, fetch-and-op",
    [DART__CAP_CAS] = "4/8-byte compare-and-swap",
    [DART__CAP_ACC_SMALL] = "1/2-byte int accumulate",
    [DART__CAP_ACC_FP] = "float/double SUM, fetch-and-op",
    [DART__CAP_ACC_LDOUBLE] = "long double SUM",
    [DART__CAP_ACC_MINMAX] = "4/8-byte int MIN, MAX, PROD",
    [DART__CAP_GET_MOVES] = "MPI_Rget lands during a collective"};

/* The probe buffer: each unit's is the target of its left neighbour. */
typedef struct {
  int8_t i8[8];   /* [1]: 100 + 27; the others are guards (0x5A)   */
  int16_t i16[4]; /* [1]: 1000 + 234; the others are guards        */
  int32_t sum32;  /* 5 + 7                                          */
  int32_t max32;  /* max(10, 20)                                    */
  int64_t fop64;  /* 40 + 2, fetched 40                             */
  int64_t min64;  /* min(10, -5)                                    */
  int32_t prod32; /* 3 * 7                                          */
  int32_t cas32;  /* 42 -> 77                                       */
  int64_t cas64;  /* 42 -> 77                                       */
  int64_t band64; /* 0xF0F0 & 0x0FF0                                */
  float f;        /* 1.5 + 2.25                                     */
  double d;       /* 1.5 + 2.25                                     */
  double dfop;    /* 0.5 + 2.25, fetched 0.5                        */
  long double ld; /* 1.5 + 2.25                                     */
} probe_buf_t;

static void probe_init(probe_buf_t *b)
{
  memset(b, 0x5A, sizeof *b);
  b->i8[1] = 100;
  b->i16[1] = 1000;
  b->sum32 = 5;
  b->max32 = 10;
  b->fop64 = 40;
  b->min64 = 10;
  b->prod32 = 3;
  b->cas32 = 42;
  b->cas64 = 42;
  b->band64 = 0xF0F0;
  b->f = 1.5f;
  b->d = 1.5;
  b->dfop = 0.5;
  b->ld = 1.5L;
}

/* Operands and fetched values of the origin. */
typedef struct {
  int64_t old64, old_cas64;
  int32_t old_cas32;
  double old_d;
  int rc_ld; /* MPI's answer to the long double accumulate */
  int rc;    /* first failure of any other call            */
} probe_origin_t;

#define PROBE_DISP(field) ((MPI_Aint)offsetof(probe_buf_t, field))

static void acc(probe_origin_t *o, const void *v, MPI_Datatype t, int tgt,
                MPI_Aint disp, MPI_Op op, MPI_Win w)
{
  int rc = MPI_Accumulate(v, 1, t, tgt, disp, 1, t, op, w);
  if (rc != MPI_SUCCESS && o->rc == MPI_SUCCESS) o->rc = rc;
}

/* Issues every probed atomic on the neighbour's buffer; flushes. */
static void probe_issue(probe_origin_t *o, int tgt, MPI_Win w)
{
  static const int8_t v8 = 27;
  static const int16_t v16 = 234;
  static const int32_t v7 = 7, v20 = 20, new32 = 77, cmp32 = 42;
  static const int64_t v2 = 2, vm5 = -5, vband = 0x0FF0, new64 = 77, cmp64 = 42;
  static const float vf = 2.25f;
  static const double vd = 2.25;
  static const long double vld = 2.25L;
  acc(o, &v8, MPI_INT8_T, tgt, PROBE_DISP(i8[1]), MPI_SUM, w);
  acc(o, &v16, MPI_INT16_T, tgt, PROBE_DISP(i16[1]), MPI_SUM, w);
  acc(o, &v7, MPI_INT32_T, tgt, PROBE_DISP(sum32), MPI_SUM, w);
  acc(o, &v20, MPI_INT32_T, tgt, PROBE_DISP(max32), MPI_MAX, w);
  acc(o, &vm5, MPI_INT64_T, tgt, PROBE_DISP(min64), MPI_MIN, w);
  acc(o, &v7, MPI_INT32_T, tgt, PROBE_DISP(prod32), MPI_PROD, w);
  acc(o, &vband, MPI_INT64_T, tgt, PROBE_DISP(band64), MPI_BAND, w);
  acc(o, &vf, MPI_FLOAT, tgt, PROBE_DISP(f), MPI_SUM, w);
  acc(o, &vd, MPI_DOUBLE, tgt, PROBE_DISP(d), MPI_SUM, w);
  int rc = MPI_Fetch_and_op(&v2, &o->old64, MPI_INT64_T, tgt, PROBE_DISP(fop64),
                            MPI_SUM, w);
  if (rc == MPI_SUCCESS)
    rc = MPI_Fetch_and_op(&vd, &o->old_d, MPI_DOUBLE, tgt, PROBE_DISP(dfop),
                          MPI_SUM, w);
  if (rc == MPI_SUCCESS)
    rc = MPI_Compare_and_swap(&new32, &cmp32, &o->old_cas32, MPI_INT32_T, tgt,
                              PROBE_DISP(cas32), w);
  if (rc == MPI_SUCCESS)
    rc = MPI_Compare_and_swap(&new64, &cmp64, &o->old_cas64, MPI_INT64_T, tgt,
                              PROBE_DISP(cas64), w);
  if (rc != MPI_SUCCESS && o->rc == MPI_SUCCESS) o->rc = rc;
  o->rc_ld = MPI_Accumulate(&vld, 1, MPI_LONG_DOUBLE, tgt, PROBE_DISP(ld), 1,
                            MPI_LONG_DOUBLE, MPI_SUM, w);
  rc = MPI_Win_flush(tgt, w);
  if (rc != MPI_SUCCESS && o->rc == MPI_SUCCESS) o->rc = rc;
}

static bool guards_intact(const int8_t *p, size_t n, size_t skip_from,
                          size_t skip_len)
{
  for (size_t i = 0; i < n; i++)
    if ((i < skip_from || i >= skip_from + skip_len) && p[i] != 0x5A)
      return false;
  return true;
}

/* Compares the neighbour's buffer r (read back) with the expected one. */
static void probe_judge(const probe_buf_t *r, const probe_origin_t *o, int *ok)
{
  bool good = o->rc == MPI_SUCCESS;
  ok[DART__CAP_ACC_INT] = good && r->sum32 == 12 && r->fop64 == 42 &&
                          o->old64 == 40 && r->band64 == 0x00F0;
  ok[DART__CAP_CAS] = good && r->cas32 == 77 && o->old_cas32 == 42 &&
                      r->cas64 == 77 && o->old_cas64 == 42;
  ok[DART__CAP_ACC_SMALL] =
      good && r->i8[1] == 127 && r->i16[1] == 1234 &&
      guards_intact(r->i8, sizeof r->i8, 1, 1) &&
      guards_intact((const int8_t *)r->i16, sizeof r->i16, 2, 2);
  ok[DART__CAP_ACC_FP] = good && r->f == 3.75f && r->d == 3.75 &&
                         r->dfop == 2.75 && o->old_d == 0.5;
  ok[DART__CAP_ACC_LDOUBLE] = good && o->rc_ld == MPI_SUCCESS && r->ld == 3.75L;
  ok[DART__CAP_ACC_MINMAX] =
      good && r->max32 == 20 && r->min64 == -5 && r->prod32 == 21;
}

/* The one-sided component of win as the MPI names it ("rdma", "ucx",
 * "pt2pt" with Open MPI, whose window names are "<component> window N";
 * "" when the MPI gives windows no name). */
static void window_component(MPI_Win win, char *out, size_t n)
{
  char name[MPI_MAX_OBJECT_NAME] = "";
  int len = 0;
  out[0] = '\0';
  if (MPI_Win_get_name(win, name, &len) != MPI_SUCCESS) return;
  const char *sp = strstr(name, " window");
  if (sp == NULL || (size_t)(sp - name) >= n) return;
  memcpy(out, name, (size_t)(sp - name));
  out[sp - name] = '\0';
}

/*
 * osc/rdma (Open MPI 4.x) crashes in 8-byte MPI_Compare_and_swap between
 * processes of one node (btl/vader's emulated atomics, open-mpi/ompi#7967,
 * still in 4.1.4): the probe cannot run its atomics there, and DART's
 * atomics on such windows take the lock-word path (atomic.c).
 */
static bool component_crashes_in_cas(const char *osc)
{
  return strcmp(osc, "rdma") == 0;
}

/*
 * Attachment limits per dynamic window that cannot be probed: osc/ucx
 * (Open MPI 4.1) holds at most 32 (OMPI_OSC_UCX_ATTACH_MAX) and the 33rd
 * attach, or the detach after it, kills the process (segmentation fault
 * or abort, raw-MPI check); osc/rdma refuses more than 64 with
 * MPI_ERR_RMA_ATTACH (osc_rdma_max_attach). 0: no limit known.
 */
static int component_attach_limit(const char *osc)
{
  if (strcmp(osc, "ucx") == 0) return 32;
  if (strcmp(osc, "rdma") == 0) return 64;
  return 0;
}

/*
 * osc/ucx (Open MPI 4.1.4) searches its sorted table of attached regions
 * one slot past the end: memory attached above every attached region goes
 * one slot beyond the count and leaves an empty slot inside it, which
 * MPI_Win_free, or a later detach, passes to ucp_mem_unmap (SIGSEGV in
 * ucs_rcache_region_invalidate); memory inserted below an attached region
 * takes the reference count of the slot it shifted, plus one, so its
 * detach keeps it and attaches fail once 32 slots are used (raw-MPI
 * reproducers in docs/design.md). Only attach sequences that end in
 * detaching everything in reverse survive (the dart_memalloc growth's).
 * Registrations, attached and detached in the program's order, must not
 * use such a dynamic window.
 */
static bool component_attach_churn_breaks(const char *osc)
{
  return strcmp(osc, "ucx") == 0;
}

/*
 * osc/ucx (Open MPI 4.1) takes a per-target lock around every atomic and
 * spins for it (sched_yield) without serving the requests of others; its
 * flush needs the target's progress. Contended atomics between nodes then
 * deadlock inside MPI unless a progress thread serves each process
 * (tests/locks at 4 units on simulated nodes, application's MPI_Init at
 * MPI_THREAD_SINGLE: every unit inside MPI_Compare_and_swap or
 * MPI_Win_flush). A hang cannot be probed.
 */
bool dart__caps_atomics_need_progress(void)
{
  return strcmp(dart__caps.osc_create, "ucx") == 0;
}

size_t dart__probe_buf_size(void)
{
  return sizeof(probe_buf_t);
}

void dart__probe_buf_init(void *buf)
{
  probe_init(buf);
}

bool dart__probe_component_crashes_in_cas(const char *osc)
{
  return component_crashes_in_cas(osc);
}

void dart__probe_window_component(MPI_Win win, char *out, size_t n)
{
  window_component(win, out, n);
}

void dart__probe_atomics(MPI_Win w, int tgt, int *ok)
{
  probe_buf_t back;
  probe_origin_t o = {.rc = MPI_SUCCESS};
  probe_issue(&o, tgt, w);
  memset(&back, 0, sizeof back);
  if (MPI_Get(&back, sizeof back, MPI_BYTE, tgt, 0, sizeof back, MPI_BYTE, w) !=
          MPI_SUCCESS ||
      MPI_Win_flush(tgt, w) != MPI_SUCCESS)
    o.rc = MPI_ERR_OTHER;
  probe_judge(&back, &o, ok);
}

int dart__probe_put(MPI_Win w, int tgt, MPI_Aint disp, int64_t v)
{
  int rc = MPI_Put(&v, 1, MPI_INT64_T, tgt, disp, 1, MPI_INT64_T, w);
  return rc == MPI_SUCCESS ? MPI_Win_flush(tgt, w) : rc;
}

/* The paths that follow from the agreed capabilities. */
static void choose_paths(dart__caps_t *c)
{
  bool all = c->cap[DART__CAP_ACC_INT] && c->cap[DART__CAP_CAS] &&
             c->cap[DART__CAP_ACC_SMALL] && c->cap[DART__CAP_ACC_FP] &&
             c->cap[DART__CAP_ACC_LDOUBLE] && c->cap[DART__CAP_ACC_MINMAX];
  if (all)
    c->atomics = DART__ATOMICS_NATIVE;
  else if (c->cap[DART__CAP_ACC_INT] && c->cap[DART__CAP_CAS])
    c->atomics = DART__ATOMICS_RESTRICTED;
  else
    c->atomics = DART__ATOMICS_LOCKED;
  c->attach_limit = component_attach_limit(c->osc_dynamic);
  c->register_dynamic = c->cap[DART__CAP_WIN_DYNAMIC] && c->attach_limit == 0;
  c->register_limited = c->cap[DART__CAP_WIN_DYNAMIC] && c->attach_limit > 0 &&
                        !component_attach_churn_breaks(c->osc_dynamic);
}

/* The reason to name when windows spanning nodes fail: with Open MPI
 * started by the application under Debian's defaults ("osc = ^ucx,pt2pt"),
 * osc/rdma is the only component between nodes, and it needs an RDMA
 * network (docs/multihost.md). A hint only: no path depends on it. */
const char *dart__caps_spanning_hint(void)
{
#ifdef OPEN_MPI
  if (!dart__g.mpi_owned && dart__g.num_nodes > 1 &&
      dart__env.sim_node_size == 0 && getenv("OMPI_MCA_osc") == NULL)
    return "Open MPI was initialized by the application and the units span "
           "nodes: the only one-sided component between nodes is osc/rdma, "
           "which needs an RDMA network (not btl/tcp); set "
           "OMPI_MCA_osc=ucx (or ^rdma) before the application starts";
#endif
  return NULL;
}

/* One line naming what to change when no window over existing memory can
 * be created between units (Open MPI's osc/pt2pt at MPI_THREAD_MULTIPLE,
 * osc/rdma between nodes over TCP). */
static dart_ret_t no_windows(void)
{
  const char *hint = dart__caps_spanning_hint();
  if (hint != NULL) {
    dart__log(DART__LOG_ERROR, "dart_init",
              "the MPI creates no RMA window between the units "
              "(MPI_Win_create and MPI_Win_create_dynamic failed): %s",
              hint);
    return DART_ERR_OTHER;
  }
  int level = dart__g.thread_level;
  dart__log(DART__LOG_ERROR, "dart_init",
            "the MPI creates no RMA window over existing memory at %s "
            "(MPI_Win_create and MPI_Win_create_dynamic failed on every "
            "unit); DART needs one with more than one unit: initialize MPI "
            "below MPI_THREAD_MULTIPLE, or select a one-sided component that "
            "supports it (Open MPI's osc/pt2pt does not: e.g. "
            "OMPI_MCA_osc=ucx,sm)",
            level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                         : "this thread level");
  return DART_ERR_OTHER;
}

dart_ret_t dart__caps_decide(const int *agreed, bool shared)
{
  dart__caps_t *c = &dart__caps;
  for (int i = 0; i < DART__CAP_COUNT; i++) c->cap[i] = agreed[i] != 0;
  c->cap[DART__CAP_WIN_SHARED] = shared;
  choose_paths(c);
  if (c->ran && !c->cap[DART__CAP_WIN_CREATE] && !c->cap[DART__CAP_WIN_DYNAMIC])
    return no_windows();
  c->done = true;
  return DART_OK;
}

void dart__caps_print(FILE *out)
{
  const dart__caps_t *c = &dart__caps;
  static const char *const mode[] = {"native", "restricted", "lock word"};
  fprintf(out, "DART: MPI capabilities (%s):\n",
          c->ran ? "probed, agreed by all units"
                 : "one unit: nothing to probe");
  bool skipped = c->ran && component_crashes_in_cas(c->osc_create);
  for (int i = 0; i < DART__CAP_COUNT; i++)
    fprintf(out, "DART:   %-38s %s\n", cap_name[i],
            skipped && i >= DART__CAP_ACC_INT ? "not run (osc/rdma)"
            : c->cap[i]                       ? "yes"
                                              : "NO");
  fprintf(out, "DART:   window components: create '%s', dynamic '%s'\n",
          c->osc_create, c->osc_dynamic);
  fprintf(out,
          "DART: paths: MPI atomics %s%s; registrations %s (restricted: "
          "native integer set, CAS loops, lock word)\n",
          mode[c->atomics],
          component_crashes_in_cas(c->osc_create)
              ? " (lock word on osc/rdma windows)"
              : "",
          c->register_dynamic   ? "attach to the team's dynamic window"
          : c->register_limited ? "attach to the team's dynamic window "
                                  "while attachments last, then one "
                                  "window each"
                                : "one window each");
}

/* Whether the component list of Open MPI's "osc" setting (as the user or
 * an MCA parameter file set it) leaves only osc/pt2pt for windows over
 * existing memory: a selection naming pt2pt but neither ucx nor rdma. */
static bool only_pt2pt(const char *list)
{
  return list[0] != '^' && dart__osc_list_names(list, "pt2pt") &&
         dart__osc_list_leaves_out(list, "ucx") &&
         dart__osc_list_leaves_out(list, "rdma");
}

/* An MPI_T session opened before MPI_Init: MPICH 4.0 crashes in MPI_Init
 * when MPI_T was initialized and finalized before it, so the session
 * stays open until dart__caps_mpit_close, after MPI_Init. */
static bool mpit_open;

void dart__caps_mpit_close(void)
{
  if (mpit_open) MPI_T_finalize();
  mpit_open = false;
}

/* The value of the MPI_T control variable `name` as a string; "" if the
 * MPI has none (MPI_T may be used before MPI_Init). */
static void read_string_cvar(const char *name, char *out, int n, int level)
{
  int idx, count = 0, provided;
  out[0] = '\0';
  if (!mpit_open) {
    /* The level MPI_Init will be asked for (see transport/ompi_shm_names.c). */
    if (MPI_T_init_thread(level, &provided) != MPI_SUCCESS) return;
    mpit_open = true;
  }
  /* Open MPI leaves the datatype unset when these buffers are short. */
  char cname[256], desc[1024];
  int nl = sizeof cname, dl = sizeof desc, verb, bind, scope;
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_T_enum en;
  MPI_T_cvar_handle h;
  if (MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS &&
      MPI_T_cvar_get_info(idx, cname, &nl, &verb, &dt, &en, desc, &dl, &bind,
                          &scope) == MPI_SUCCESS &&
      dt == MPI_CHAR &&
      MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
    /* count: the variable's buffer size (2048 with Open MPI 4.1) */
    char *buf = count > 0 ? calloc((size_t)count + 1, 1) : NULL;
    if (buf != NULL && MPI_T_cvar_read(h, buf) == MPI_SUCCESS)
      snprintf(out, (size_t)n, "%s", buf);
    free(buf);
    MPI_T_cvar_handle_free(&h);
  }
}

/*
 * The thread level is fixed by MPI_Init, before any window can be probed.
 * Open MPI's osc/pt2pt refuses every window at MPI_THREAD_MULTIPLE
 * ("The OSC pt2pt component does not support MPI_THREAD_MULTIPLE in this
 * release", Open MPI 4.x), and users of the original DART select it with
 * `--mca osc sm,pt2pt`. The selection is readable through MPI_T before
 * MPI_Init; when it leaves only pt2pt for such windows, DART asks for
 * MPI_THREAD_SERIALIZED and runs without its progress thread (waits in
 * DART still drive progress, docs/design.md 5.4).
 */
int dart__caps_thread_level(int wanted)
{
  if (wanted != MPI_THREAD_MULTIPLE) return wanted;
  char osc[256];
  /* Open MPI's variable in the environment (how `mpiexec --mca osc ...`
   * reaches the process, and what dart_init itself sets when the user did
   * not, see runtime/init.c) overrides every parameter file: reading it
   * there is reading the setting. Only without it does MPI_T (which
   * costs Open MPI 4.1 about 0.3-0.7 s per process with 4 units on 2
   * cores: it opens every component) read what the files say. */
  const char *env = getenv("OMPI_MCA_osc");
  if (env != NULL)
    snprintf(osc, sizeof osc, "%s", env);
  else
    read_string_cvar("osc", osc, sizeof osc, wanted);
  if (!only_pt2pt(osc)) return wanted;
  DART_LOG_INFO("one-sided components '%s': osc/pt2pt refuses windows at "
                "MPI_THREAD_MULTIPLE; asking for MPI_THREAD_SERIALIZED (no "
                "progress thread)",
                osc);
  return MPI_THREAD_SERIALIZED;
}
