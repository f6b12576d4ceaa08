/*
 * Hardware info of the calling unit: dispatch between hwloc and the
 * /sys + /proc fallback, plus helpers shared by both. MPI-free.
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locality_internal.h"

void dart__hwinfo_clear(dart_hwinfo_t *hw)
{
  memset(hw, 0, sizeof *hw);
  hw->num_cores = hw->num_numa = hw->numa_id = hw->num_sockets = -1;
  hw->core_id = hw->cpu_id = -1;
  hw->min_cpu_mhz = hw->max_cpu_mhz = -1;
  for (int i = 0; i < DART_LOCALITY_MAX_CACHE_LEVELS; i++)
    hw->cache_sizes[i] = hw->cache_line_sizes[i] = hw->cache_ids[i] = -1;
  hw->min_threads = hw->max_threads = -1;
  hw->max_shmem_mbps = -1;
  hw->system_memory_bytes = hw->numa_memory_bytes = -1;
  for (int i = 0; i < DART_LOCALITY_MAX_DOMAIN_SCOPES; i++) {
    hw->scopes[i].scope = DART_LOCALITY_SCOPE_UNDEFINED;
    hw->scopes[i].index = -1;
  }
  hw->num_scopes = 0;
}

int dart__sys_read(const char *root, const char *path, char *buf, size_t size)
{
  char full[PATH_MAX];
  int len = snprintf(full, sizeof full, "%s%s", root, path);
  if (len < 0 || (size_t)len >= sizeof full || size == 0) return -1;
  FILE *f = fopen(full, "r");
  if (f == NULL) return -1;
  size_t n = fread(buf, 1, size - 1, f);
  fclose(f);
  buf[n] = '\0';
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = '\0';
  return (int)n;
}

long dart__sys_read_long(const char *root, const char *path)
{
  char buf[64];
  if (dart__sys_read(root, path, buf, sizeof buf) <= 0) return -1;
  char *end;
  long v = strtol(buf, &end, 10);
  return (end == buf || v < 0) ? -1 : v;
}

int dart__hwinfo_current_cpu(void)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1) {
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &set)) return c;
  }
  int c = sched_getcpu();
  return c >= 0 ? c : 0;
}

/* "cpu MHz" of processor `cpu` in /proc/cpuinfo, or -1. */
static int cpuinfo_mhz(int cpu, const char *root)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  char *line = NULL;
  size_t cap = 0;
  int current = -1, mhz = -1;
  while (mhz < 0 && getline(&line, &cap, f) > 0) {
    const char *colon = strchr(line, ':');
    if (colon == NULL) continue;
    if (strncmp(line, "processor", 9) == 0)
      current = atoi(colon + 1);
    else if (current == cpu && strncmp(line, "cpu MHz", 7) == 0)
      mhz = (int)(strtod(colon + 1, NULL) + 0.5);
  }
  free(line);
  fclose(f);
  return mhz > 0 ? mhz : -1;
}

void dart__hwinfo_cpu_mhz(dart_hwinfo_t *hw, int cpu, const char *root)
{
  char path[128];
  snprintf(path, sizeof path,
           "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_min_freq", cpu);
  long min_khz = dart__sys_read_long(root, path);
  snprintf(path, sizeof path,
           "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
  long max_khz = dart__sys_read_long(root, path);
  if (min_khz >= 1000 && max_khz >= min_khz) {
    hw->min_cpu_mhz = (int)(min_khz / 1000);
    hw->max_cpu_mhz = (int)(max_khz / 1000);
    return;
  }
  int mhz = cpuinfo_mhz(cpu, root);
  hw->min_cpu_mhz = hw->max_cpu_mhz = mhz;
}

/*
 * Result of the last detection and what it depends on. hwloc needs ~15 ms
 * per topology load and dart_init may run many times in one process, so
 * the hardware part is reused while the affinity mask and the method stay
 * the same (an unbound process gets the CPU it ran on at first detection,
 * which is as valid as any later one). Static storage: nothing to free.
 */
static struct {
  bool valid;
  bool use_hwloc;
  cpu_set_t mask;
  dart_hwinfo_t hw;
} dart__hwinfo_cache;

void dart__hwinfo_detect(dart_hwinfo_t *hw, bool use_hwloc)
{
  cpu_set_t mask;
  CPU_ZERO(&mask);
  bool have_mask = sched_getaffinity(0, sizeof mask, &mask) == 0;
  if (have_mask && dart__hwinfo_cache.valid &&
      dart__hwinfo_cache.use_hwloc == use_hwloc &&
      CPU_EQUAL(&mask, &dart__hwinfo_cache.mask)) {
    *hw = dart__hwinfo_cache.hw;
  } else {
    dart__hwinfo_clear(hw);
    int cpu = dart__hwinfo_current_cpu();
    int rc = -1;
#ifdef DART_HAVE_HWLOC
    if (use_hwloc) {
      rc = dart__hwinfo_detect_hwloc(hw, cpu);
      if (rc != 0)
        DART_LOG_WARN("hwloc detection failed, using /sys and /proc");
    }
#endif
    if (rc != 0) dart__hwinfo_detect_sys(hw, cpu, "");
    if (hw->min_cpu_mhz < 0) dart__hwinfo_cpu_mhz(hw, cpu, "");
    if (hw->system_memory_bytes < 0) {
      long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
      if (pages > 0 && page > 0)
        hw->system_memory_bytes = (int)(((long long)pages * page) >> 20);
    }
    dart__hwinfo_cache.valid = have_mask;
    dart__hwinfo_cache.use_hwloc = use_hwloc;
    dart__hwinfo_cache.mask = mask;
    dart__hwinfo_cache.hw = *hw;
  }
  if (gethostname(hw->host, sizeof hw->host - 1) != 0)
    snprintf(hw->host, sizeof hw->host, "localhost");
  hw->host[sizeof hw->host - 1] = '\0';
}
