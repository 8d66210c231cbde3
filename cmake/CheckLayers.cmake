# cmake -DSOURCE_DIR=<repo>/src -P cmake/CheckLayers.cmake
# Fails, listing every offending line, when a file under SOURCE_DIR (headers included) includes a header of
# a folder its own folder may not use according to SOURCE_DIR/layers.txt. The compiler already refuses
# such an include in a .cpp file (cmake/Layers.cmake gives each folder only the headers it may use); this
# also catches a header that no file of its own folder includes.
cmake_minimum_required(VERSION 3.20)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<src folder> -P CheckLayers.cmake")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/LayerTable.cmake)
neurarch_read_layers(${SOURCE_DIR})
set(violations 0)
set(checked 0)
foreach(layer IN LISTS NEURARCH_LAYERS)
  file(GLOB_RECURSE files ${SOURCE_DIR}/${layer}/*.cpp ${SOURCE_DIR}/${layer}/*.hpp ${SOURCE_DIR}/${layer}/*.h
       ${SOURCE_DIR}/${layer}/*.def ${SOURCE_DIR}/${layer}/*.inc)
  list(SORT files)
  foreach(file IN LISTS files)
    math(EXPR checked "${checked} + 1")
    file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z0-9_]+/")
    foreach(line IN LISTS includes)
      string(REGEX MATCH "\"([a-z0-9_]+)/[^\"]*\"" header "${line}")
      set(used ${CMAKE_MATCH_1})
      if(used IN_LIST NEURARCH_LAYERS AND NOT used IN_LIST NEURARCH_LAYER_MAY_USE_${layer})
        file(RELATIVE_PATH shown ${SOURCE_DIR} ${file})
        list(JOIN NEURARCH_LAYER_MAY_USE_${layer} " " allowed)
        # One unwrapped line per include, as a compiler would print it.
        message(NOTICE "src/${shown}: includes ${header}, but ${layer}/ may not use ${used}/ "
                       "(it may use ${allowed}; see src/layers.txt)")
        math(EXPR violations "${violations} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) break the layering of src/layers.txt")
endif()
message(STATUS "layering: ${checked} files under src/ include only the layers below them")
