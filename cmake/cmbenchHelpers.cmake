# CMake functions for programs built on cmbench with entries of their own (docs/extending.md,
# "Outside the tree"). Each entry is one source file that defines it with CMB_DEFINE_METHOD(id),
# CMB_DEFINE_PROBLEM(id), CMB_DEFINE_STEPPER(id) or CMB_DEFINE_INTEGRATOR(id); the functions read
# the ids from the files and
# generate a main() that adds the entries to the catalog before anything looks one up (explicit
# registration: no static initialisers for a linker to drop).
#
#   cmbench_add_executable(NAME [METHODS file...] [PROBLEMS file...] [STEPPERS file...]
#                          [INTEGRATORS file...] [SOURCES file...])
#     NAME is the full cmbench command line (list, describe, run, campaign, merge, compare) with
#     the catalog's entries and the listed ones. Its records and --version name its own build
#     (build type, flags, compiler) beside the cmbench libraries'.
#   cmbench_add_conformance_tests(NAME [METHODS ...] [PROBLEMS ...] [STEPPERS ...]
#                                 [INTEGRATORS ...] [SOURCES file...])
#     NAME is a GoogleTest executable running cmbench's conformance suites (every method x every
#     problem against the KKT oracle, no allocation in RHS calls, Jacobians and gamma against
#     finite differences, ...) over the catalog plus the listed entries, and the SOURCES' tests.
#     Register its tests with gtest_discover_tests(NAME).
# Both work in cmbench's own tree, after add_subdirectory(cmbench) and after find_package(cmbench).

# A cache entry, not a variable: the functions are called from the directory that includes cmbench
# (add_subdirectory), where our variables are not visible.
set(_CMBENCH_HELPERS_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "cmbench helpers directory")

