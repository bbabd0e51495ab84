# pytest of the Python module (python/cmbench/api.py and cmbench._core) against the command line.
add_test(NAME python_module_matches_the_command_line
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_BINARY_DIR}/python
                 CMBENCH=$<TARGET_FILE:cmbench> CMB_SOURCE_DIR=${PROJECT_SOURCE_DIR}
                 /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR})
# The notebook-style example redraws a README figure from the committed results.
add_test(NAME python_example_redraws_a_readme_figure
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_BINARY_DIR}/python
                 /usr/bin/python3 ${PROJECT_SOURCE_DIR}/examples/python/work_precision.py
         WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
