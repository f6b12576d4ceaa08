/*
 * Internal: locality module.
 *
 * Split in an MPI-free part (hardware detection, domain tree building and
 * every domain operation; unit-testable on synthetic input) and the MPI
 * glue in locality.c (exchange of hardware info, per-team data, hooks).
 */
#ifndef DART__LOCALITY_INTERNAL_H
#define DART__LOCALITY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart_team_group.h>
#include <dash/dart/if/dart_types.h>

#include "dart_log.h"

/* Locality data of one team (team->locality). units and root stay NULL
 * until a program first asks for them (locality.c builds them then). */
struct dart__locality {
  dart_team_t team;
  int num_units;                /* team size                              */
  dart_unit_locality_t *units;  /* [num_units], indexed by team unit id   */
  dart_domain_locality_t *root; /* domain tree, tag "."                   */
};
typedef struct dart__locality dart__locality_t;

/* ---- hardware detection (hwinfo.c, hwinfo_sys.c, hwinfo_hwloc.c) ------ */

/* Sets every field of *hw to "unknown" (-1, empty host, no scopes). */
DART__HIDDEN void dart__hwinfo_clear(dart_hwinfo_t *hw);

/*
 * Detects the hardware of the calling process: hwloc when compiled in and
 * use_hwloc is set (falls back to /sys and /proc if hwloc fails), otherwise
 * /sys and /proc. Never fails: unknown values stay -1 and the scope list
 * has at least the {CORE, index} entry. The result is cached for the
 * process while the CPU affinity mask and use_hwloc stay the same; the
 * host name (gethostname) is read on every call.
 */
DART__HIDDEN void dart__hwinfo_detect(dart_hwinfo_t *hw, bool use_hwloc);

/*
 * Fallback detection for logical CPU `cpu` from the sysfs/procfs tree below
 * `root` ("" for the real system; tests pass a synthetic tree). Returns 0,
 * or -1 if not even /proc/cpuinfo could be read (hw then holds the minimal
 * {CORE, cpu} description).
 */
DART__HIDDEN int dart__hwinfo_detect_sys(dart_hwinfo_t *hw, int cpu,
                                         const char *root);

#ifdef DART_HAVE_HWLOC
/* hwloc detection for logical CPU `cpu`; returns 0 or -1 (hw untouched). */
DART__HIDDEN int dart__hwinfo_detect_hwloc(dart_hwinfo_t *hw, int cpu);
#endif

/* The CPU the caller runs on (its only CPU if bound to one), or 0. */
DART__HIDDEN int dart__hwinfo_current_cpu(void);

/* Min/max clock of `cpu` in MHz from cpufreq or /proc/cpuinfo (-1: unknown). */
DART__HIDDEN void dart__hwinfo_cpu_mhz(dart_hwinfo_t *hw, int cpu,
                                       const char *root);

/* Small file helpers shared by the detection code (root-relative paths). */
DART__HIDDEN int dart__sys_read(const char *root, const char *path, char *buf,
                                size_t size);
DART__HIDDEN long dart__sys_read_long(const char *root, const char *path);

/* ---- tree building (tree.c) ------------------------------------------- */

/*
 * Builds the locality data of a team from the hardware info of its units.
 * hw[u] and gids[u] describe team unit u (gids ascending). Units are
 * grouped into nodes by distinct host name (see docs/locality.md). Returns
 * DART_OK, DART_ERR_NOMEM, or DART_ERR_OTHER if a tag would exceed
 * DART_LOCALITY_DOMAIN_TAG_MAX_SIZE.
 */
DART__HIDDEN dart_ret_t dart__locality_build(dart_team_t team, int n,
                                             const int32_t *gids,
                                             const dart_hwinfo_t *hw,
                                             dart__locality_t **out);
/* Frees the locality data of a team (NULL accepted). */
DART__HIDDEN void dart__locality_free(dart__locality_t *loc);

/* Does `host` name an accelerator module of node `node` ("node-micN")? */
DART__HIDDEN bool dart__locality_is_module_of(const char *host,
                                              const char *node);

/* ---- host names (names.c) --------------------------------------------- */

/* 64-bit hash of a host name (FNV-1a), never 0. */
DART__HIDDEN uint64_t dart__locality_host_hash(const char *host);
/*
 * words[n]: per unit the hash of its node leader's host name, or 0 if the
 * unit's own host name differs from its leader's. True unless no word is 0
 * and there are exactly num_nodes distinct words, i.e. unless "same host
 * name" <=> "same DART node" (a hash collision reads as true). Sorts words.
 */
DART__HIDDEN bool dart__locality_hosts_disagree(uint64_t *words, int n,
                                                int num_nodes);
/* Renames host (HOST_MAX bytes) to "<host>#<node>", the node number
 * zero-padded to the width of num_nodes - 1 so names sort by node. */
DART__HIDDEN void dart__locality_node_name(char *host, int node, int num_nodes);

/* ---- domain helpers (domain.c) ---------------------------------------- */

/* Pointer vector used to collect domains. */
typedef struct {
  dart_domain_locality_t **v;
  int n;
  int cap;
} dart__domvec_t;

