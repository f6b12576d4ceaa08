/*
 * Unit test (no MPI): hardware detection. The /sys + /proc fallback is run
 * on synthetic trees (a 2-package machine with sub-NUMA clusters, a
 * /proc/cpuinfo-only system, nothing at all) and on this machine; hwloc
 * (when built with it) is compared with the fallback on this machine.
 */
#define DART_TEST_NO_DART
#include "dart_test.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synth.h"

static char root[64];

/* Writes printf-formatted content to root/path, creating directories. */
static void put(const char *path, const char *fmt, ...)
{
  char full[512];
  snprintf(full, sizeof full, "%s%s", root, path);
  for (char *p = full + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    TEST_CHECK(mkdir(full, 0700) == 0 || errno == EEXIST);
    *p = '/';
  }
  FILE *f = fopen(full, "w");
  TEST_CHECK(f != NULL);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fclose(f);
}

static void put_cache(int cpu, int idx, int level, const char *type,
                      const char *size, int id, const char *shared)
{
  char dir[128];
  snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/cache/index%d", cpu,
           idx);
  char path[160];
  snprintf(path, sizeof path, "%s/level", dir);
  put(path, "%d\n", level);
  snprintf(path, sizeof path, "%s/type", dir);
  put(path, "%s\n", type);
  snprintf(path, sizeof path, "%s/size", dir);
  put(path, "%s\n", size);
  snprintf(path, sizeof path, "%s/coherency_line_size", dir);
  put(path, "64\n");
  snprintf(path, sizeof path, "%s/id", dir);
  put(path, "%d\n", id);
  snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
  put(path, "%s\n", shared);
}

/*
 * 16 CPUs: 2 packages x 4 cores x 2 threads (siblings 2c, 2c+1); every
 * package has 2 NUMA nodes of 2 cores (node k = CPUs 4k..4k+3) and one L3.
 */
static void make_sysfs_machine(void)
{
  put("/sys/devices/system/cpu/online", "0-15\n");
  put("/sys/devices/system/node/online", "0-3\n");
  for (int k = 0; k < 4; k++) {
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", k);
    put(path, "%d-%d\n", 4 * k, 4 * k + 3);
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", k);
    put(path, "Node %d MemTotal:        4194304 kB\nNode %d MemFree: 1 kB\n", k,
        k);
  }
  for (int c = 0; c < 16; c++) {
    char path[128], sib[32], pkg[32];
    int first = c & ~1, p = c / 8;
    snprintf(sib, sizeof sib, "%d-%d", first, first + 1);
    snprintf(pkg, sizeof pkg, "%d-%d", 8 * p, 8 * p + 7);
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
    put(path, "%s\n", sib);
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
    put(path, "%d\n", p);
    put_cache(c, 0, 1, "Data", "48K", first / 2, sib);
    put_cache(c, 1, 1, "Instruction", "32K", first / 2, sib);
    put_cache(c, 2, 2, "Unified", "2048K", first / 2, sib);
    put_cache(c, 3, 3, "Unified", "32M", p, pkg);
  }
  put("/sys/devices/system/cpu/cpu13/cpufreq/cpuinfo_min_freq", "800000\n");
  put("/sys/devices/system/cpu/cpu13/cpufreq/cpuinfo_max_freq", "3500000\n");
  put("/proc/meminfo", "MemTotal:       33554432 kB\nMemFree: 5 kB\n");
}

static void check_scope(const dart_hwinfo_t *hw, int i,
                        dart_locality_scope_t scope, int index)
{
  TEST_CHECK_MSG(hw->scopes[i].scope == scope && hw->scopes[i].index == index,
                 "scope %d = {%d,%d}, want {%d,%d}", i,
                 (int)hw->scopes[i].scope, hw->scopes[i].index, (int)scope,
                 index);
}

static void check_unused_scopes(const dart_hwinfo_t *hw)
{
  TEST_CHECK(hw->num_scopes >= 1);
  TEST_CHECK(hw->scopes[0].scope == DART_LOCALITY_SCOPE_CORE);
  for (int i = hw->num_scopes; i < DART_LOCALITY_MAX_DOMAIN_SCOPES; i++)
    check_scope(hw, i, DART_LOCALITY_SCOPE_UNDEFINED, -1);
}

