# Tests of the teams, collectives and locks of the OpenSHMEM layer, included
# by tests/shmem/CMakeLists.txt (shmem_test: 1-4 PEs, SIMNODE, APPINIT).
shmem_test(team TIMEOUT 180)
shmem_test(coll TIMEOUT 180)
shmem_test(coll_reduce TIMEOUT 180)
shmem_test(coll_active TIMEOUT 180)
shmem_test(lock TIMEOUT 180)
shmem_test(coll_direct TIMEOUT 180)
