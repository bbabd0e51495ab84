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
