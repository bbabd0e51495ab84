# `cmake --install build --prefix P`: the cmbench executable, the libraries of every layer, their
# public headers under include/cmbench/, and a package configuration so that another project
# does find_package(cmbench) and links cmbench::harness, or builds its own cmbench with
# cmbench_add_executable (cmake/cmbenchHelpers.cmake). The conformance suites are installed by
# tests/CMakeLists.txt (they need GoogleTest).
set(CMB_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/cmbench)
set(CMB_EXPORTED_TARGETS cmb_options cmb_core cmb_methods cmb_problems cmb_integrators cmb_steppers
                         cmb_catalog cmb_records cmb_harness cmb_cli)
if(CMB_ALGLIB)
  list(APPEND CMB_EXPORTED_TARGETS cmb_alglib)
endif()
foreach(target IN LISTS CMB_EXPORTED_TARGETS)
  if(NOT target STREQUAL "cmb_alglib")
    string(REPLACE "cmb_" "" name ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  endif()
endforeach()
install(TARGETS cmbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${CMB_EXPORTED_TARGETS} EXPORT cmbenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cmbench)
install(EXPORT cmbenchTargets NAMESPACE cmbench:: DESTINATION ${CMB_INSTALL_CMAKEDIR})

# Public headers: the interfaces and numerics (core), the method bases and problem helpers a new
# entry builds on, the steppers and their step loop, the catalog, the result files, the harness API
# (runs, campaigns) and the command line's entry point.
foreach(folder core methods/base steppers catalog records harness cli)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cmbench/${folder}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/problems/generated_model.hpp
              ${PROJECT_SOURCE_DIR}/problems/planar_linkage.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cmbench/problems)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cmbenchConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmbenchConfig.cmake
                              INSTALL_DESTINATION ${CMB_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmbenchConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmbenchConfig.cmake
              ${PROJECT_BINARY_DIR}/cmbenchConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/cmbenchHelpers.cmake
              ${PROJECT_SOURCE_DIR}/cmake/cmbench_entries.cpp.in
              ${PROJECT_SOURCE_DIR}/cmake/cmbench_cli_main.cpp
              ${PROJECT_SOURCE_DIR}/cmake/cmbench_test_main.cpp
        DESTINATION ${CMB_INSTALL_CMAKEDIR})
