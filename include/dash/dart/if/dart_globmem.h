/**
 * \file dart_globmem.h
 *
 * \brief Global pointers and the allocation of global memory.
 *
 * Global memory is organised in segments. A segment is either the per-unit
 * pool used by \ref dart_memalloc (segment id 0 of \c DART_TEAM_ALL) or a
 * team-collective allocation or registration. A global pointer names a team,
 * a segment, a unit of that team and a byte offset into that unit's portion
 * of the segment, so it stays valid when copied to other units.
 */
#ifndef DART_GLOBMEM_H_INCLUDED
#define DART_GLOBMEM_H_INCLUDED

#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_team_group.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \defgroup DartGlobMem Global pointers and global memory
 * \{
 */

/**
 * \brief Global pointer (16 bytes).
 *
 * Byte layout on little-endian LP64 targets: bytes 0-2 \c unitid, byte 3
 * \c flags, bytes 4-5 \c segid, bytes 6-7 \c teamid, bytes 8-15
 * \c addr_or_offs.
 */
typedef struct
{
  /** Unit owning the memory, relative to \c teamid (signed, 24 bits). */
  dart_unit_t  unitid : 24;
  /** Low 8 bits of the segment's flag word. */
  unsigned int flags  :  8;
  /** Segment id; 0 is the local allocation pool (\ref DART_SEGMENT_LOCAL). */
  int16_t     segid;
  /** Team the segment belongs to. */
  int16_t     teamid;
  /** Location within the owning unit's portion of the segment. */
  union
  {
    /** Byte offset from the start of the unit's portion of the segment. */
    uint64_t offset;
    /** Address view of the same bits. */
    void*    addr;
  } addr_or_offs;
} dart_gptr_t;

/**
 * \def DART_GPTR_NULL
 * \brief The null global pointer: unit -1, flags 0, segment 0, team
 *        \c DART_TEAM_NULL, offset 0.
 *
 * In C++ this is a constant expression; in C it is a compound literal.
 */
#ifdef __cplusplus
#define DART_GPTR_NULL (dart_gptr_t { -1, 0, 0, DART_TEAM_NULL, { 0 } })
#else
#define DART_GPTR_NULL \
(dart_gptr_t){ .unitid = -1, \
               .flags  =  0, \
               .segid  =  0, \
               .teamid  =  DART_TEAM_NULL, \
               .addr_or_offs.offset = 0 }
#endif

/**
 * \brief True if \c gptr_ is a null global pointer; \c flags is not examined.
 *
 * The argument is expanded several times without parentheses.
 */
#define DART_GPTR_ISNULL(gptr_)         \
  (gptr_.unitid<0 && gptr_.segid==0 &&  \
   gptr_.teamid==DART_TEAM_NULL   &&    \
   gptr_.addr_or_offs.addr==0)

/**
 * \brief True if both global pointers have equal unit, segment, team and
 *        offset; \c flags is not compared.
 */
#define DART_GPTR_EQUAL(gptr1_, gptr2_ )    \
  ((gptr1_.unitid == gptr2_.unitid) &&      \
   (gptr1_.segid  == gptr2_.segid)  &&      \
   (gptr1_.teamid == gptr2_.teamid) &&      \
   (gptr1_.addr_or_offs.offset ==           \
    gptr2_.addr_or_offs.offset) )

/** Segment id of the per-unit pool used by \ref dart_memalloc. */
#define DART_SEGMENT_LOCAL ((int16_t)0)

/**
 * \brief Returns the local address a global pointer refers to.
 *
 * \param gptr  The global pointer.
 * \param addr  Receives the address if \c gptr refers to memory of the
 *              calling unit, NULL otherwise.
 * \return \c DART_OK, or \c DART_ERR_INVAL for an unknown team or segment.
 */
dart_ret_t dart_gptr_getaddr(
  const dart_gptr_t    gptr,
        void        ** addr) DART_NOTHROW;

/**
 * \brief Points a global pointer at a local address within its segment.
 *
 * \param gptr  The global pointer; its offset is updated.
 * \param addr  Address within the caller's portion of the segment.
 * \return \c DART_OK, or \c DART_ERR_INVAL for an unknown team or segment.
 */
dart_ret_t dart_gptr_setaddr(
  dart_gptr_t * gptr,
  void        * addr) DART_NOTHROW;

/**
 * \brief Moves a global pointer by \c offs bytes (which may be negative).
 *
 * Only the offset changes; the arithmetic wraps modulo 2^64.
 *
 * \param gptr  The global pointer.
 * \param offs  Number of bytes to add.
 * \return Always \c DART_OK.
 */
DART_INLINE DART_NOTHROW
dart_ret_t
dart_gptr_incaddr(
  dart_gptr_t * gptr,
  int64_t       offs)
{
  gptr->addr_or_offs.offset += (uint64_t)offs;
  return DART_OK;
}

/**
 * \brief Sets the unit a global pointer refers to.
 *
 * Segment, team and offset are left unchanged.
 *
 * \param gptr  The global pointer.
 * \param unit  Unit id relative to \c gptr->teamid.
 * \return Always \c DART_OK.
 */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_setunit(
  dart_gptr_t      * gptr,
  dart_team_unit_t   unit)
{
  gptr->unitid = unit.id;
  return DART_OK;
}

/**
 * \brief Reads the flag word of the segment a global pointer refers to.
 *
 * \param gptr   The global pointer.
 * \param flags  Receives the flags (0 on error).
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_gptr_getflags(
  dart_gptr_t   gptr,
  uint16_t    * flags) DART_NOTHROW;

/**
 * \brief Stores the flag word of the segment a global pointer refers to.
 *
 * The low 8 bits are also copied into \c gptr->flags.
 *
 * \param gptr   The global pointer.
 * \param flags  The new flags.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_gptr_setflags(
  dart_gptr_t * gptr,
  uint16_t      flags) DART_NOTHROW;

/**
 * \brief Opaque handle of a team-wide pool allocator.
 */
typedef struct dart_allocator_struct * dart_allocator_t;

/**
 * \brief Creates a pool allocator with a private pool on every team member.
 *
 * Collective over \c team.
 *
 * \param pool_size      Size of each unit's pool in bytes.
 * \param team           The team.
 * \param new_allocator  Receives the allocator.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_allocator_new(
  size_t             pool_size,
  dart_team_t        team,
  dart_allocator_t * new_allocator);

/**
 * \brief Allocates memory from the calling unit's pool.
 *
 * Local operation. The resulting global pointer may be used by every member
 * of the allocator's team.
 *
 * \param nelem      Number of elements.
 * \param dtype      Element type.
 * \param gptr       Receives the global pointer (\c DART_GPTR_NULL on error).
 * \param allocator  The allocator.
 * \return \c DART_OK, or \c DART_ERR_NOMEM if the pool is exhausted.
 */
dart_ret_t dart_allocator_alloc(
  size_t             nelem,
  dart_datatype_t    dtype,
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

/**
 * \brief Returns memory to the calling unit's pool.
 *
 * \param gptr       Global pointer obtained from \ref dart_allocator_alloc;
 *                   set to \c DART_GPTR_NULL.
 * \param allocator  The allocator.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_allocator_free(
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator);

/**
 * \brief Destroys a pool allocator and all of its pools.
 *
 * Collective over the allocator's team.
 *
 * \param allocator  The allocator; set to NULL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator);

/**
 * \brief Allocates remotely accessible memory owned by the calling unit.
 *
 * Local operation. The memory comes from the unit's local pool (segment 0 of
 * \c DART_TEAM_ALL).
 *
 * \param nelem  Number of elements.
 * \param dtype  Element type.
 * \param gptr   Receives the global pointer (\c DART_GPTR_NULL on error).
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_memalloc(
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Frees memory obtained from \ref dart_memalloc.
 *
 * Must be called by the owning unit.
 *
 * \param gptr  Global pointer to the block.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_memfree(dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Allocates a segment across all members of a team.
 *
 * Collective over \c teamid. Every unit contributes its own \c nelem
 * elements, which may differ between units and may be zero. All members
 * receive the same global pointer, referring to offset 0 of unit 0.
 *
 * \param teamid  The team.
 * \param nelem   Number of elements allocated on the calling unit.
 * \param dtype   Basic element type.
 * \param gptr    Receives the global pointer (\c DART_GPTR_NULL on error).
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_memalloc_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Frees a segment allocated with \ref dart_team_memalloc_aligned.
 *
 * Collective over \c gptr.teamid. Unit, offset and flags of \c gptr are
 * ignored; a null pointer is accepted and ignored.
 *
 * \param gptr  Global pointer into the segment.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_memfree(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Exposes caller-provided memory of equal size on all units as a
 *        team-wide segment.
 *
 * Collective over \c teamid.
 *
 * \param teamid  The team.
 * \param nelem   Number of elements at \c addr.
 * \param dtype   Basic element type.
 * \param addr    Start of the memory to expose.
 * \param gptr    Receives the global pointer.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_memregister_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Exposes caller-provided memory as a team-wide segment.
 *
 * Collective over \c teamid. The number of elements may differ between units
 * and may be zero. The memory remains owned by the caller.
 *
 * \param teamid  The team.
 * \param nlelem  Number of local elements at \c addr.
 * \param dtype   Basic element type.
 * \param addr    Start of the memory to expose (may be NULL if \c nlelem
 *                is 0).
 * \param gptr    Receives the global pointer.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_memregister(
  dart_team_t       teamid,
  size_t            nlelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr) DART_NOTHROW;

/**
 * \brief Withdraws a registration made with \ref dart_team_memregister or
 *        \ref dart_team_memregister_aligned.
 *
 * Collective over \c gptr.teamid, but every unit may release its
 * registrations in its own order: the call does not synchronize with the
 * peers. Make sure no unit still accesses the memory before its owner
 * deregisters it (a barrier after the last access); a peer's access after
 * that may fail. The memory itself is not freed.
 *
 * \param gptr  Global pointer into the segment.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_team_memderegister(dart_gptr_t gptr) DART_NOTHROW;

/** \} */

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_GLOBMEM_H_INCLUDED */