static void test_sysfs_machine(void)
{
  make_sysfs_machine();
  dart_hwinfo_t hw;
  dart__hwinfo_clear(&hw);
  TEST_OK(dart__hwinfo_detect_sys(&hw, 13, root));
  TEST_CHECK(hw.cpu_id == 13 && hw.core_id == 6);
  TEST_CHECK(hw.num_cores == 8 && hw.num_sockets == 2);
  TEST_CHECK(hw.num_numa == 4 && hw.numa_id == 3);
  TEST_CHECK(hw.min_threads == 1 && hw.max_threads == 2);
  TEST_CHECK(hw.min_cpu_mhz == 800 && hw.max_cpu_mhz == 3500);
  /* Sum of the NUMA nodes (as hwloc), not /proc/meminfo's 32 GB. */
  TEST_CHECK(hw.system_memory_bytes == 4 * 4096 &&
             hw.numa_memory_bytes == 4096);
  TEST_CHECK(hw.cache_sizes[0] == 48 * 1024 && hw.cache_sizes[1] == 2 << 20);
  TEST_CHECK(hw.cache_sizes[2] == 32 << 20 && hw.cache_sizes[3] == -1);
  TEST_CHECK(hw.cache_line_sizes[2] == 64 && hw.cache_ids[2] == 1);
  TEST_CHECK(hw.cache_ids[0] == 6);
  /* Finest first: core (2 CPUs) < NUMA (4) < L3 (8) < package (8). */
  TEST_CHECK(hw.num_scopes == 4);
  check_scope(&hw, 0, DART_LOCALITY_SCOPE_CORE, 6);
  check_scope(&hw, 1, DART_LOCALITY_SCOPE_NUMA, 3);
  check_scope(&hw, 2, DART_LOCALITY_SCOPE_CACHE, 1);
  check_scope(&hw, 3, DART_LOCALITY_SCOPE_PACKAGE, 1);
  check_unused_scopes(&hw);
  TEST_CHECK(hw.host[0] == '\0'); /* the host is the caller's business */

  /* All 16 CPUs as units of one node: the tree has the machine's shape. */
  dart_hwinfo_t all[16];
  int32_t gids[16];
  for (int c = 0; c < 16; c++) {
    dart__hwinfo_clear(&all[c]);
    TEST_OK(dart__hwinfo_detect_sys(&all[c], c, root));
    snprintf(all[c].host, sizeof all[c].host, "n");
    gids[c] = c;
  }
  dart__locality_t *loc;
  TEST_OK(dart__locality_build(0, 16, gids, all, &loc));
  dart_domain_locality_t **doms;
  int n;
  TEST_OK(dart_domain_scope_domains(loc->root, DART_LOCALITY_SCOPE_NUMA, &n,
                                    &doms));
  TEST_CHECK(n == 4 && doms[3]->num_units == 4 && doms[3]->level == 5);
  free(doms);
  TEST_OK(dart_domain_scope_domains(loc->root, DART_LOCALITY_SCOPE_CORE, &n,
                                    &doms));
  TEST_CHECK(n == 8 && doms[6]->unit_ids[1].id == 13);
  TEST_CHECK(strcmp(loc->units[13].domain_tag, ".0.0.1.0.1.0") == 0);
  free(doms);
  dart__locality_free(loc);
}

static void test_cpuinfo_only(void)
{
  snprintf(root + strlen(root), sizeof root - strlen(root), "/ci");
  put("/proc/cpuinfo", "processor\t: 0\nphysical id\t: 0\ncore id\t\t: 0\ncpu "
                       "MHz\t\t: 2400.4\n\n"
                       "processor\t: 1\nphysical id\t: 0\ncore id\t\t: 1\ncpu "
                       "MHz\t\t: 2400.4\n\n"
                       "processor\t: 2\nphysical id\t: 0\ncore id\t\t: 0\ncpu "
                       "MHz\t\t: 1999.6\n\n"
                       "processor\t: 3\nphysical id\t: 0\ncore id\t\t: 1\ncpu "
                       "MHz\t\t: 2400.4\n");
  put("/proc/meminfo", "MemFree: 5 kB\nMemTotal:  1048576 kB\n");
  dart_hwinfo_t hw;
  dart__hwinfo_clear(&hw);
  TEST_OK(dart__hwinfo_detect_sys(&hw, 2, root));
  TEST_CHECK(hw.core_id == 0 && hw.num_cores == 2 && hw.max_threads == 2);
  TEST_CHECK(hw.num_sockets == 1 && hw.num_numa == -1 && hw.numa_id == -1);
  TEST_CHECK(hw.min_cpu_mhz == 2000 && hw.max_cpu_mhz == 2000);
  TEST_CHECK(hw.system_memory_bytes == 1024); /* from /proc/meminfo */
  TEST_CHECK(hw.num_scopes == 2);
  check_scope(&hw, 0, DART_LOCALITY_SCOPE_CORE, 0);
  check_scope(&hw, 1, DART_LOCALITY_SCOPE_PACKAGE, 0);
  check_unused_scopes(&hw);

  /* Nothing readable: the minimal description, -1 elsewhere. */
  snprintf(root + strlen(root), sizeof root - strlen(root), "/none");
  dart__hwinfo_clear(&hw);
  TEST_EQ_RET(dart__hwinfo_detect_sys(&hw, 3, root), -1);
  TEST_CHECK(hw.num_scopes == 1 && hw.core_id == 3 && hw.cpu_id == 3);
  check_scope(&hw, 0, DART_LOCALITY_SCOPE_CORE, 3);
  check_unused_scopes(&hw);
  TEST_CHECK(hw.num_cores == -1 && hw.min_cpu_mhz == -1);
}

