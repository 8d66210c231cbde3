#include "options.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "plan/options.hpp"

namespace py = pybind11;

namespace neurarch::python {
namespace {

const std::vector<std::string> kTraceKeys{"class_name", "revision",      "seq",     "image_size", "target_seq",
                                          "checkpoint", "no_checkpoint", "offline", "plan"};
// The planner's keywords: every option of plan/options.hpp's table by its name, its aliases
// (no_autocast), and the files and card.
const std::vector<std::string>& plan_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& o : plan::setup_options()) k.emplace_back(o.name);
    for (const auto& a : plan::option_aliases())
      if (!a.cli.empty()) k.emplace_back(a.name);
    k.insert(k.end(), {"card", "cards", "runtime"});
    return k;
  }();
  return keys;
}

std::string type_name(py::handle v) { return py::str(py::type::handle_of(v).attr("__name__")); }

[[noreturn]] void wrong_type(const std::string& key, const char* expected, py::handle v) {
  throw py::type_error(fmt::format("{}: expected {}, got {}", key, expected, type_name(v)));
}

std::int64_t as_int(const std::string& key, py::handle v) {
  // bool is an int subclass in Python; batch=True is a mistake, not 1.
  if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr())) wrong_type(key, "an int", v);
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow != 0) throw Error(ErrorKind::InvalidInput, key, "is out of range");
  return n;
}

std::optional<std::int64_t> as_optional_int(const std::string& key, py::handle v) {
  if (v.is_none()) return std::nullopt;
  return as_int(key, v);
}

double as_float(const std::string& key, py::handle v) {
  if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr()))) wrong_type(key, "a number", v);
  return v.cast<double>();
}

bool as_bool(const std::string& key, py::handle v) {
  if (!PyBool_Check(v.ptr())) wrong_type(key, "True or False", v);
  return v.ptr() == Py_True;
}

std::string as_str(const std::string& key, py::handle v) {
  if (v.is_none()) return {};
  if (!PyUnicode_Check(v.ptr())) wrong_type(key, "a str", v);
  return v.cast<std::string>();
}

// A file or folder: str or os.PathLike, as open() takes it.
std::string as_path(const std::string& key, py::handle v) {
  if (v.is_none()) return {};
  if (!PyUnicode_Check(v.ptr()) && !py::hasattr(v, "__fspath__")) wrong_type(key, "a str or os.PathLike", v);
  py::object path = py::module_::import("os").attr("fspath")(v);
  if (!PyUnicode_Check(path.ptr())) wrong_type(key, "a str path", path);
  return path.cast<std::string>();
}

// A list or tuple of names, or one comma-separated string as on the command line.
std::vector<std::string> as_names(const std::string& key, py::handle v) {
  std::vector<std::string> names;
  if (v.is_none()) return names;
  if (PyUnicode_Check(v.ptr())) {
    std::string text = v.cast<std::string>();
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      if (comma > start) names.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
    return names;
  }
  if (!PyList_Check(v.ptr()) && !PyTuple_Check(v.ptr())) wrong_type(key, "a list of str", v);
  for (py::handle item : v) names.push_back(as_str(key, item));
  return names;
}

bool is_one_of(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

[[noreturn]] void unknown_keyword(std::string_view function, const std::string& key,
                                  const std::vector<const std::vector<std::string>*>& known) {
  std::vector<std::string> all;
  for (const auto* keys : known) all.insert(all.end(), keys->begin(), keys->end());
  throw py::type_error(fmt::format("{} got an unexpected keyword argument '{}' (known: {})", function, key,
                                   fmt::join(all, ", ")));
}

void set_plan_option(cli::PlanRequest& p, const std::string& key, py::handle v) {
  if (key == "card") p.card = as_str(key, v);
  else if (key == "cards") p.cards_file = as_path(key, v);
  else if (key == "runtime") p.runtime_file = as_path(key, v);
  else if (const auto* spec = plan::find_option(key)) {
    if (v.is_none()) return;  // the default
    switch (spec->kind) {
      case plan::OptionKind::Integer: p.setup.set(key, std::to_string(as_int(key, v))); break;
      case plan::OptionKind::Number: p.setup.set(key, plan::option_text(as_float(key, v))); break;
      case plan::OptionKind::Boolean: p.setup.set(key, plan::option_text(as_bool(key, v))); break;
      case plan::OptionKind::Choice: p.setup.set(key, as_str(key, v)); break;
      case plan::OptionKind::TextList: p.setup.set_list(key, as_names(key, v)); break;
    }
  } else {
    p.setup.set_alias(key, as_bool(key, v));
  }
}

}  // namespace

cli::TraceRequest trace_request(const py::dict& options) {
  cli::TraceRequest t;
  cli::PlanRequest p;
  std::optional<bool> plan_flag;
  std::vector<std::string> given_plan_keys;
  for (auto [k, v] : options) {
    const std::string key = py::str(k);
    if (key == "class_name") t.class_name = as_str(key, v);
    else if (key == "revision") t.revision = as_str(key, v);
    else if (key == "seq") t.seq = as_optional_int(key, v);
    else if (key == "image_size") t.image_size = as_optional_int(key, v);
    else if (key == "target_seq") t.target_seq = as_optional_int(key, v);
    else if (key == "checkpoint") t.checkpoint = as_path(key, v);
    else if (key == "no_checkpoint") t.no_checkpoint = as_bool(key, v);
    else if (key == "offline") t.offline = as_bool(key, v);
    else if (key == "plan") plan_flag = as_bool(key, v);
    else if (is_one_of(plan_keys(), key)) {
      set_plan_option(p, key, v);
      given_plan_keys.push_back(key);
    } else
      unknown_keyword("trace()", key, {&kTraceKeys, &plan_keys()});
  }
  if (plan_flag == false && !given_plan_keys.empty())
    throw Error(ErrorKind::InvalidInput, "plan",
                fmt::format("plan=False contradicts the planner options given ({})", fmt::join(given_plan_keys, ", ")));
  if (plan_flag.value_or(!given_plan_keys.empty())) t.plan = p;
  return t;
}

cli::PlanRequest plan_request(const py::dict& options, std::string_view function) {
  cli::PlanRequest p;
  for (auto [k, v] : options) {
    const std::string key = py::str(k);
    if (!is_one_of(plan_keys(), key)) unknown_keyword(function, key, {&plan_keys()});
    set_plan_option(p, key, v);
  }
  return p;
}

}  // namespace neurarch::python
