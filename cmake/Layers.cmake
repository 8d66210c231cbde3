# One object library per folder of src/ (DuckDB's habit), built from the table in src/layers.txt:
# neurarch_src_<folder> holds the *.cpp files under the folder (globbed, so a new family file needs no edit here)
# and links the libraries of the folders its line names. neurarch_core (CMakeLists.txt) bundles them.
# The include check below fails the build when a file under src/ includes a header of a folder its own
# may not use; it runs on every build that touches src/ and as the ctest `layering`.
include(${CMAKE_CURRENT_LIST_DIR}/LayerTable.cmake)
neurarch_read_layers(${CMAKE_SOURCE_DIR}/src)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/layers.txt)

# With NEURARCH_LAYER_VIEWS the compiler enforces the table too: each folder compiles against
# build/layer_includes/<folder>/, which links in only the folders it may use, so a stray
# `#include "render/..."` in src/plan/ is "No such file". Off by default: it changes every compile
# command, so the shared compiler cache of the other work trees no longer serves this one.
option(NEURARCH_LAYER_VIEWS "Compile each src/ folder against only the headers of the folders it may use" OFF)

# What every folder compiles with: the JSON and fmt headers, the warnings, and cpp-httplib's defines,
# which change its ABI; they reach every folder, as when src/ was one library, because the tests
# that include the server's headers compile with them too.
add_library(neurarch_src_common INTERFACE)
target_link_libraries(neurarch_src_common INTERFACE nlohmann_json::nlohmann_json fmt::fmt neurarch_warnings)

set(NEURARCH_LAYER_TARGETS "")
foreach(layer IN LISTS NEURARCH_LAYERS)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${layer}/*.cpp)
  add_library(neurarch_src_${layer} OBJECT ${sources})
  target_link_libraries(neurarch_src_${layer} PRIVATE neurarch_src_common)
  foreach(used IN LISTS NEURARCH_LAYER_USES_${layer})
    target_link_libraries(neurarch_src_${layer} PUBLIC neurarch_src_${used})
  endforeach()
  list(APPEND NEURARCH_LAYER_TARGETS neurarch_src_${layer})
  if(NOT NEURARCH_LAYER_VIEWS)
    target_include_directories(neurarch_src_${layer} PRIVATE ${CMAKE_SOURCE_DIR}/src)
    continue()
  endif()
  set(view ${CMAKE_BINARY_DIR}/layer_includes/${layer})
  file(MAKE_DIRECTORY ${view})
  file(GLOB linked LIST_DIRECTORIES true ${view}/*)
  foreach(link IN LISTS linked)
    get_filename_component(name ${link} NAME)
    if(NOT name IN_LIST NEURARCH_LAYER_MAY_USE_${layer})
      file(REMOVE ${link})
    endif()
  endforeach()
  foreach(used IN LISTS NEURARCH_LAYER_MAY_USE_${layer})
    if(NOT EXISTS ${view}/${used})
      file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${used} ${view}/${used} SYMBOLIC)
    endif()
  endforeach()
  target_include_directories(neurarch_src_${layer} PRIVATE ${view})
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/PrecompiledHeaders.cmake)
neurarch_precompile(neurarch_src_families)
# The families are four in five of src/'s files and each is small: compiled 16 to a translation unit,
# the headers they share are parsed and their common templates instantiated once per 16 (docs/ADD_A_FAMILY.md).
# Each family file keeps its helpers in a namespace named after the file (<file>_impl), so files can
# share a unit; a clash is a compile error in the unity build (the default, and what CI builds).
option(NEURARCH_UNITY_FAMILIES "Compile the family files 16 to a translation unit" ON)
if(NEURARCH_UNITY_FAMILIES)
  set_target_properties(neurarch_src_families PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
endif()
neurarch_precompile_json(neurarch_src_report neurarch_src_render neurarch_src_lint neurarch_src_model neurarch_src_pipeline
                         neurarch_src_calibration neurarch_src_track neurarch_src_server neurarch_src_cli)

file(GLOB_RECURSE neurarch_layered_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/*.cpp ${CMAKE_SOURCE_DIR}/src/*.hpp
     ${CMAKE_SOURCE_DIR}/src/*.h ${CMAKE_SOURCE_DIR}/src/*.def ${CMAKE_SOURCE_DIR}/src/*.inc)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/layers.checked
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}/src -P ${CMAKE_SOURCE_DIR}/cmake/CheckLayers.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${CMAKE_BINARY_DIR}/layers.checked
  DEPENDS ${neurarch_layered_files} ${CMAKE_SOURCE_DIR}/src/layers.txt ${CMAKE_SOURCE_DIR}/cmake/CheckLayers.cmake
          ${CMAKE_SOURCE_DIR}/cmake/LayerTable.cmake
  COMMENT "Checking the includes under src/ against src/layers.txt"
  VERBATIM)
add_custom_target(neurarch_layering ALL DEPENDS ${CMAKE_BINARY_DIR}/layers.checked)

if(NEURARCH_BUILD_TESTS)
  enable_testing()
  add_test(NAME layering COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}/src
                                 -P ${CMAKE_SOURCE_DIR}/cmake/CheckLayers.cmake)
  # The check itself fails on a lower folder that includes an upper one, and on a table with a cycle.
  set(layering_cases ${CMAKE_SOURCE_DIR}/tests/data/layering)
  add_test(NAME layering_rejects_upward_include
           COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${layering_cases}/upward/src -P ${CMAKE_SOURCE_DIR}/cmake/CheckLayers.cmake)
  set_tests_properties(layering_rejects_upward_include PROPERTIES
                       PASS_REGULAR_EXPRESSION "src/low/low.hpp: includes \"high/high.hpp\", but low/ may not use high/")
  add_test(NAME layering_rejects_cycle
           COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${layering_cases}/cycle/src -P ${CMAKE_SOURCE_DIR}/cmake/CheckLayers.cmake)
  set_tests_properties(layering_rejects_cycle PROPERTIES PASS_REGULAR_EXPRESSION "'a' uses 'b'")
endif()
