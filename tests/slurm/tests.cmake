# The cluster workflow on a real (local, one-node) Slurm: skipped (exit 77) where it cannot run.
add_test(NAME slurm_array_through_submit_sh_equals_a_local_run
         COMMAND /usr/bin/bash ${CMAKE_CURRENT_LIST_DIR}/test_local_cluster.sh
                 $<TARGET_FILE:cmbench> ${PROJECT_SOURCE_DIR})
set_tests_properties(slurm_array_through_submit_sh_equals_a_local_run PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 600)
