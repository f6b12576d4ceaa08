/*
 * Internal: Open MPI's component lists as its "osc" setting gives them
 * ("a,b" selects, "^a,b" excludes), read from OMPI_MCA_osc by the
 * thread-level check (probe.c) and the backing-file work-around
 * (ompi_shm_names.c). The user's configuration, not a library name:
 * nothing here decides a path from what the MPI is called. Pure, so that
 * tests/unit checks it without MPI.
 */
#ifndef DART__TRANSPORT_OSC_LIST_H
#define DART__TRANSPORT_OSC_LIST_H

#include <stdbool.h>
#include <string.h>

/* Whether list names component name (either kind of list): a whole
 * entry between separators (comma or blank). */
static inline bool dart__osc_list_names(const char *list, const char *name)
{
  size_t n = strlen(name);
  const char *p = list[0] == '^' ? list + 1 : list;
  while (*p != '\0') {
    size_t len = strcspn(p, ", ");
    if (len == n && strncmp(p, name, n) == 0) return true;
    p += len;
    p += strspn(p, ", ");
  }
  return false;
}

/* Whether list (NULL or "": not set) leaves component name out: an
 * exclusion list naming it, or a selection not naming it. */
static inline bool dart__osc_list_leaves_out(const char *list, const char *name)
{
  if (list == NULL || list[0] == '\0') return false;
  return (list[0] == '^') == dart__osc_list_names(list, name);
}

/*
 * The "osc" setting dart_init gives Open MPI when it starts MPI and the
 * user chose none (runtime/init.c): "^ucx,pt2pt" (Debian's own default,
 * which the application-initialized path runs with too) where Open MPI's
 * launcher put the whole job on this node (world_size and local_size: its
 * OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_LOCAL_SIZE, decimal, equal,
 * above 1) and no nodes are simulated (sim_node_size 0), so that osc/rdma
 * carries the windows over existing memory and osc/sm the shared ones;
 * else "^rdma" (osc/ucx and osc/sm).
 */
static inline const char *dart__osc_default(const char *world_size,
                                            const char *local_size,
                                            long sim_node_size)
{
  if (world_size == NULL || local_size == NULL || sim_node_size > 0)
    return "^rdma";
  long n[2] = {0, 0};
  const char *v[2] = {world_size, local_size};
  for (int i = 0; i < 2; i++) {
    const char *p = v[i];
    if (*p == '\0') return "^rdma";
    for (; *p != '\0'; p++) {
      if (*p < '0' || *p > '9' || n[i] > 100000000L) return "^rdma";
      n[i] = 10 * n[i] + (*p - '0');
    }
  }
  return n[0] > 1 && n[0] == n[1] ? "^ucx,pt2pt" : "^rdma";
}

#endif /* DART__TRANSPORT_OSC_LIST_H */
