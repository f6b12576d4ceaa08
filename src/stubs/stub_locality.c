/*
 * Placeholders for the locality module until it lands: every public
 * function logs "not implemented yet" and returns DART_ERR_OTHER.
 * DELETE THIS FILE when the module is implemented.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include "dart_team.h"

dart_ret_t dart__locality_init(void) { return DART_OK; }
void dart__locality_fini(void) {}
void dart__locality_team_fini(dart__team_t *t) { (void)t; }

dart_ret_t dart_domain_add_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * subdomain,
  int                             subdomain_rel_id)
{
  (void)domain;
  (void)subdomain;
  (void)subdomain_rel_id;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_assign(
  dart_domain_locality_t        * domain_lhs,
  const dart_domain_locality_t  * domain_rhs)
{
  (void)domain_lhs;
  (void)domain_rhs;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_clone(
  const dart_domain_locality_t  * domain_in,
  dart_domain_locality_t       ** domain_out)
{
  (void)domain_in;
  (void)domain_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_create(
  dart_domain_locality_t       ** domain_out)
{
  (void)domain_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_destroy(
  dart_domain_locality_t        * domain)
{
  (void)domain;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_exclude(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)
{
  (void)domain_in;
  (void)num_subdomain_tags;
  (void)subdomain_tags;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_find(
  const dart_domain_locality_t  * domain_in,
  const char                    * domain_tag,
  dart_domain_locality_t       ** subdomain_out)
{
  (void)domain_in;
  (void)domain_tag;
  (void)subdomain_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_group(
  dart_domain_locality_t        * domain_in,
  int                             num_group_subdomains,
  const char                   ** group_subdomain_tags,
  char                          * group_domain_tag_out)
{
  (void)domain_in;
  (void)num_group_subdomains;
  (void)group_subdomain_tags;
  (void)group_domain_tag_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_move_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * new_parent_domain,
  int                             new_domain_rel_id)
{
  (void)domain;
  (void)new_parent_domain;
  (void)new_domain_rel_id;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_scope_domains(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  dart_domain_locality_t      *** domains_out)
{
  (void)domain_in;
  (void)scope;
  (void)num_domains_out;
  (void)domains_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_scope_tags(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  char                        *** domain_tags_out)
{
  (void)domain_in;
  (void)scope;
  (void)num_domains_out;
  (void)domain_tags_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_select(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags)
{
  (void)domain_in;
  (void)num_subdomain_tags;
  (void)subdomain_tags;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_split_scope(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                             num_parts,
  dart_domain_locality_t        * split_domain_out)
{
  (void)domain_in;
  (void)scope;
  (void)num_parts;
  (void)split_domain_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_domain_team_locality(
  dart_team_t                     team,
  const char                    * domain_tag,
  dart_domain_locality_t       ** team_domain_out)
{
  (void)team;
  (void)domain_tag;
  (void)team_domain_out;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_group_locality_split(
  const dart_group_t        g,
  dart_domain_locality_t  * domain,
  dart_locality_scope_t     scope,
  size_t                    n,
  size_t                  * nout,
  dart_group_t            * gout)
{
  (void)g;
  (void)domain;
  (void)scope;
  (void)n;
  (void)nout;
  (void)gout;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_locality_finalize(
  dart_team_t                     team)
{
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_locality_init(
  dart_team_t                     team)
{
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_unit_locality(
  dart_team_t                     team,
  dart_team_unit_t                unit,
  dart_unit_locality_t         ** loc)
{
  (void)team;
  (void)unit;
  (void)loc;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}
