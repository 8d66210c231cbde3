// libFuzzer target for the config path: bytes -> Config::parse -> build_model -> JSON report.
// Any input must end in a report or a neurarch::Error, never a crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"
#include "render/render.hpp"
#include "report/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto config = neurarch::Config::parse(text, "fuzz.json");
    neurarch::model::BuildOptions options;
    options.seq = 64;  // keeps every graph small enough for the fuzzer's time budget
    auto built = neurarch::model::build_model(config, options);
    neurarch::report::Report report;
    report.graph = std::move(built.graph);
    (void)neurarch::render::json(report);
  } catch (const neurarch::Error&) {
  }
  return 0;
}
