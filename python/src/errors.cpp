#include "errors.hpp"

#include "core/error.hpp"

namespace py = pybind11;

namespace neurarch::python {
namespace {

const char* class_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidInput: return "InvalidInput";
    case ErrorKind::NotFound: return "NotFound";
    case ErrorKind::Unsupported: return "Unsupported";
    case ErrorKind::Io: return "IoError";
  }
  return "Error";
}

// neurarch._errors, held for the life of the process: the translator may run until interpreter
// shutdown, and pybind11 takes it as a plain function pointer.
py::object* error_classes = nullptr;

}  // namespace

void register_error_translation(py::module_& m) {
  error_classes = new py::object(py::module_::import("neurarch._errors"));
  m.attr("_errors") = *error_classes;
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& e) {
      py::object cls = error_classes->attr(class_name(e.kind()));
      py::object instance = cls(e.what());
      instance.attr("where") = e.where();
      PyErr_SetObject(cls.ptr(), instance.ptr());
    }
  });
}

}  // namespace neurarch::python
