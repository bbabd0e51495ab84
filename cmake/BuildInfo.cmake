# Build facts recorded in every result's context block. The git sha is refreshed at every build
# (not only at configure time) so results never name a stale commit.
set(CMB_BUILD_INFO_CPP ${PROJECT_BINARY_DIR}/generated/build_info.cpp)
string(TOUPPER "${CMAKE_BUILD_TYPE}" _cmb_bt)
set(CMB_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_cmb_bt}}")
if(CMB_SANITIZE)
  string(APPEND CMB_FLAGS " -fsanitize=address,undefined")
endif()
if(CMB_NATIVE)
  string(APPEND CMB_FLAGS " -march=native")
endif()
add_custom_target(cmb_build_info
  COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUT=${CMB_BUILD_INFO_CPP}
    -DVERSION=${PROJECT_VERSION}
    -DBUILD_TYPE=${CMAKE_BUILD_TYPE} "-DFLAGS=${CMB_FLAGS}"
    -DCOMPILER=${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION}
    -P ${PROJECT_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${CMB_BUILD_INFO_CPP}
  COMMENT "Recording build facts")
