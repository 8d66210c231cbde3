#pragma once
// Python keyword arguments -> the request the command line fills from its flags. Names follow the
// flags (--lora-rank -> lora_rank, --class -> class_name), so the README's option list serves both.
#include <string_view>

#include <pybind11/pybind11.h>

#include "cli/trace_request.hpp"

namespace neurarch::python {

/// Keywords of neurarch.trace(): the trace's own, `plan=True`, and every planner keyword (any of
/// which asks for the plan: a keyword the user typed is never silently ignored).
cli::TraceRequest trace_request(const pybind11::dict& options);

/// Keywords of Report.plan(); `function` names the caller in a TypeError.
cli::PlanRequest plan_request(const pybind11::dict& options, std::string_view function = "Report.plan()");

}  // namespace neurarch::python
