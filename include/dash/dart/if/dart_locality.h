/**
 * \file dart_locality.h
 *
 * \brief Locality domain hierarchy and per-unit locality information.
 *
 * For every team with initialized locality data, DART keeps a record per
 * member (\ref dart_unit_locality_t) and a tree of locality domains
 * (\ref dart_domain_locality_t). Functions returning pointers into this data
 * return stable pointers that remain valid, and may be modified by the
 * caller, until the team's locality data is finalized. The structs are
 * defined in dart_types.h. This header is not included by dart.h.
 */
#ifndef DART__LOCALITY_H_
#define DART__LOCALITY_H_

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \defgroup DartLocality Locality
 * \{
 */

/**
 * \brief Builds the locality data of a team.
 *
 * Collective over \c team. Done automatically for \c DART_TEAM_ALL by
 * \c dart_init.
 *
 * \param team  The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_locality_init(
  dart_team_t                     team)                 DART_NOTHROW;

/**
 * \brief Releases the locality data of a team.
 *
 * All pointers into the team's locality data become invalid.
 *
 * \param team  The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_locality_finalize(
  dart_team_t                     team)                 DART_NOTHROW;

/**
 * \brief Looks up a domain of a team's locality hierarchy by its tag.
 *
 * \param team             The team.
 * \param domain_tag       Tag of the domain; "." is the root.
 * \param team_domain_out  Receives a pointer into the team's data (NULL if
 *                         not found).
 * \return \c DART_OK, \c DART_ERR_NOTFOUND or another error code.
 */
dart_ret_t dart_domain_team_locality(
  dart_team_t                     team,
  const char                    * domain_tag,
  dart_domain_locality_t       ** team_domain_out)      DART_NOTHROW;

/**
 * \brief Allocates a new domain with default values.
 *
 * \param domain_out  Receives the domain; release it with
 *                    \ref dart_domain_destroy.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_create(
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

/**
 * \brief Creates a deep copy of a domain and its subdomains.
 *
 * \param domain_in   The domain to copy.
 * \param domain_out  Receives the copy; release it with
 *                    \ref dart_domain_destroy.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_clone(
  const dart_domain_locality_t  * domain_in,
  dart_domain_locality_t       ** domain_out)           DART_NOTHROW;

/**
 * \brief Frees a domain obtained from \ref dart_domain_create or
 *        \ref dart_domain_clone, including all of its subdomains.
 *
 * \param domain  The domain (NULL is accepted).
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_destroy(
  dart_domain_locality_t        * domain)               DART_NOTHROW;

/**
 * \brief Replaces the content of a domain with a deep copy of another one.
 *
 * \param domain_lhs  Domain to overwrite; its previous content is released.
 * \param domain_rhs  Domain to copy.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_assign(
  dart_domain_locality_t        * domain_lhs,
  const dart_domain_locality_t  * domain_rhs)           DART_NOTHROW;

/**
 * \brief Searches a domain and its descendants for a tag.
 *
 * \param domain_in      The domain to search.
 * \param domain_tag     The tag to look for.
 * \param subdomain_out  Receives a pointer into \c domain_in's tree (NULL if
 *                       not found).
 * \return \c DART_OK or \c DART_ERR_NOTFOUND.
 */
dart_ret_t dart_domain_find(
  const dart_domain_locality_t  * domain_in,
  const char                    * domain_tag,
  dart_domain_locality_t       ** subdomain_out)        DART_NOTHROW;

/**
 * \brief Reduces a domain tree to the listed subdomains and their ancestors.
 *
 * \param domain_in           The domain, modified in place.
 * \param num_subdomain_tags  Number of tags.
 * \param subdomain_tags      Tags of the domains to keep.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_select(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

/**
 * \brief Removes the listed subdomains from a domain tree.
 *
 * \param domain_in           The domain, modified in place.
 * \param num_subdomain_tags  Number of tags.
 * \param subdomain_tags      Tags of the domains to remove.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_exclude(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)       DART_NOTHROW;

/**
 * \brief Inserts a domain as a child of another domain.
 *
 * \param domain            The new parent.
 * \param subdomain         The child; ownership passes to \c domain.
 * \param subdomain_rel_id  Position among the children; negative to append.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_add_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * subdomain,
  int                             subdomain_rel_id)     DART_NOTHROW;

/**
 * \brief Moves a domain to a new parent domain.
 *
 * \param domain             The domain to move.
 * \param new_parent_domain  The new parent.
 * \param new_domain_rel_id  Position among the new parent's children.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_move_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * new_parent_domain,
  int                             new_domain_rel_id)    DART_NOTHROW;

/**
 * \brief Splits a domain into parts along the domains of a scope.
 *
 * Each part is a copy of \c domain_in reduced to a consecutive range of the
 * domains at \c scope.
 *
 * \param domain_in         The domain to split.
 * \param scope             Scope of the domains to distribute.
 * \param num_parts         Number of parts.
 * \param split_domain_out  Caller-provided array of \c num_parts domains
 *                          that receives the parts.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_split_scope(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                             num_parts,
  dart_domain_locality_t        * split_domain_out)     DART_NOTHROW;

/**
 * \brief Returns the tags of all domains with a given scope.
 *
 * \param domain_in        The domain to search.
 * \param scope            The scope.
 * \param num_domains_out  Receives the number of domains found.
 * \param domain_tags_out  Receives an array of tags; the array and each tag
 *                         must be released with \c free().
 * \return \c DART_OK, or \c DART_ERR_NOTFOUND if no domain matches.
 */
dart_ret_t dart_domain_scope_tags(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  char                        *** domain_tags_out)      DART_NOTHROW;

/**
 * \brief Returns all domains with a given scope.
 *
 * \param domain_in        The domain to search.
 * \param scope            The scope.
 * \param num_domains_out  Receives the number of domains found.
 * \param domains_out      Receives an array of pointers into \c domain_in's
 *                         tree; the array must be released with \c free().
 * \return \c DART_OK, or \c DART_ERR_NOTFOUND if no domain matches.
 */
dart_ret_t dart_domain_scope_domains(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  dart_domain_locality_t      *** domains_out)          DART_NOTHROW;

/**
 * \brief Combines subdomains into a new domain of scope
 *        \c DART_LOCALITY_SCOPE_GROUP.
 *
 * \param domain_in             The domain, modified in place.
 * \param num_group_subdomains  Number of tags.
 * \param group_subdomain_tags  Tags of the domains to group.
 * \param group_domain_tag_out  Buffer of \c DART_LOCALITY_DOMAIN_TAG_MAX_SIZE
 *                              characters that receives the new tag.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_domain_group(
  dart_domain_locality_t        * domain_in,
  int                             num_group_subdomains,
  const char                   ** group_subdomain_tags,
  char                          * group_domain_tag_out) DART_NOTHROW;

/**
 * \brief Returns the locality record of a unit of a team.
 *
 * \param team  The team.
 * \param unit  Team-relative id of the unit.
 * \param loc   Receives a pointer into the team's data (NULL on error).
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_unit_locality(
  dart_team_t                     team,
  dart_team_unit_t                unit,
  dart_unit_locality_t         ** loc)                  DART_NOTHROW;

/** \} */

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__LOCALITY_H_ */
