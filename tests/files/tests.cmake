# ctests of cmbench.files (issue #26 items 3 and 4), included from tests/CMakeLists.txt: JSON read
# within bounds (size, depth, duplicate keys, NaN) with what it refuses named by file and path,
# every write whole or not at all, and the entry points as reported (cmbench.load and the report
# on a result set 200 000 levels deep, docs.numbers --write under a file-size limit). Pure Python:
# the source tree's package.
add_test(NAME python_files_read_within_bounds_and_write_atomically
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/python
                 /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR})
# The Python of this folder is clean under pyflakes3 too.
add_test(NAME files_tests_pass_pyflakes COMMAND pyflakes3 ${CMAKE_CURRENT_LIST_DIR})
