# ctests of the sympy-model generator (python3 -m cmbench.derive), included from
# tests/CMakeLists.txt; its C++ tests (tests/derive/*.cpp) are part of cmb_unit_tests.
# The generated files of the models in the declared form are what the generator writes now.
add_test(NAME spherical_pendulum_generated_code_is_current
         COMMAND ${CMB_PYTHON} -m cmbench.derive
                 ${PROJECT_SOURCE_DIR}/problems/derive/spherical_pendulum.py --check)
add_test(NAME driven_knife_edge_generated_code_is_current
         COMMAND ${CMB_PYTHON} -m cmbench.derive
                 ${CMAKE_CURRENT_SOURCE_DIR}/derive/models/driven_knife_edge.py
                 --out ${CMAKE_CURRENT_SOURCE_DIR}/derive/generated --check)
# The generator's derivation (γ exact for rheonomic and nonholonomic rows), its refusals and
# --check.
add_test(NAME derive_generator_derives_refuses_and_checks
         COMMAND ${CMB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/derive/test_generator.py)
# The generated spherical_pendulum against a hand-written minimal-coordinate solution.
add_test(NAME spherical_pendulum_matches_an_independent_solution
         COMMAND ${CMB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/derive/test_spherical_pendulum.py
                 $<TARGET_FILE:cmbench>)
# The Python of this folder (tests and test-only models) is clean under pyflakes3 too.
add_test(NAME derive_tests_pass_pyflakes COMMAND pyflakes3 ${CMAKE_CURRENT_SOURCE_DIR}/derive)
# A model with a closed-form (analytic) reference, generated like driven_knife_edge.
add_test(NAME bead_on_rotating_wire_generated_code_is_current
         COMMAND ${CMB_PYTHON} -m cmbench.derive
                 ${CMAKE_CURRENT_SOURCE_DIR}/derive/models/bead_on_rotating_wire.py
                 --out ${CMAKE_CURRENT_SOURCE_DIR}/derive/generated --check)
