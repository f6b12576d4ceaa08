/*
 * Hardware detection with hwloc (only built when DART_HAVE_HWLOC is
 * defined). The scope list follows the hwloc object tree from the unit's
 * core up to the machine: packages, NUMA nodes (placed just below the
 * object they are attached to) and caches shared by more than one core.
 * Per-core caches, dies and groups are not scopes (see docs/locality.md).
 */
#ifdef DART_HAVE_HWLOC

#include <hwloc.h>
#include <limits.h>
#include <string.h>

#include "locality_internal.h"

static void add_scope(dart_hwinfo_t *hw, dart_locality_scope_t scope, int index)
{
  if (hw->num_scopes == DART_LOCALITY_MAX_DOMAIN_SCOPES) return;
  hw->scopes[hw->num_scopes].scope = scope;
  hw->scopes[hw->num_scopes].index = index;
  hw->num_scopes++;
}

static int os_or_logical(hwloc_obj_t obj)
{
  return obj->os_index != HWLOC_UNKNOWN_INDEX ? (int)obj->os_index
                                              : (int)obj->logical_index;
}

static int mbytes(hwloc_uint64_t bytes)
{
  hwloc_uint64_t mb = bytes >> 20;
  return mb > INT_MAX ? INT_MAX : (int)mb;
}

/* First NUMA node whose CPU set holds `cpu`. */
static hwloc_obj_t numa_of(hwloc_topology_t topo, int cpu)
{
  hwloc_obj_t n = NULL;
  while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)))
    if (n->cpuset != NULL && hwloc_bitmap_isset(n->cpuset, (unsigned)cpu))
      return n;
  return NULL;
}

/* Scope list from the core up; NUMA goes below the object holding it. */
static void fill_scopes(dart_hwinfo_t *hw, hwloc_topology_t topo,
                        hwloc_obj_t core, hwloc_obj_t numa)
{
  hwloc_obj_t attach = numa;
  while (attach != NULL && !hwloc_obj_type_is_normal(attach->type))
    attach = attach->parent;
  hw->num_scopes = 0;
  add_scope(hw, DART_LOCALITY_SCOPE_CORE, (int)core->logical_index);
  for (hwloc_obj_t obj = core->parent; obj != NULL; obj = obj->parent) {
    if (obj == attach) add_scope(hw, DART_LOCALITY_SCOPE_NUMA, hw->numa_id);
    if (obj->type == HWLOC_OBJ_MACHINE) break;
    if (obj->type == HWLOC_OBJ_PACKAGE) {
      add_scope(hw, DART_LOCALITY_SCOPE_PACKAGE, os_or_logical(obj));
    } else if (hwloc_obj_type_is_dcache(obj->type) &&
               hwloc_get_nbobjs_inside_cpuset_by_type(topo, obj->cpuset,
                                                      HWLOC_OBJ_CORE) > 1) {
      add_scope(hw, DART_LOCALITY_SCOPE_CACHE, (int)obj->logical_index);
    }
  }
}

static void fill_caches(dart_hwinfo_t *hw, hwloc_obj_t pu)
{
  for (hwloc_obj_t obj = pu->parent; obj != NULL; obj = obj->parent) {
    if (!hwloc_obj_type_is_dcache(obj->type)) continue;
    int level = (int)obj->attr->cache.depth;
    if (level < 1 || level > DART_LOCALITY_MAX_CACHE_LEVELS) continue;
    hwloc_uint64_t size = obj->attr->cache.size;
    hw->cache_sizes[level - 1] = size > INT_MAX ? INT_MAX : (int)size;
    hw->cache_line_sizes[level - 1] = (int)obj->attr->cache.linesize;
    hw->cache_ids[level - 1] = (int)obj->logical_index;
  }
}

int dart__hwinfo_detect_hwloc(dart_hwinfo_t *hw, int cpu)
{
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return -1;
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return -1;
  }
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu);
  if (pu == NULL) {
    hwloc_topology_destroy(topo);
    return -1;
  }
  hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
  if (core == NULL) core = pu;
  int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  int npkgs = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  hwloc_obj_t numa = numa_of(topo, cpu);

  hw->cpu_id = cpu;
  hw->core_id = (int)core->logical_index;
  hw->num_cores =
      ncores > 0 ? ncores : hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  hw->num_sockets = npkgs > 0 ? npkgs : -1;
  hw->min_threads = 1;
  hw->max_threads = hwloc_bitmap_weight(core->cpuset);
  hw->num_numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  if (numa != NULL) {
    hw->numa_id = os_or_logical(numa);
    hw->numa_memory_bytes = mbytes(numa->attr->numanode.local_memory);
  }
  hw->system_memory_bytes = mbytes(hwloc_get_root_obj(topo)->total_memory);
  fill_caches(hw, pu);
  fill_scopes(hw, topo, core, numa);
  hwloc_topology_destroy(topo);
  return 0;
}

#endif /* DART_HAVE_HWLOC */
