# Makes DESTINATION a copy of the package SOURCE made of symbolic links (one per entry, so edits
# to the sources need no rebuild), next to the compiled module that the build puts there.
file(MAKE_DIRECTORY ${DESTINATION})
file(GLOB entries RELATIVE ${SOURCE} ${SOURCE}/*)
foreach(entry IN LISTS entries)
  if(NOT entry STREQUAL "__pycache__" AND NOT EXISTS ${DESTINATION}/${entry})
    file(CREATE_LINK ${SOURCE}/${entry} ${DESTINATION}/${entry} SYMBOLIC)
  endif()
endforeach()
