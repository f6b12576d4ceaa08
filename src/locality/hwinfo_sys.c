/*
 * Hardware detection without hwloc: Linux sysfs (cpu topology, caches,
 * NUMA nodes) with /proc/cpuinfo and /proc/meminfo as further fallbacks.
 * Every path is relative to a root directory so that tests can describe
 * machines that this one is not. MPI-free.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"

#define LIST_MAX 8192
#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"

/* ---- cpulist strings ("0-3,8,10-11") ---------------------------------- */

/* Parses the next range of a cpulist; returns 0 at the end or on error. */
static int list_next(const char **p, int *lo, int *hi)
{
  while (**p == ',' || **p == ' ') (*p)++;
  if (**p < '0' || **p > '9') return 0;
  char *end;
  *lo = (int)strtol(*p, &end, 10);
  *hi = *lo;
  if (*end == '-') *hi = (int)strtol(end + 1, &end, 10);
  *p = end;
  return *hi >= *lo;
}

static int list_weight(const char *s)
{
  int lo, hi, w = 0;
  while (list_next(&s, &lo, &hi)) w += hi - lo + 1;
  return w;
}

static bool list_has(const char *s, int cpu)
{
  int lo, hi;
  while (list_next(&s, &lo, &hi))
    if (cpu >= lo && cpu <= hi) return true;
  return false;
}

static int list_first(const char *s)
{
  int lo, hi;
  return list_next(&s, &lo, &hi) ? lo : -1;
}

/* Reads a cpulist file "<dir>/<name>" (printf-style dir); weight or -1. */
static int read_list(const char *root, char *buf, const char *fmt, int a,
                     const char *name)
{
  char path[256], dir[192];
  snprintf(dir, sizeof dir, fmt, a);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (dart__sys_read(root, path, buf, LIST_MAX) <= 0) return -1;
  return list_weight(buf);
}

static long read_cpu_long(const char *root, int cpu, const char *name)
{
  char path[192];
  snprintf(path, sizeof path, CPU_DIR "/cpu%d/%s", cpu, name);
  return dart__sys_read_long(root, path);
}

/* ---- cores and packages ----------------------------------------------- */

/* Per-CPU identity: core key (first thread sibling) and package. */
typedef struct {
  int cpu;
  long core_key;
  long package;
} cpu_id_t;

/* Reads the CPUs from sysfs topology; returns the count or -1. */
static int cpus_from_sysfs(const char *root, cpu_id_t **out)
{
  char *online = malloc(LIST_MAX), *buf = malloc(LIST_MAX);
  cpu_id_t *ids = NULL;
  int n = -1;
  if (online == NULL || buf == NULL ||
      dart__sys_read(root, CPU_DIR "/online", online, LIST_MAX) <= 0)
    goto done;
  ids = malloc((size_t)list_weight(online) * sizeof *ids);
  if (ids == NULL) goto done;
  n = 0;
  const char *p = online;
  int lo, hi;
  while (list_next(&p, &lo, &hi)) {
    for (int c = lo; c <= hi; c++) {
      if (read_list(root, buf, CPU_DIR "/cpu%d/topology", c,
                    "thread_siblings_list") <= 0) {
        n = -1;
        goto done;
      }
      ids[n++] =
          (cpu_id_t){c, list_first(buf),
                     read_cpu_long(root, c, "topology/physical_package_id")};
    }
  }
done:
  free(online);
  free(buf);
  if (n <= 0) {
    free(ids);
    ids = NULL;
    n = -1;
  }
  *out = ids;
  return n;
}

/* Reads the CPUs from /proc/cpuinfo; returns the count or -1. */
static int cpus_from_cpuinfo(const char *root, cpu_id_t **out)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
  FILE *f = fopen(path, "r");
  *out = NULL;
  if (f == NULL) return -1;
  cpu_id_t *ids = NULL;
  int n = 0, cap = 0;
  char *line = NULL;
  size_t len = 0;
  while (getline(&line, &len, f) > 0) {
    const char *colon = strchr(line, ':');
    if (colon == NULL) continue;
    long v = strtol(colon + 1, NULL, 10);
    if (strncmp(line, "processor", 9) == 0) {
      if (n == cap) {
        cap = cap ? 2 * cap : 64;
        cpu_id_t *grown = realloc(ids, (size_t)cap * sizeof *ids);
        if (grown == NULL) break;
        ids = grown;
      }
      ids[n++] = (cpu_id_t){(int)v, v, 0};
    } else if (n > 0 && strncmp(line, "physical id", 11) == 0) {
      ids[n - 1].package = v;
    } else if (n > 0 && strncmp(line, "core id", 7) == 0) {
      ids[n - 1].core_key = -1 - v; /* resolved below */
    }
  }
  free(line);
  fclose(f);
  /* Core identity = (package, core id); key it by the first such CPU. */
  for (int i = 0; i < n; i++) {
    if (ids[i].core_key >= 0) continue;
    long core = ids[i].core_key;
    for (int j = i; j < n; j++)
      if (ids[j].core_key == core && ids[j].package == ids[i].package)
        ids[j].core_key = ids[i].cpu;
  }
  if (n == 0) free(ids);
  *out = n > 0 ? ids : NULL;
  return n > 0 ? n : -1;
}

