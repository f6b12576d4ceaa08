/**
 * \file dart_types.h
 *
 * \brief Basic types and constants of the DART interface.
 *
 * Defines return codes, reduction operations, datatype handles, unit and team
 * identifiers, thread support levels, the locality description structures,
 * the runtime configuration struct as well as the functions for derived
 * datatypes and user-defined reduction operations.
 */
#ifndef DART_TYPES_H_INCLUDED
#define DART_TYPES_H_INCLUDED

#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <limits.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \defgroup DartTypes DART basic types and constants
 * \{
 */

/**
 * \brief Status code returned by almost every DART function.
 */
typedef enum
{
  /** The operation succeeded. */
  DART_OK           =   0,
  /** The operation has not completed yet. */
  DART_PENDING      =   1,
  /** An argument was invalid (unknown team, segment or unit, bad type, ...). */
  DART_ERR_INVAL    =   2,
  /** A look-up did not find the requested entity. */
  DART_ERR_NOTFOUND =   3,
  /** DART has not been initialized. */
  DART_ERR_NOTINIT  =   4,
  /** A memory pool ran out of space. */
  DART_ERR_NOMEM    =   5,
  /** Any other kind of failure. */
  DART_ERR_OTHER    = 999
} dart_ret_t;

/**
 * \brief Process exit codes that can be handed to \c dart_abort.
 */
enum
{
  /** Regular termination. */
  DART_EXIT_SUCCESS = EXIT_SUCCESS,
  /** Termination caused by an abort. */
  DART_EXIT_ABORT   = EXIT_FAILURE,
  /** Termination caused by a failed assertion. */
  DART_EXIT_ASSERT  = -6
};

/**
 * \brief Predefined reduction and atomic operations.
 *
 * The enumerators are integral constants and are stored in values of type
 * \ref dart_operation_t. Handles of user-defined operations created with
 * \c dart_op_create are always greater than \c DART_OP_LAST.
 */
enum
{
  /** No predefined operation. */
  DART_OP_UNDEFINED = 0,
  /** Minimum. */
  DART_OP_MIN,
  /** Maximum. */
  DART_OP_MAX,
  /**
   * Combined minimum and maximum on (min, max) element pairs; only valid in
   * reductions. See \ref DART_OP_MINMAX_MIN and \ref DART_OP_MINMAX_MAX.
   */
  DART_OP_MINMAX,
  /** Sum. */
  DART_OP_SUM,
  /** Product. */
  DART_OP_PROD,
  /** Bitwise AND. */
  DART_OP_BAND,
  /** Logical AND. */
  DART_OP_LAND,
  /** Bitwise OR. */
  DART_OP_BOR,
  /** Logical OR. */
  DART_OP_LOR,
  /** Bitwise XOR. */
  DART_OP_BXOR,
  /** Logical XOR. */
  DART_OP_LXOR,
  /** Overwrite the target with the operand (atomic store). */
  DART_OP_REPLACE,
  /** Leave the target unchanged (atomic load). */
  DART_OP_NO_OP,
  /** Number of predefined operations; not an operation itself. */
  DART_OP_LAST
};

/**
 * \brief Handle of a reduction operation: a \c DART_OP_* constant or a value
 *        obtained from \c dart_op_create.
 */
typedef uintptr_t dart_operation_t;

/** Index of the minimum within a \c DART_OP_MINMAX element pair. */
#define DART_OP_MINMAX_MIN 0
/** Index of the maximum within a \c DART_OP_MINMAX element pair. */
#define DART_OP_MINMAX_MAX 1

/**
 * \brief Handle of a datatype: one of the basic \c DART_TYPE_* constants or a
 *        derived type (always greater than \c DART_TYPE_LAST).
 */
typedef intptr_t dart_datatype_t;

/** No datatype. */
#define DART_TYPE_UNDEFINED    (dart_datatype_t)(0)
/** Single byte (\c char, raw memory). */
#define DART_TYPE_BYTE         (dart_datatype_t)(1)
/** \c short */
#define DART_TYPE_SHORT        (dart_datatype_t)(2)
/** \c int */
#define DART_TYPE_INT          (dart_datatype_t)(3)
/** \c unsigned \c int */
#define DART_TYPE_UINT         (dart_datatype_t)(4)
/** \c long */
#define DART_TYPE_LONG         (dart_datatype_t)(5)
/** \c unsigned \c long */
#define DART_TYPE_ULONG        (dart_datatype_t)(6)
/** \c long \c long */
#define DART_TYPE_LONGLONG     (dart_datatype_t)(7)
/** \c unsigned \c long \c long */
#define DART_TYPE_ULONGLONG    (dart_datatype_t)(8)
/** \c float */
#define DART_TYPE_FLOAT        (dart_datatype_t)(9)
/** \c double */
#define DART_TYPE_DOUBLE       (dart_datatype_t)(10)
/** \c long \c double */
#define DART_TYPE_LONG_DOUBLE  (dart_datatype_t)(11)
/** Number of basic datatypes; not a datatype itself. */
#define DART_TYPE_LAST         (dart_datatype_t)(12)

/**
 * \def DART_TYPE_SIZET
 * \brief Basic datatype whose width matches \c size_t on this platform.
 */
#if (UINT32_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONG
#elif (UINT64_MAX == SIZE_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONGLONG
#else
#  error "DART: no basic datatype matches the width of size_t"
#endif

/**
 * \brief Raw integer value of a unit identifier.
 */
typedef int32_t dart_unit_t;

/** Unit id value meaning "no unit". */
#define DART_UNDEFINED_UNIT_ID ((dart_unit_t)(-1))

/**
 * \brief Unit identifier relative to \c DART_TEAM_ALL (a global id).
 *
 * Wrapping the id in a struct keeps it from being mixed up with team-relative
 * ids. In C++ the struct can be constructed implicitly from a \ref dart_unit_t
 * and default-constructs to \ref DART_UNDEFINED_UNIT_ID.
 */
typedef struct dart_global_unit {
#ifdef __cplusplus
  /** Creates an undefined unit id. */
  constexpr dart_global_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  /** Creates a unit id with value \c uid. */
  constexpr dart_global_unit(dart_unit_t uid) : id(uid) { }
#endif
  /** The global id. */
  dart_unit_t id;
} dart_global_unit_t;

/**
 * \brief Unit identifier relative to some team (range 0 to team size - 1).
 *
 * In C++ the struct can be constructed implicitly from a \ref dart_unit_t
 * and default-constructs to \ref DART_UNDEFINED_UNIT_ID.
 */
typedef struct dart_local_unit {
#ifdef __cplusplus
  /** Creates an undefined unit id. */
  constexpr dart_local_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  /** Creates a unit id with value \c uid. */
  constexpr dart_local_unit(dart_unit_t uid) : id(uid) { }
#endif
  /** The team-relative id. */
  dart_unit_t id;
} dart_team_unit_t;

/**
 * \brief Wraps a raw id into a team-relative unit id.
 *
 * \param unit  The raw id.
 * \return A \ref dart_team_unit_t holding \c unit.
 */
static inline
dart_team_unit_t dart_create_team_unit(dart_unit_t unit)
{
  dart_team_unit_t team_unit;
  team_unit.id = unit;
  return team_unit;
}

/** Team-relative unit id with value \c __u (not a constant expression). */
#define DART_TEAM_UNIT_ID(__u) (dart_create_team_unit(__u))

/**
 * \brief Wraps a raw id into a global unit id.
 *
 * \param unit  The raw id.
 * \return A \ref dart_global_unit_t holding \c unit.
 */
static inline
dart_global_unit_t dart_create_global_unit(dart_unit_t unit)
{
  dart_global_unit_t global_unit;
  global_unit.id = unit;
  return global_unit;
}

/** Global unit id with value \c __u (not a constant expression). */
#define DART_GLOBAL_UNIT_ID(__u) (dart_create_global_unit(__u))

/** Undefined team-relative unit id. */
#define DART_UNDEFINED_TEAM_UNIT_ID DART_TEAM_UNIT_ID(DART_UNDEFINED_UNIT_ID)
/** Undefined global unit id. */
#define DART_UNDEFINED_GLOBAL_UNIT_ID DART_GLOBAL_UNIT_ID(DART_UNDEFINED_UNIT_ID)

/**
 * \brief Team identifier. \c DART_TEAM_ALL and \c DART_TEAM_NULL are defined
 *        in dart_team_group.h.
 */
typedef int16_t dart_team_t;

/** Team id value meaning "no team" (same value as \c DART_TEAM_NULL). */
#define DART_UNDEFINED_TEAM_ID ((dart_team_t)(-1))

/**
 * \brief Degree of multi-threading supported by the runtime.
 */
typedef enum
{
  /** Only a single thread of a unit may call DART. */
  DART_THREAD_SINGLE = 0,
  /** Thread-safe DART functions may be called concurrently. */
  DART_THREAD_MULTIPLE = 10
} dart_thread_support_level_t;

/**
 * \brief Scopes of the locality hierarchy.
 *
 * The values grow from coarse to fine: a scope with a smaller value encloses
 * scopes with larger values.
 */
typedef enum
{
  /** No scope. */
  DART_LOCALITY_SCOPE_UNDEFINED  =   -1,
  /** The whole system. */
  DART_LOCALITY_SCOPE_GLOBAL     =    0,
  /** A user-defined group of domains. */
  DART_LOCALITY_SCOPE_GROUP      =    1,
  /** A network partition. */
  DART_LOCALITY_SCOPE_NETWORK    =   50,
  /** A compute node (shared-memory host). */
  DART_LOCALITY_SCOPE_NODE       =  100,
  /** A module of a node (the node itself or an attached accelerator). */
  DART_LOCALITY_SCOPE_MODULE     =  200,
  /** A NUMA domain. */
  DART_LOCALITY_SCOPE_NUMA       =  300,
  /** A DART unit. */
  DART_LOCALITY_SCOPE_UNIT       =  400,
  /** A processor package (socket). */
  DART_LOCALITY_SCOPE_PACKAGE    =  500,
  /** The uncore part of a package. */
  DART_LOCALITY_SCOPE_UNCORE     =  510,
  /** A shared cache. */
  DART_LOCALITY_SCOPE_CACHE      =  530,
  /** A physical core. */
  DART_LOCALITY_SCOPE_CORE       =  550,
  /** A hardware thread (logical CPU). */
  DART_LOCALITY_SCOPE_CPU        =  600
}
dart_locality_scope_t;

/**
 * \def DART_LOCALITY_HOST_MAX_SIZE
 * \brief Size of the host name buffers in the locality structs (64).
 *
 * One fixed value in every language mode, chosen for binary compatibility:
 * the original DART derived the size from \c HOST_NAME_MAX, which glibc
 * shows to every C++ translation unit (g++ defines \c _GNU_SOURCE) as 64.
 * Programs built against the original headers in C++ (DASH among them)
 * therefore use 64-byte host buffers. Fixing the value keeps C and C++
 * translation units identical and lets such binaries relink with this
 * library. Host names longer than 63 bytes are truncated.
 */
#define DART_LOCALITY_HOST_MAX_SIZE       ((int)(64))
/** Size of the domain tag buffers, including the terminating null byte. */
#define DART_LOCALITY_DOMAIN_TAG_MAX_SIZE ((int)(32))
/** Capacity of \c dart_hwinfo_t::scopes. */
#define DART_LOCALITY_MAX_DOMAIN_SCOPES   ((int)(12))
/** Maximum number of CPUs per unit. */
#define DART_LOCALITY_UNIT_MAX_CPUS       ((int)(64))
/** Upper bound of NUMA domain ids. */
#define DART_LOCALITY_MAX_NUMA_ID         ((int)(16))
/** Number of cache levels described in \c dart_hwinfo_t. */
#define DART_LOCALITY_MAX_CACHE_LEVELS    ((int)( 5))

/**
 * \brief A scope together with the index of the object at that scope.
 */
typedef struct {
    /** The scope. */
    dart_locality_scope_t           scope;
    /** Index of the hardware object within its scope. */
    int                             index;
}
dart_locality_scope_pos_t;

/**
 * \brief Hardware properties of the resources assigned to one unit.
 *
 * A fixed-size struct without pointers, so it can be copied bytewise between
 * units. Unknown integer values are -1.
 */
typedef struct
{
    /** Host name (null-terminated). */
    char  host[DART_LOCALITY_HOST_MAX_SIZE];
    /** Number of cores available to the unit. */
    int   num_cores;
    /** Number of NUMA domains. */
    int   num_numa;
    /** NUMA domain id of the unit. */
    int   numa_id;
    /** Number of processor packages (sockets). */
    int   num_sockets;
    /** Id of the unit's core. */
    int   core_id;
    /** Id of the unit's CPU. */
    int   cpu_id;
    /** Minimum clock frequency in MHz. */
    int   min_cpu_mhz;
    /** Maximum clock frequency in MHz. */
    int   max_cpu_mhz;
    /** Cache sizes in bytes, per level. */
    int   cache_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
    /** Cache line sizes in bytes, per level. */
    int   cache_line_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];
    /** Cache ids, per level. */
    int   cache_ids[DART_LOCALITY_MAX_CACHE_LEVELS];
    /** Minimum number of hardware threads usable by the unit. */
    int   min_threads;
    /** Maximum number of hardware threads usable by the unit. */
    int   max_threads;
    /** Shared-memory bandwidth in MB/s. */
    int   max_shmem_mbps;
    /** Size of the system memory (in MB despite the name). */
    int   system_memory_bytes;
    /** Size of the NUMA domain's memory. */
    int   numa_memory_bytes;
    /** Enclosing hardware objects, finest first. */
    dart_locality_scope_pos_t scopes[DART_LOCALITY_MAX_DOMAIN_SCOPES];
    /** Number of valid entries in \c scopes. */
    int   num_scopes;
}
dart_hwinfo_t;

