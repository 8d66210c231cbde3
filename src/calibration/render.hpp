#pragma once
// Text and JSON ("neurarch.calibration.report/v1") renderings of a calibration Evaluation.
#include <string>

#include <nlohmann/json.hpp>

#include "calibration/validate.hpp"

namespace neurarch::calibration {

inline constexpr const char* kReportSchema = "neurarch.calibration.report/v1";

std::string render_text(const Evaluation& ev, const std::string& dir);
nlohmann::json render_json(const Evaluation& ev, const std::string& dir);

}  // namespace neurarch::calibration
