# Environment of the sanitizer job, sourced by scripts/test.sh --sanitize.
#
# hwloc's pci plugin leaks 1016 bytes in 9 allocations (libpciaccess) in
# every MPICH process, also in an empty MPI_Init/MPI_Finalize program; MPICH
# unloads the plugin at MPI_Finalize, so the leak report has no module to
# suppress by (lsan.supp). DART's locality does not use PCI devices.
export HWLOC_COMPONENTS=-pci
