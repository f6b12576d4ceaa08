# Sources of the teams, collectives and locks of libdart-shmem, included by
# shmem/CMakeLists.txt.
set(SHMEMI_COLL_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/team.c
    ${CMAKE_CURRENT_LIST_DIR}/coll_team.c
    ${CMAKE_CURRENT_LIST_DIR}/coll_reduce.c
    ${CMAKE_CURRENT_LIST_DIR}/coll_active.c
    ${CMAKE_CURRENT_LIST_DIR}/coll_direct.c
    ${CMAKE_CURRENT_LIST_DIR}/lock.c)
