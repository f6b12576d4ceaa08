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

#endif /* DART__TRANSPORT_OSC_LIST_H */
