/**
 * \file dart_util.h
 *
 * \brief Attribute macros used throughout the DART interface headers.
 *
 * This header has no dependencies and no declarations with linkage; it can be
 * included from C and C++ translation units alike. The macros rely on the
 * GCC attribute syntax, which is understood by GCC, Clang, Intel and Cray.
 */
#ifndef DART_UTIL_H_
#define DART_UTIL_H_

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \def DART_NOTHROW
 * \brief Marks a function declaration as never throwing.
 *
 * Expands to \c __attribute__((nothrow)) when compiled as C++ and to nothing
 * in C. DART functions never throw or unwind, so C++ callers need no exception
 * handling code around them.
 */
#ifdef __cplusplus
#define DART_NOTHROW __attribute__((nothrow))
#else
#define DART_NOTHROW
#endif

/** \brief Silences compiler warnings about an entity that may stay unused. */
#define DART_MAYBE_UNUSED __attribute__((unused))

/**
 * \brief Storage specifiers for functions defined inside the headers.
 *
 * Such functions have internal linkage in every translation unit and do not
 * trigger unused-function warnings.
 */
#define DART_INLINE static inline DART_MAYBE_UNUSED

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#endif /* DART_UTIL_H_ */