# The ids defined in `files` by CMB_DEFINE_<kind>(id), one per file, into `out`.
function(_cmbench_entry_ids kind out)
  set(ids "")
  foreach(file IN LISTS ARGN)
    get_filename_component(path "${file}" ABSOLUTE)
    file(STRINGS "${path}" lines REGEX "CMB_DEFINE_${kind}\\(")
    set(found "")
    foreach(line IN LISTS lines)
      if(line MATCHES "CMB_DEFINE_${kind}\\(([a-z0-9_]+)\\)")
        list(APPEND found "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    list(LENGTH found count)
    if(NOT count EQUAL 1)
      message(FATAL_ERROR "cmbench: ${file} must define exactly one entry with "
                          "CMB_DEFINE_${kind}(id) (snake_case id); found ${count}")
    endif()
    list(APPEND ids ${found})
  endforeach()
  set(${out} "${ids}" PARENT_SCOPE)
endfunction()

# Writes NAME_entries.cpp: the declarations of the entry functions and
# cmb_add_program_entries(), which adds them to the tables.
function(_cmbench_write_entries name out_file)
  cmake_parse_arguments(ARG "" "" "METHODS;PROBLEMS;STEPPERS;INTEGRATORS" ${ARGN})
  _cmbench_entry_ids(METHOD methods ${ARG_METHODS})
  _cmbench_entry_ids(PROBLEM problems ${ARG_PROBLEMS})
  _cmbench_entry_ids(STEPPER steppers ${ARG_STEPPERS})
  _cmbench_entry_ids(INTEGRATOR integrators ${ARG_INTEGRATORS})
  set(declarations "")
  set(method_calls "")
  set(problem_calls "")
  set(stepper_calls "")
  set(integrator_calls "")
  foreach(id IN LISTS methods)
    string(APPEND declarations "cmb::MethodEntry cmb_method_entry_${id}();\n")
    string(APPEND method_calls "cmb_method_entry_${id}(), ")
  endforeach()
  foreach(id IN LISTS problems)
    string(APPEND declarations "cmb::ProblemEntry cmb_problem_entry_${id}();\n")
    string(APPEND problem_calls "cmb_problem_entry_${id}(), ")
  endforeach()
  foreach(id IN LISTS steppers)
    string(APPEND declarations "cmb::StepperSpec cmb_stepper_entry_${id}();\n")
    string(APPEND stepper_calls "cmb_stepper_entry_${id}(), ")
  endforeach()
  foreach(id IN LISTS integrators)
    string(APPEND declarations "cmb::IntegratorEntry cmb_integrator_entry_${id}();\n")
    string(APPEND integrator_calls "cmb_integrator_entry_${id}(), ")
  endforeach()
  set(CMBENCH_PROGRAM "${name}")
  set(CMBENCH_ENTRY_DECLARATIONS "${declarations}")
  set(CMBENCH_METHOD_ENTRIES "${method_calls}")
  set(CMBENCH_PROBLEM_ENTRIES "${problem_calls}")
  set(CMBENCH_STEPPER_ENTRIES "${stepper_calls}")
  set(CMBENCH_INTEGRATOR_ENTRIES "${integrator_calls}")
  configure_file("${_CMBENCH_HELPERS_DIR}/cmbench_entries.cpp.in" "${out_file}" @ONLY)
endfunction()

# `text` with the characters that end or split a generator expression's argument escaped.
function(_cmbench_genex_literal out text)
  string(REPLACE ">" "$<ANGLE-R>" text "${text}")
  string(REPLACE "," "$<COMMA>" text "${text}")
  string(REPLACE ";" "$<SEMICOLON>" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Adds to target `name` a generated source defining cmb::record_program_build(), which names the
# program to the harness with its build: the build type and the
# flags its own translation units are compiled with — CMAKE_CXX_FLAGS, CMAKE_CXX_FLAGS_<CONFIG>
# and the target's compile options, its dependencies' included — and the compiler. Deferred to
# the end of the calling directory: the flag variables are read with the values that directory
# ends with, which are those CMake compiles its targets with (a project may set them after the
# call). The generated main() calls it first; the harness records the build in every run's
# context and prints it for --version, beside the cmbench libraries' own (harness/run/context.hpp).
function(_cmbench_add_program_build name)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    set(configs ${CMAKE_CONFIGURATION_TYPES})
  else()
    set(configs "${CMAKE_BUILD_TYPE}")
  endif()
  set(flags "${CMAKE_CXX_FLAGS}")
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" upper)
    _cmbench_genex_literal(config_flags "${CMAKE_CXX_FLAGS_${upper}}")
    string(APPEND flags " $<$<CONFIG:${config}>:${config_flags}>")
  endforeach()
  string(APPEND flags " $<JOIN:$<TARGET_PROPERTY:${name},COMPILE_OPTIONS>, >")
  set(compiler "${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}")
  set(source "${CMAKE_CURRENT_BINARY_DIR}/${name}_build_$<CONFIG>.cpp")
  file(GENERATE OUTPUT "${source}" CONTENT
"// Generated for ${name} by cmake/cmbenchHelpers.cmake; do not edit.
#include \"harness/run/context.hpp\"

namespace cmb {
void record_program_build() {
  set_program_build(\"${name}\", {R\"cmb($<CONFIG>)cmb\", R\"cmb(${flags})cmb\", \"${compiler}\"});
}
}  // namespace cmb
")
  target_sources(${name} PRIVATE "${source}")
endfunction()

function(cmbench_add_executable name)
  cmake_parse_arguments(ARG "" "" "METHODS;PROBLEMS;STEPPERS;INTEGRATORS;SOURCES" ${ARGN})
  set(entries "${CMAKE_CURRENT_BINARY_DIR}/${name}_entries.cpp")
  _cmbench_write_entries(${name} "${entries}" METHODS ${ARG_METHODS} PROBLEMS ${ARG_PROBLEMS}
                         STEPPERS ${ARG_STEPPERS} INTEGRATORS ${ARG_INTEGRATORS})
  add_executable(${name} ${ARG_METHODS} ${ARG_PROBLEMS} ${ARG_STEPPERS} ${ARG_INTEGRATORS}
                         ${ARG_SOURCES} "${entries}"
                         "${_CMBENCH_HELPERS_DIR}/cmbench_cli_main.cpp")
  target_link_libraries(${name} PRIVATE cmbench::cli)
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _cmbench_add_program_build [[${name}]])")
endfunction()

function(cmbench_add_conformance_tests name)
  cmake_parse_arguments(ARG "" "" "METHODS;PROBLEMS;STEPPERS;INTEGRATORS;SOURCES" ${ARGN})
  set(entries "${CMAKE_CURRENT_BINARY_DIR}/${name}_entries.cpp")
  _cmbench_write_entries(${name} "${entries}" METHODS ${ARG_METHODS} PROBLEMS ${ARG_PROBLEMS}
                         STEPPERS ${ARG_STEPPERS} INTEGRATORS ${ARG_INTEGRATORS})
  add_executable(${name} ${ARG_METHODS} ${ARG_PROBLEMS} ${ARG_STEPPERS} ${ARG_INTEGRATORS}
                         ${ARG_SOURCES} "${entries}"
                         "${_CMBENCH_HELPERS_DIR}/cmbench_test_main.cpp")
  if(TARGET cmb_conformance_objects)  # inside cmbench's tree: the suites compiled once
    target_link_libraries(${name} PRIVATE cmb_conformance_objects cmb_test_support)
  else()
    target_link_libraries(${name} PRIVATE cmbench::conformance)
  endif()
endfunction()
