// neurarch._native: the C++ core's verbs for Python. Everything here converts arguments and calls
// what the command line calls; the pure-Python face (neurarch/__init__.py) adds only conversions
// between Python objects and JSON. The GIL is released around every call into the core, so Python
// threads trace and plan in parallel.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cli/cli.hpp"
#include "cli/trace_request.hpp"
#include "core/limits.hpp"
#include "errors.hpp"
#include "families/family.hpp"
#include "options.hpp"
#include "plan/plan.hpp"
#include "render/render.hpp"
#include "report/report.hpp"
#include "resolve/catalogue.hpp"

namespace py = pybind11;

namespace neurarch::python {
namespace {

using ReportPtr = std::shared_ptr<report::Report>;

ReportPtr trace_spec(const std::string& spec, const py::dict& options) {
  const cli::TraceRequest request = trace_request(options);
  py::gil_scoped_release unlocked;
  std::istringstream no_stdin;  // "-" is read by the Python side, which owns sys.stdin
  return std::make_shared<report::Report>(cli::trace(spec, request, no_stdin));
}

ReportPtr trace_config(std::string config_text, std::string id, std::string source, std::string origin,
                       const py::dict& options) {
  const cli::TraceRequest request = trace_request(options);
  py::gil_scoped_release unlocked;
  resolve::ResolvedModel model{std::move(id), "", std::move(source), std::move(config_text), std::move(origin), {}};
  return std::make_shared<report::Report>(cli::trace(std::move(model), request));
}

// A new report with the plan section; the graph is the one already traced, so this equals tracing
// with the same planner options.
ReportPtr plan_report(const report::Report& traced, const py::dict& options) {
  const cli::PlanRequest request = plan_request(options);
  py::gil_scoped_release unlocked;
  auto planned = std::make_shared<report::Report>(traced);
  planned->plan = plan::make_plan(planned->graph, cli::plan_options(request));
  return planned;
}

template <typename Render>
std::string rendered(const report::Report& r, Render render) {
  py::gil_scoped_release unlocked;
  return render(r);
}

int run_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) argv.push_back(a.c_str());
  py::gil_scoped_release unlocked;
  return cli::run(static_cast<int>(argv.size()), argv.data(), std::cout, std::cerr, std::cin);
}

std::vector<std::string> catalogue_ids() {
  std::vector<std::string> ids;
  for (const auto& e : resolve::catalogue_entries()) ids.emplace_back(e.id);
  return ids;
}

}  // namespace
}  // namespace neurarch::python

PYBIND11_MODULE(_native, m) {
  using namespace neurarch;
  using namespace neurarch::python;
  m.doc() = "neurarch's C++ core (use the neurarch package, not this module)";
  m.attr("__version__") = NEURARCH_VERSION;
  m.attr("max_config_bytes") = limits::kMaxConfigBytes;
  register_error_translation(m);

  py::class_<report::Report, std::shared_ptr<report::Report>>(m, "Report")
      .def("json", [](const report::Report& r) { return rendered(r, [](const auto& x) { return render::json(x); }); })
      .def("markdown",
           [](const report::Report& r) { return rendered(r, [](const auto& x) { return render::markdown(x); }); })
      .def("diagram",
           [](const report::Report& r) { return rendered(r, [](const auto& x) { return render::diagram(x); }); })
      // The server's page fragment with its stylesheet inlined: a notebook has no server to fetch it from.
      .def("html",
           [](const report::Report& r) {
             return rendered(r, [](const auto& x) {
               return "<style>" + std::string(render::html_stylesheet()) + "</style>" + render::html(x);
             });
           })
      .def(
          "text",
          [](const report::Report& r, bool tensors) {
            return rendered(r, [tensors](const auto& x) { return render::text(x, {tensors}); });
          },
          py::arg("tensors") = false)
      .def("plan", &plan_report, py::arg("options"))
      .def_property_readonly("has_plan", [](const report::Report& r) { return r.plan.has_value(); });

  m.def("trace", &trace_spec, py::arg("spec"), py::arg("options"));
  m.def("trace_config", &trace_config, py::arg("config_text"), py::arg("id"), py::arg("source"), py::arg("origin"),
        py::arg("options"));
  m.def("run_cli", &run_cli, py::arg("argv"), "neurarch-trace's command line, in this process");
  m.def("catalogue", &catalogue_ids, "ids of the bundled catalogue's published configs");
  m.def("supported_model_types", &families::supported_model_types);
}