/**
 * \brief Location of a module (e.g. an accelerator) within a host.
 */
typedef struct
{
    /** Host name of the node. */
    char  host[DART_LOCALITY_HOST_MAX_SIZE];
    /** Host name of the module. */
    char  module[DART_LOCALITY_HOST_MAX_SIZE];
    /** Scope and index of the module. */
    dart_locality_scope_pos_t pos;
}
dart_module_location_t;

/**
 * \brief A node of the locality domain hierarchy.
 *
 * Domains form a tree: the root has tag "." and scope
 * \c DART_LOCALITY_SCOPE_GLOBAL, its children are the nodes, and the leaves
 * are cores.
 */
struct dart_domain_locality_s
{
    /** Host name of the domain (empty for domains above node level). */
    char host[DART_LOCALITY_HOST_MAX_SIZE];
    /** Hierarchical tag such as ".0.1" (null-terminated). */
    char domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
    /** Domains that this (group) domain stands for. */
    struct dart_domain_locality_s ** aliases;
    /** Number of entries in \c aliases. */
    int                              num_aliases;
    /** Scope of the domain. */
    dart_locality_scope_t            scope;
    /** Depth in the hierarchy; the root has level 0. */
    int                              level;
    /** Index of the domain among all domains of its scope. */
    int                              global_index;
    /** Index of the domain among its siblings. */
    int                              relative_index;
    /** Enclosing domain, NULL for the root. */
    struct dart_domain_locality_s  * parent;
    /** Number of child domains. */
    int                              num_domains;
    /** Child domains, NULL if there are none. */
    struct dart_domain_locality_s ** children;
    /** Non-zero if the subdomains are symmetric (informational). */
    int                              is_symmetric;
    /** Team the domain hierarchy belongs to. */
    dart_team_t                      team;
    /** Number of units in the domain. */
    int                              num_units;
    /** Global ids of the units in the domain, NULL if there are none. */
    dart_global_unit_t             * unit_ids;
    /** Number of nodes in the domain. */
    int                              num_nodes;
    /** Index of the node containing the domain. */
    int                              node_id;
    /** Number of cores in the domain. */
    int                              num_cores;
    /** Size of the memory shared within the domain, in bytes. */
    int                              shared_mem_bytes;
};
struct dart_domain_locality_s;
/** \brief A node of the locality domain hierarchy. */
typedef struct dart_domain_locality_s
    dart_domain_locality_t;

