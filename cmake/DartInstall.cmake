# Installation: headers, libraries, CMake package DART, pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${DART_PUBLIC_INCLUDE_DIR}/dash
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(TARGETS dart-mpi dart-mpi-static EXPORT DARTTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT DARTTargets NAMESPACE DART::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/DART)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/DARTConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/DARTConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/DART)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/DARTConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/DARTConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/DARTConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/DART)

# pkg-config: MPI flags come from the compiler wrapper CMake found.
set(DART_PC_REQUIRES "")
if(DART_HAVE_HWLOC)
  set(DART_PC_REQUIRES_PRIVATE "hwloc")
endif()
string(JOIN " -I" DART_PC_MPI_CFLAGS "" ${MPI_C_INCLUDE_DIRS})
set(DART_PC_MPI_LIBS "")
foreach(l ${MPI_C_LIBRARIES})
  string(APPEND DART_PC_MPI_LIBS " ${l}")
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/dart-mpi.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/dart-mpi.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dart-mpi.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
