# kindling_add_mpi_test(NAME <ctest name> NP <ranks> COMMAND <target> [args...] [PROPERTIES ...])
# Runs a program under mpirun as one CTest test. The flags it needs live here and nowhere else:
#  - OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM): CI runs the tests as root, which mpirun refuses otherwise
#    (set for the test only, never in the user's environment);
#  - OMPI_MCA_rmaps_base_oversubscribe: more ranks than cores (4 ranks on a 2-core machine);
#  - OMPI_MCA_hwloc_base_binding_policy=none: no rank pinned to a core, so several jobs sharing
#    the machine (ctest -j) do not pile onto the same core;
#  - KINDLING_DISTRIBUTED_EXIT_TIMEOUT=3: a rank that exits while the others still wait for it ends
#    the job after 3 s instead of 30 (lib/src/distributed/process_group.cpp, destroy_at_exit).
function(kindling_add_mpi_test)
  cmake_parse_arguments(M "" "NAME;NP" "COMMAND;PROPERTIES" ${ARGN})
  list(POP_FRONT M_COMMAND target)
  add_test(NAME "${M_NAME}"
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${M_NP} ${MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS} ${M_COMMAND})
  set_tests_properties("${M_NAME}" PROPERTIES
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_hwloc_base_binding_policy=none;KINDLING_DISTRIBUTED_EXIT_TIMEOUT=3"
    LABELS "distributed;mpi" TIMEOUT 60 PROCESSORS ${M_NP} ${M_PROPERTIES})
endfunction()
