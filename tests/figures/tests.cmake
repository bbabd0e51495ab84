# ctests of the report's figures as they print (issue #15), included from tests/CMakeLists.txt.
# Print size (3.5 or 7 in), every text >= 8 pt (figure objects and the PDF's font sizes), units on
# every axis, display names for every catalog id, bounded legends, distinct styles for unknown
# methods, no run-time heat maps at equal work, --help and progress lines.
add_test(NAME figures_print_size_fonts_units_and_legends
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/python /usr/bin/python3
                 ${CMAKE_CURRENT_SOURCE_DIR}/figures/test_figures.py $<TARGET_FILE:cmbench>
                 ${PROJECT_SOURCE_DIR})
# The Python of this folder is clean under pyflakes3 too.
add_test(NAME figures_tests_pass_pyflakes COMMAND pyflakes3 ${CMAKE_CURRENT_SOURCE_DIR}/figures)
# The report's pages (no figure taller than 9 in, over generated result sets), filter (unknown ids:
# exit 2 naming the valid ones), fits (a slope only through >= 3 sizes of one family) and one unit
# per work-precision panel (issue 28).
add_test(NAME report_pages_filters_fits_and_units
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/python
                 CMB_SOURCE_DIR=${PROJECT_SOURCE_DIR}
                 /usr/bin/python3 -m pytest -q -p no:cacheprovider
                 ${CMAKE_CURRENT_SOURCE_DIR}/figures/test_report_options.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
# The example notebook runs from campaign to figure against the built module (nbclient).
add_test(NAME example_notebook_runs
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_BINARY_DIR}/python
                 CMBENCH=$<TARGET_FILE:cmbench> CMB_SOURCE_DIR=${PROJECT_SOURCE_DIR}
                 /usr/bin/python3 -m pytest -q -p no:cacheprovider
                 ${CMAKE_CURRENT_SOURCE_DIR}/figures/test_notebook.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
# The long-horizon figure's growth rates: within the bound a noisy power law allows, over
# generated series (hypothesis); "bounded" for a bounded error; drawn only for long runs.
add_test(NAME long_horizon_growth_rates
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/python
                 /usr/bin/python3 -m pytest -q -p no:cacheprovider
                 ${CMAKE_CURRENT_SOURCE_DIR}/figures/test_long_horizon.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
