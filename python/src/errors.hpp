#pragma once
// neurarch::Error -> the neurarch.Error subclass of its kind (defined in neurarch/_errors.py so
// they can also derive from ValueError, LookupError, OSError), carrying the one-line message and
// `where` (the file, key or byte offset it names).
#include <pybind11/pybind11.h>

namespace neurarch::python {

void register_error_translation(pybind11::module_& m);

}  // namespace neurarch::python