/* Sanity of a detection on this machine. */
static void check_real(const dart_hwinfo_t *hw)
{
  check_unused_scopes(hw);
  TEST_CHECK(hw->host[0] != '\0');
  TEST_CHECK(hw->num_cores >= 1 && hw->cpu_id >= 0);
  TEST_CHECK(hw->core_id >= 0 && hw->core_id < hw->num_cores);
  TEST_CHECK(hw->min_threads >= 1 && hw->max_threads >= hw->min_threads);
  TEST_CHECK(hw->min_cpu_mhz != 0 && hw->max_cpu_mhz != 0);
  TEST_CHECK(hw->system_memory_bytes > 0);
  TEST_CHECK(hw->max_shmem_mbps == -1); /* set by the MPI layer */
}

static void print_hw(const char *what, const dart_hwinfo_t *hw)
{
  printf("%s: host %s cpu %d core %d/%d numa %d/%d sockets %d mhz %d-%d "
         "threads %d-%d mem %d MB L1 %d L2 %d L3 %d scopes",
         what, hw->host, hw->cpu_id, hw->core_id, hw->num_cores, hw->numa_id,
         hw->num_numa, hw->num_sockets, hw->min_cpu_mhz, hw->max_cpu_mhz,
         hw->min_threads, hw->max_threads, hw->system_memory_bytes,
         hw->cache_sizes[0], hw->cache_sizes[1], hw->cache_sizes[2]);
  for (int i = 0; i < hw->num_scopes; i++)
    printf(" {%d,%d}", (int)hw->scopes[i].scope, hw->scopes[i].index);
  printf("\n");
}

/* Exit code of a test that cannot run here (CTest SKIP_RETURN_CODE). */
enum { SKIP = 77 };

/* CPU cache information in /sys: some VMs have none (hwloc then reads the
 * caches from CPUID, so the two detections cannot agree on them). */
static bool sys_has_caches(void)
{
  struct stat st;
  return stat("/sys/devices/system/cpu/cpu0/cache/index0", &st) == 0;
}

/* Returns SKIP if the machine lacks what the comparison needs, else 0. */
static int test_this_machine(void)
{
  dart_hwinfo_t sys, loc;
  dart__hwinfo_detect(&sys, false);
  print_hw("sys  ", &sys);
  check_real(&sys);
  dart__hwinfo_detect(&loc, true);
  print_hw("hwloc", &loc);
  check_real(&loc);
  int cpu = dart__hwinfo_current_cpu();
  TEST_CHECK(cpu >= 0);
#ifdef DART_HAVE_HWLOC
  dart_hwinfo_t direct;
  dart__hwinfo_clear(&direct);
  TEST_EQ_RET(dart__hwinfo_detect_hwloc(&direct, 1 << 20), -1);
  /* Both paths see the same machine (the CPU may differ between calls). */
  TEST_CHECK(sys.num_cores == loc.num_cores && sys.num_numa == loc.num_numa);
  TEST_CHECK(sys.num_sockets == loc.num_sockets);
  TEST_CHECK(sys.system_memory_bytes == loc.system_memory_bytes);
  TEST_CHECK(sys.max_threads == loc.max_threads);
  if (!sys_has_caches()) {
    printf("SKIP: /sys has no CPU cache information "
           "(/sys/devices/system/cpu/cpu0/cache), so the cache levels of the "
           "/sys and hwloc detections cannot be compared\n");
    return SKIP;
  }
  TEST_CHECK(sys.num_scopes == loc.num_scopes);
  for (int i = 0; i < sys.num_scopes; i++)
    TEST_CHECK(sys.scopes[i].scope == loc.scopes[i].scope);
  for (int l = 0; l < DART_LOCALITY_MAX_CACHE_LEVELS; l++)
    TEST_CHECK(sys.cache_sizes[l] == loc.cache_sizes[l]);
#endif
  return 0;
}

/* No argument: synthetic /sys trees. "machine": this machine's detection
 * (CTest runs it as a test of its own that may be skipped). */
int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "machine") == 0) {
    int rc = test_this_machine();
    if (rc == 0) printf("locality hwinfo (this machine): OK\n");
    return rc;
  }
  snprintf(root, sizeof root, "/tmp/dart_hwinfo_XXXXXX");
  TEST_CHECK(mkdtemp(root) != NULL);
  char base[64];
  snprintf(base, sizeof base, "%s", root);
  test_sysfs_machine();
  test_cpuinfo_only();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  TEST_CHECK(system(cmd) == 0);
  printf("locality hwinfo: OK\n");
  return 0;
}