/* Fills core/package fields; returns the scope weight (CPUs) of the core. */
static int detect_cores(dart_hwinfo_t *hw, int cpu, const cpu_id_t *ids, int n)
{
  const cpu_id_t *me = NULL;
  for (int i = 0; i < n && me == NULL; i++)
    if (ids[i].cpu == cpu) me = &ids[i];
  if (me == NULL) me = &ids[0];
  int cores = 0, sockets = 0, rank = 0, threads = 0;
  for (int i = 0; i < n; i++) {
    bool first_of_core = true, first_of_pkg = true;
    for (int j = 0; j < i; j++) {
      if (ids[j].core_key == ids[i].core_key) first_of_core = false;
      if (ids[j].package == ids[i].package) first_of_pkg = false;
    }
    cores += first_of_core;
    sockets += first_of_pkg && ids[i].package >= 0;
    if (first_of_core && ids[i].core_key < me->core_key) rank++;
    if (ids[i].core_key == me->core_key) threads++;
  }
  hw->cpu_id = cpu;
  hw->core_id = rank;
  hw->num_cores = cores;
  hw->num_sockets = sockets > 0 ? sockets : -1;
  hw->min_threads = 1;
  hw->max_threads = threads;
  return threads;
}

/* ---- NUMA, caches, memory --------------------------------------------- */

/* MemTotal of a meminfo file in MB, or -1. */
static int meminfo_mb(const char *root, const char *path)
{
  char mem[4096];
  if (dart__sys_read(root, path, mem, sizeof mem) <= 0) return -1;
  const char *total = strstr(mem, "MemTotal:");
  if (total == NULL) return -1;
  long long mb = strtoll(total + 9, NULL, 10) >> 10;
  return mb > INT_MAX ? INT_MAX : (int)mb;
}

/*
 * Fills the NUMA fields and the system memory (sum over the nodes, as
 * hwloc counts it); returns the CPU count of the unit's node or -1.
 */
static int detect_numa(dart_hwinfo_t *hw, int cpu, const char *root, char *buf)
{
  char *online = malloc(LIST_MAX);
  if (online == NULL ||
      dart__sys_read(root, NODE_DIR "/online", online, LIST_MAX) <= 0) {
    free(online);
    return -1;
  }
  hw->num_numa = list_weight(online);
  int weight = -1;
  long long total_mb = 0;
  const char *p = online;
  int lo, hi;
  while (list_next(&p, &lo, &hi)) {
    for (int k = lo; k <= hi; k++) {
      char path[128];
      snprintf(path, sizeof path, NODE_DIR "/node%d/meminfo", k);
      int mb = meminfo_mb(root, path);
      total_mb += mb > 0 ? mb : 0;
      int w = read_list(root, buf, NODE_DIR "/node%d", k, "cpulist");
      if (weight >= 0 || w <= 0 || !list_has(buf, cpu)) continue;
      hw->numa_id = k;
      hw->numa_memory_bytes = mb;
      weight = w;
    }
  }
  free(online);
  if (total_mb > 0)
    hw->system_memory_bytes = total_mb > INT_MAX ? INT_MAX : (int)total_mb;
  return weight;
}

static long parse_size(const char *s)
{
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s) return -1;
  if (*end == 'K') v <<= 10;
  if (*end == 'M') v <<= 20;
  if (*end == 'G') v <<= 30;
  return v;
}

/* Scope candidate for ordering the hardware levels. */
typedef struct {
  dart_locality_scope_t scope;
  int index;
  int weight; /* CPUs covered                     */
  int prio;   /* tie-break: lower is finer        */
} cand_t;