/**
 * \brief Locality record of one unit within a team.
 *
 * A fixed-size struct without pointers, so it can be copied bytewise between
 * units.
 */
typedef struct {
    /** Team-relative id of the unit. */
    dart_team_unit_t         unit;
    /** The team. */
    dart_team_t              team;
    /** Hardware properties of the unit. */
    dart_hwinfo_t            hwinfo;
    /** Tag of the leaf domain the unit belongs to. */
    char                     domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
}
dart_unit_locality_t;

/**
 * \brief Process-wide runtime settings (see \c dart_config).
 */
typedef struct
{
  /** Non-zero if DART may write log output. */
  int log_enabled;
}
dart_config_t;

/** \} */

/**
 * \defgroup DartTypeCreate Derived datatypes and custom operations
 * \{
 */

/**
 * \brief Creates a strided datatype.
 *
 * The type describes blocks of \c blocklen elements of \c basetype whose
 * starts are \c stride elements apart. Local operation.
 *
 * \param basetype  Contiguous element type (basic or custom).
 * \param stride    Distance between block starts, in elements.
 * \param blocklen  Number of elements per block.
 * \param newtype   Receives the new type (\c DART_TYPE_UNDEFINED on error).
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t
dart_type_create_strided(
  dart_datatype_t   basetype,
  size_t            stride,
  size_t            blocklen,
  dart_datatype_t * newtype);

/**
 * \brief Creates an indexed datatype.
 *
 * Block \c i consists of \c blocklen[i] elements of \c basetype, starting at
 * element \c offset[i]. The arrays are copied. Local operation.
 *
 * \param basetype  Contiguous element type (basic or custom).
 * \param count     Number of blocks.
 * \param blocklen  Number of elements of each block.
 * \param offset    Start of each block, in elements.
 * \param newtype   Receives the new type (\c DART_TYPE_UNDEFINED on error).
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t
dart_type_create_indexed(
  dart_datatype_t   basetype,
  size_t            count,
  const size_t      blocklen[],
  const size_t      offset[],
  dart_datatype_t * newtype);

/**
 * \brief Creates a contiguous opaque datatype of \c num_bytes bytes.
 *
 * Elements of the type count as one element each. Local operation.
 *
 * \param num_bytes  Size of one element in bytes.
 * \param newtype    Receives the new type.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t
dart_type_create_custom(
  size_t            num_bytes,
  dart_datatype_t * newtype);

/**
 * \brief Releases a derived datatype.
 *
 * Operations already started with the type complete normally. Local
 * operation.
 *
 * \param dart_type  The type; set to \c DART_TYPE_UNDEFINED.
 * \return \c DART_OK, or \c DART_ERR_INVAL for NULL or a basic type.
 */