DART__HIDDEN int dart__domvec_push(dart__domvec_t *vec,
                                   dart_domain_locality_t *d);
/* Sorts by address and drops duplicates, making vec a set. */
DART__HIDDEN void dart__domvec_sort(dart__domvec_t *set);
/* Membership test on a sorted set. */
DART__HIDDEN bool dart__domvec_has(const dart__domvec_t *set,
                                   const dart_domain_locality_t *d);

/* Resets *d to the defaults of dart_domain_create (does not free). */
DART__HIDDEN void dart__domain_defaults(dart_domain_locality_t *d);
/* Allocates a domain with defaults; NULL when out of memory. */
DART__HIDDEN dart_domain_locality_t *dart__domain_new(void);
/* Frees everything *d owns (children, units, aliases), not d itself. */
DART__HIDDEN void dart__domain_clear(dart_domain_locality_t *d);
/* dart__domain_clear + free(d); NULL accepted. */
DART__HIDDEN void dart__domain_free(dart_domain_locality_t *d);
/*
 * Deep copy of src into the uninitialised object dst (clone semantics:
 * dst->parent = src->parent, aliases not copied). Returns 0 or -1 (out of
 * memory; dst then owns nothing).
 */
DART__HIDDEN int dart__domain_copy(dart_domain_locality_t *dst,
                                   const dart_domain_locality_t *src);
/*
 * Recomputes the unit list (sorted union of the children's units), the
 * core count (sum over children) and the node fields of an inner domain
 * from its children. A domain without children gets an empty unit list if
 * `emptied`, otherwise it is left alone. Returns 0 or -1 (out of memory).
 */
DART__HIDDEN int dart__domain_refresh(dart_domain_locality_t *d, bool emptied);
/* Refreshes d and its ancestors up to and including `top`. */
DART__HIDDEN int dart__domain_refresh_up(dart_domain_locality_t *d,
                                         const dart_domain_locality_t *top);

/* Writes the tag of child number k of a domain tagged `parent` into out
 * (DART_LOCALITY_DOMAIN_TAG_MAX_SIZE bytes). Returns 0 or -1 (too long). */
DART__HIDDEN int dart__domain_child_tag(const char *parent, int k, char *out);
/* One larger than the largest last tag component among d's children. */
DART__HIDDEN int dart__domain_next_tag_number(const dart_domain_locality_t *d);
/* Longest tag in the subtree of d if d were tagged with `tag`. */
DART__HIDDEN size_t dart__domain_retag_length(const dart_domain_locality_t *d,
                                              const char *tag);
/*
 * Makes d the child number k (relative_index) of parent with tag `tag`:
 * sets parent, level, team and tags of the whole subtree (descendants are
 * tagged by relative index). The caller stores d in parent->children and
 * has checked the tag lengths with dart__domain_retag_length.
 */
DART__HIDDEN void dart__domain_adopt(dart_domain_locality_t *parent,
                                     dart_domain_locality_t *d, int k,
                                     const char *tag);
/* Sets relative_index of every child to its position. */
DART__HIDDEN void dart__domain_reindex(dart_domain_locality_t *d);

/* Is `d` in the subtree of `root` (root included)? */
DART__HIDDEN bool dart__domain_contains(const dart_domain_locality_t *root,
                                        const dart_domain_locality_t *d);
/* Depth-first search for a tag; NULL if absent. */
DART__HIDDEN dart_domain_locality_t *
dart__domain_lookup(const dart_domain_locality_t *root, const char *tag);
/* Appends all domains of `scope` in pre-order (not below a match). */
DART__HIDDEN int dart__domain_collect(const dart_domain_locality_t *d,
                                      dart_locality_scope_t scope,
                                      dart__domvec_t *out);

/* ---- filters (filter.c) ----------------------------------------------- */

/*
 * Resolves tags inside root into a sorted, duplicate-free pointer array
 * (malloc'ed, *out). An unknown tag is skipped if skip_unknown, otherwise
 * logged and answered with DART_ERR_NOTFOUND; NULL tags give
 * DART_ERR_INVAL.
 */
DART__HIDDEN dart_ret_t dart__domain_resolve(const char *func,
                                             dart_domain_locality_t *root,
                                             int n, const char **tags,
                                             bool skip_unknown,
                                             dart__domvec_t *out);
/* Keeps only ancestors-or-self of the domains in `keep` (sorted) below d,
 * the subtrees of listed domains stay intact. */
DART__HIDDEN int dart__domain_select_set(dart_domain_locality_t *d,
                                         const dart__domvec_t *keep);
/* Removes the domains in `drop` (sorted) below d and then-empty ancestors
 * (never d itself). */
DART__HIDDEN int dart__domain_exclude_set(dart_domain_locality_t *d,
                                          const dart__domvec_t *drop);

struct dart__team;
/* Module hooks (runtime/modules.c): team ALL's locality, and a released
 * team's records. */
DART__HIDDEN dart_ret_t dart__locality_init(void);
DART__HIDDEN void dart__locality_fini(void);
DART__HIDDEN void dart__locality_team_fini(struct dart__team *team);

#endif /* DART__LOCALITY_INTERNAL_H */