/* Reads the data/unified caches; shared ones become scope candidates. */
static int detect_caches(dart_hwinfo_t *hw, int cpu, const char *root,
                         char *buf, int core_weight, cand_t *cand, int nc)
{
  for (int i = 0; i < 16; i++) {
    char dir[160], path[200];
    snprintf(dir, sizeof dir, CPU_DIR "/cpu%d/cache/index%d", cpu, i);
    snprintf(path, sizeof path, "%s/type", dir);
    if (dart__sys_read(root, path, buf, 64) <= 0) break;
    if (strcmp(buf, "Instruction") == 0) continue;
    snprintf(path, sizeof path, "%s/level", dir);
    long level = dart__sys_read_long(root, path);
    if (level < 1 || level > DART_LOCALITY_MAX_CACHE_LEVELS) continue;
    snprintf(path, sizeof path, "%s/size", dir);
    long size = dart__sys_read(root, path, buf, 64) > 0 ? parse_size(buf) : -1;
    snprintf(path, sizeof path, "%s/coherency_line_size", dir);
    long line = dart__sys_read_long(root, path);
    snprintf(path, sizeof path, "%s/id", dir);
    long id = dart__sys_read_long(root, path);
    snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
    int weight =
        dart__sys_read(root, path, buf, LIST_MAX) > 0 ? list_weight(buf) : -1;
    if (id < 0 && weight > 0) id = list_first(buf);
    hw->cache_sizes[level - 1] = size > INT_MAX ? INT_MAX : (int)size;
    hw->cache_line_sizes[level - 1] = (int)line;
    hw->cache_ids[level - 1] = (int)id;
    if (weight > core_weight && nc < DART_LOCALITY_MAX_DOMAIN_SCOPES - 3)
      cand[nc++] =
          (cand_t){DART_LOCALITY_SCOPE_CACHE, (int)id, weight, 1 + (int)level};
  }
  return nc;
}

static int cand_cmp(const void *a, const void *b)
{
  const cand_t *x = a, *y = b;
  if (x->weight != y->weight) return (x->weight > y->weight) ? 1 : -1;
  return (x->prio > y->prio) - (x->prio < y->prio);
}

/* Orders the candidates finest first (by CPUs covered) into hw->scopes. */
static void set_scopes(dart_hwinfo_t *hw, cand_t *cand, int nc)
{
  qsort(cand + 1, (size_t)(nc - 1), sizeof *cand, cand_cmp);
  for (int i = 0; i < nc; i++) {
    hw->scopes[i].scope = cand[i].scope;
    hw->scopes[i].index = cand[i].index;
  }
  hw->num_scopes = nc;
}

int dart__hwinfo_detect_sys(dart_hwinfo_t *hw, int cpu, const char *root)
{
  cpu_id_t *ids;
  int n = cpus_from_sysfs(root, &ids);
  if (n < 0) n = cpus_from_cpuinfo(root, &ids);
  char *buf = malloc(LIST_MAX);
  if (n < 0 || buf == NULL) {
    free(ids);
    free(buf);
    hw->cpu_id = hw->core_id = cpu;
    hw->scopes[0] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_CORE, cpu};
    hw->num_scopes = 1;
    return -1;
  }
  int core_weight = detect_cores(hw, cpu, ids, n);
  long package = -1;
  for (int i = 0; i < n; i++)
    if (ids[i].cpu == cpu) package = ids[i].package;
  int package_weight = 0;
  for (int i = 0; i < n; i++) package_weight += ids[i].package == package;
  free(ids);

  cand_t cand[DART_LOCALITY_MAX_DOMAIN_SCOPES];
  int nc = 0;
  cand[nc++] = (cand_t){DART_LOCALITY_SCOPE_CORE, hw->core_id, core_weight, 0};
  nc = detect_caches(hw, cpu, root, buf, core_weight, cand, nc);
  int numa_weight = detect_numa(hw, cpu, root, buf);
  if (hw->numa_id >= 0)
    cand[nc++] =
        (cand_t){DART_LOCALITY_SCOPE_NUMA, hw->numa_id, numa_weight, 100};
  if (package >= 0)
    cand[nc++] = (cand_t){DART_LOCALITY_SCOPE_PACKAGE, (int)package,
                          package_weight, 101};
  set_scopes(hw, cand, nc);
  free(buf);

  dart__hwinfo_cpu_mhz(hw, cpu, root);
  if (hw->system_memory_bytes < 0)
    hw->system_memory_bytes = meminfo_mb(root, "/proc/meminfo");
  return 0;
}