dart_ret_t
dart_type_destroy(dart_datatype_t *dart_type);

/**
 * \brief Signature of a user-defined reduction function.
 *
 * Combines \c len elements element-wise as
 * <tt>inoutvec[i] = invec[i] op inoutvec[i]</tt>.
 *
 * \param invec      First operand.
 * \param inoutvec   Second operand, overwritten with the result.
 * \param len        Number of elements (of the operation's datatype).
 * \param user_data  The pointer given to \c dart_op_create.
 */
typedef void (*dart_operator_t)(
  const void   * invec,
        void   * inoutvec,
        size_t   len,
        void   * user_data);

/**
 * \brief Registers a user-defined reduction operation.
 *
 * The operation can be used with \c dart_allreduce and \c dart_reduce on
 * elements of \c dtype. Local operation.
 *
 * \param op            The reduction function.
 * \param userdata      Passed to every call of \c op; not copied.
 * \param commute       Whether \c op is commutative.
 * \param dtype         Contiguous element type (basic or custom).
 * \param dtype_is_tmp  Hint that \c dtype lives only as long as the operation.
 * \param new_op        Receives the handle (\c DART_OP_UNDEFINED on error).
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t
dart_op_create(
  dart_operator_t    op,
  void             * userdata,
  bool               commute,
  dart_datatype_t    dtype,
  bool               dtype_is_tmp,
  dart_operation_t * new_op);

/**
 * \brief Releases an operation created with \c dart_op_create.
 *
 * \param op  The operation; set to \c DART_OP_UNDEFINED.
 * \return \c DART_OK or an error code.
 */
dart_ret_t
dart_op_destroy(dart_operation_t *op);

/** \} */

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_TYPES_H_INCLUDED */
