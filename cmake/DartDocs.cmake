# API reference: `cmake --build <build> --target docs` runs Doxygen over the
# public headers (include/dash/dart/if) into <build>/docs/html. Any Doxygen
# warning fails it (WARN_AS_ERROR); the warnings are also in
# <build>/docs/warnings.log. The CTest docs.doxygen does the same and is
# skipped (77) where doxygen is not installed (scripts/setup.sh installs it).
find_program(DOXYGEN_EXECUTABLE doxygen)
set(DART_DOCS_OUTPUT ${CMAKE_BINARY_DIR}/docs)
set(DART_DOXYFILE ${CMAKE_BINARY_DIR}/Doxyfile)
configure_file(${CMAKE_CURRENT_LIST_DIR}/Doxyfile.in ${DART_DOXYFILE} @ONLY)
# Doxygen exits 0 on some warnings in some versions even with
# FAIL_ON_WARNINGS; the script also fails on a non-empty warnings.log.
set(DART_DOCS_COMMAND ${CMAKE_COMMAND} -DDOXYGEN=${DOXYGEN_EXECUTABLE}
    -DDOXYFILE=${DART_DOXYFILE} -DOUT=${DART_DOCS_OUTPUT}
    -P ${CMAKE_CURRENT_LIST_DIR}/DartRunDoxygen.cmake)
if(DOXYGEN_EXECUTABLE)
  file(GLOB _dart_doc_headers ${DART_PUBLIC_INCLUDE_DIR}/dash/dart/if/*.h)
  add_custom_target(docs COMMAND ${DART_DOCS_COMMAND}
                    DEPENDS ${_dart_doc_headers}
                    COMMENT "Doxygen: API reference in ${DART_DOCS_OUTPUT}/html"
                    VERBATIM)
else()
  add_custom_target(docs COMMAND ${CMAKE_COMMAND} -E echo
                    "doxygen not found: run scripts/setup.sh" COMMAND false)
endif()

if(DART_BUILD_TESTS)
  if(DOXYGEN_EXECUTABLE)
    add_test(NAME docs.doxygen COMMAND ${DART_DOCS_COMMAND})
  else()
    add_test(NAME docs.doxygen COMMAND sh -c
             "echo 'doxygen not found: skipped (scripts/setup.sh installs it)'; exit 77")
  endif()
  set_tests_properties(docs.doxygen PROPERTIES TIMEOUT 120 LABELS "nompi;docs"
                       SKIP_RETURN_CODE 77)
endif()
