# The Python package (issue 10): the `neurarch._native` extension module, a thin pybind11 binding
# over neurarch_core. Off by default so the C++ build needs no Python; `pip install .` (setup.py)
# and scripts/setup.sh turn it on. Debian: python3-dev, pybind11-dev (python3-pybind11 for pip).
option(NEURARCH_PYTHON "Build the Python extension module (python/)" OFF)
if(NOT NEURARCH_PYTHON)
  return()
endif()

# pyenv and friends often shadow the system interpreter on PATH; the module is built for the one
# named by -DPython_EXECUTABLE (setup.py passes the interpreter pip runs under).
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.10 CONFIG REQUIRED)

# A static library linked into a shared module has to be position-independent. Debian's g++
# already defaults to -fPIE, so the command-line tool loses nothing measurable.
set_target_properties(neurarch_core ${NEURARCH_LAYER_TARGETS} PROPERTIES POSITION_INDEPENDENT_CODE ON)

file(GLOB NEURARCH_PYTHON_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/src/*.cpp)
pybind11_add_module(neurarch_python MODULE ${NEURARCH_PYTHON_SOURCES})
set_target_properties(neurarch_python PROPERTIES OUTPUT_NAME _native)
target_link_libraries(neurarch_python PRIVATE neurarch_core neurarch_warnings)
target_compile_definitions(neurarch_python PRIVATE NEURARCH_VERSION="${PROJECT_VERSION}")
# setup.py copies the module from here into the wheel.
set_target_properties(neurarch_python PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/python/neurarch)
