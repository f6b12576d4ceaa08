/**
 * \file dart_team_group.h
 *
 * \brief Groups (local sets of units) and teams (collective unit sets).
 *
 * A group is a local set of global unit ids, always kept in ascending order.
 * A team is created collectively from a group; within a team, units are
 * numbered 0 to size - 1 in ascending order of their global ids.
 */
#ifndef DART_TEAM_GROUP_H_INCLUDED
#define DART_TEAM_GROUP_H_INCLUDED

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \defgroup DartGroup Groups of units
 * \{
 */

/**
 * \brief Opaque handle of a group. Groups are owned by the caller and are
 *        released with \ref dart_group_destroy.
 */
typedef struct dart_group_struct* dart_group_t;

/** The team containing all units; exists after \c dart_init. */
#define DART_TEAM_ALL   ((dart_team_t)0)
/** Team id meaning "no team". */
#define DART_TEAM_NULL  ((dart_team_t)-1)
/** The invalid group handle. */
#define DART_GROUP_NULL ((struct dart_group_struct*)NULL)

/**
 * \brief Creates an empty group.
 *
 * \param group  Receives the new group.
 * \return \c DART_OK or an error code.
 * \note Thread-safe.
 */
dart_ret_t dart_group_create(dart_group_t *group) DART_NOTHROW;

/**
 * \brief Releases a group.
 *
 * \param group  The group; set to \c DART_GROUP_NULL. A null group is
 *               accepted and ignored.
 * \return \c DART_OK, or \c DART_ERR_INVAL if \c group is NULL.
 * \note Thread-safe.
 */
dart_ret_t dart_group_destroy(
  dart_group_t *group) DART_NOTHROW;

/**
 * \brief Creates a copy of a group.
 *
 * \param gin   The group to copy.
 * \param gout  Receives the new group.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 * \note Thread-safe.
 */
dart_ret_t dart_group_clone(
  const dart_group_t   gin,
  dart_group_t       * gout) DART_NOTHROW;

/**
 * \brief Creates a new group holding the union of two groups.
 *
 * \param g1    First group.
 * \param g2    Second group.
 * \param gout  Receives the new group.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_union(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/**
 * \brief Creates a new group holding the intersection of two groups.
 *
 * \param g1    First group.
 * \param g2    Second group.
 * \param gout  Receives the new group.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_intersect(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/**
 * \brief Adds a unit to a group (no effect if it is already a member).
 *
 * \param g       The group.
 * \param unitid  Global id of the unit.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_addmember(
  dart_group_t       g,
  dart_global_unit_t unitid) DART_NOTHROW;

/**
 * \brief Removes a unit from a group (no effect if it is not a member).
 *
 * \param g       The group.
 * \param unitid  Global id of the unit.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_delmember(
  dart_group_t        g,
  dart_global_unit_t  unitid) DART_NOTHROW;

/**
 * \brief Tests whether a unit belongs to a group.
 *
 * \param g         The group.
 * \param unitid    Global id of the unit.
 * \param ismember  Receives 1 for a member, 0 otherwise.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_ismember(
  const dart_group_t   g,
  dart_global_unit_t   unitid,
  int32_t            * ismember) DART_NOTHROW;

/**
 * \brief Returns the number of members of a group.
 *
 * \param g     The group.
 * \param size  Receives the number of members.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_size(
  const dart_group_t   g,
  size_t             * size) DART_NOTHROW;

/**
 * \brief Lists the members of a group in ascending order.
 *
 * \param g        The group.
 * \param unitids  Array with room for \ref dart_group_size entries; receives
 *                 the global ids of the members.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_getmembers(
  const dart_group_t   g,
  dart_global_unit_t * unitids) DART_NOTHROW;

/**
 * \brief Splits a group into \c n groups of consecutive members.
 *
 * Each of the \c n entries of \c gout receives a newly created group; groups
 * beyond the last member are empty. Local operation.
 *
 * \param g     The group to split.
 * \param n     Number of groups to create (at least 1).
 * \param nout  Receives the number of non-empty groups.
 * \param gout  Array of \c n group handles to fill.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_group_split(
  const dart_group_t    g,
  size_t                n,
  size_t              * nout,
  dart_group_t        * gout) DART_NOTHROW;

/**
 * \brief Splits a group along the locality domains of a scope.
 *
 * The domains of \c scope below \c domain are distributed over at most \c n
 * groups; each resulting group holds the members of \c g located in its
 * domains. Local operation.
 *
 * \param g       The group to split.
 * \param domain  Locality domain of the team to split along.
 * \param scope   Scope of the domains defining the parts.
 * \param n       Maximum number of groups to create.
 * \param nout    Receives the number of groups written.
 * \param gout    Array of group handles to fill.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_group_locality_split(
  const dart_group_t        g,
  dart_domain_locality_t  * domain,
  dart_locality_scope_t     scope,
  size_t                    n,
  size_t                  * nout,
  dart_group_t            * gout) DART_NOTHROW;

/** \} */

/**
 * \defgroup DartTeam Teams
 * \{
 */

/**
 * \brief Creates a group holding the global ids of all members of a team.
 *
 * \param teamid  The team.
 * \param group   Receives the new group (NULL on error).
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_get_group(
  dart_team_t    teamid,
  dart_group_t * group) DART_NOTHROW;

/**
 * \brief Creates a sub-team of \c teamid consisting of the units in \c group.
 *
 * Collective over all members of the parent team, which must pass equivalent
 * groups. Units outside \c group receive \c DART_TEAM_NULL.
 *
 * \param teamid   The parent team.
 * \param group    Global ids of the new team's members.
 * \param newteam  Receives the id of the new team or \c DART_TEAM_NULL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_create(
  dart_team_t          teamid,
  const dart_group_t   group,
  dart_team_t        * newteam) DART_NOTHROW;

/**
 * \brief Destroys a team and the resources still attached to it.
 *
 * Collective over the members of the team.
 *
 * \param teamid  The team; set to \c DART_TEAM_NULL.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_destroy(
  dart_team_t * teamid) DART_NOTHROW;

/**
 * \brief Creates a new team with the same members as \c team.
 *
 * Collective over the members of \c team.
 *
 * \param team     The team to copy.
 * \param newteam  Receives the id of the new team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_clone(
  dart_team_t   team,
  dart_team_t * newteam) DART_NOTHROW;

/**
 * \brief Returns the calling unit's id within a team.
 *
 * \param teamid  The team.
 * \param myid    Receives the team-relative id.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_myid(
  dart_team_t        teamid,
  dart_team_unit_t * myid) DART_NOTHROW;

/**
 * \brief Returns the number of members of a team.
 *
 * \param teamid  The team.
 * \param size    Receives the number of members.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_size(
  dart_team_t   teamid,
  size_t      * size) DART_NOTHROW;

/**
 * \brief Returns the calling unit's global id.
 *
 * \param myid  Receives the id within \c DART_TEAM_ALL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_myid(dart_global_unit_t *myid) DART_NOTHROW;

/**
 * \brief Returns the total number of units.
 *
 * \param size  Receives the size of \c DART_TEAM_ALL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_size(size_t *size) DART_NOTHROW;

/**
 * \brief Converts a team-relative unit id into a global id.
 *
 * \param team      The team.
 * \param localid   Id of the unit within \c team.
 * \param globalid  Receives the global id.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_unit_l2g(
  dart_team_t          team,
  dart_team_unit_t     localid,
  dart_global_unit_t * globalid) DART_NOTHROW;

/**
 * \brief Converts a global unit id into an id relative to a team.
 *
 * \param team      The team.
 * \param globalid  Global id of the unit.
 * \param localid   Receives the team-relative id; negative if the unit is
 *                  not a member of \c team.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_unit_g2l(
  dart_team_t          team,
  dart_global_unit_t   globalid,
  dart_team_unit_t   * localid) DART_NOTHROW;

/** \} */

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_TEAM_GROUP_H_INCLUDED */
