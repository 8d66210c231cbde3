// The architecture diagram: golden SVG files for six kinds of model, the geometry every diagram must
// have (no box over another, every text inside its box, every layer inside its group), and a render
// of every default config of every supported model type.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "families/family.hpp"
#include "render/diagram.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"
#include "support/groundtruth.hpp"
#include "support/shared_data.hpp"

namespace neurarch::render {
namespace {

namespace fs = std::filesystem;

pipeline::TraceOptions options(const std::string& class_name, bool with_plan) {
  pipeline::TraceOptions to;
  to.build.class_name = class_name;
  to.read_checkpoint = false;
  if (with_plan) {
    plan::PlanOptions po;
    po.full.mode = plan::Mode::Full;
    po.lora.mode = plan::Mode::LoRA;
    to.plan = po;
  }
  return to;
}

report::Report from_catalogue(const std::string& id, const std::string& class_name = "", bool with_plan = false) {
  resolve::ResolveOptions ro;
  ro.offline = true;
  ro.hub_cache = fs::temp_directory_path() / "neurarch_diagram_no_cache";
  return pipeline::trace(resolve::resolve_repo_id(id, ro), options(class_name, with_plan));
}

// A ground-truth case file's config, built as the case's class.
std::optional<report::Report> from_case(const fs::path& file, const std::string& class_name) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  // The reference's dumps may hold Python's Infinity / NaN, as the ground-truth reader allows.
  const auto j = nlohmann::json::parse(standardize_python_json(text.str()));
  resolve::ResolvedModel m;
  m.id = j.value("model_type", "");
  m.source = "path";
  m.config_text = j.at("config").dump();
  m.config_origin = file.string();
  return pipeline::trace(m, options(class_name, false));
}

// ../shared/groundtruth/defaults/<type>/<Class>.json.
std::optional<report::Report> from_groundtruth(const std::string& model_type, const std::string& class_name) {
  const auto root = testing::groundtruth_root();
  if (!root) return std::nullopt;
  return from_case(*root / "defaults" / model_type / (class_name + ".json"), class_name);
}

std::string geometry_problem(const Diagram& d) {
  auto inside_text = [](const DiagramRect& r, const std::vector<std::string>& lines) {
    std::size_t cols = 0;
    for (const auto& l : lines) cols = std::max(cols, text_columns(l));
    return static_cast<double>(cols) * DiagramMetrics::kCharWidth + 2 * DiagramMetrics::kPadX <= r.w + 1e-9 &&
           static_cast<double>(lines.size()) * DiagramMetrics::kLineHeight + 2 * DiagramMetrics::kPadY <= r.h + 1e-9;
  };
  for (std::size_t i = 0; i < d.boxes.size(); ++i) {
    const auto& a = d.boxes[i];
    if (!inside_text(a.rect, a.lines)) return "text past box " + a.lines[0];
    if (a.rect.x < 0 || a.rect.y < 0 || a.rect.x + a.rect.w > d.width || a.rect.y + a.rect.h > d.height)
      return "box outside the picture: " + a.lines[0];
    if (a.group >= 0 && !d.groups[static_cast<std::size_t>(a.group)].rect.contains(a.rect))
      return "box outside its group: " + a.lines[0];
    for (std::size_t j = i + 1; j < d.boxes.size(); ++j)
      if (a.rect.overlaps(d.boxes[j].rect)) return "boxes overlap: " + a.lines[0] + " / " + d.boxes[j].lines[0];
    for (std::size_t k = 0; k < d.groups.size(); ++k)
      if (static_cast<int>(k) != a.group && a.rect.overlaps(d.groups[k].rect))
        return "box over another group: " + a.lines[0];
  }
  for (std::size_t k = 0; k < d.groups.size(); ++k) {
    if (!inside_text(d.groups[k].rect, d.groups[k].lines)) return "text past group " + d.groups[k].lines[0];
    for (std::size_t j = k + 1; j < d.groups.size(); ++j)
      if (d.groups[k].rect.overlaps(d.groups[j].rect)) return "groups overlap: " + d.groups[k].lines[0];
  }
  return "";
}

// Compares with tests/data/diagrams/<name>.svg; NEURARCH_UPDATE_GOLDEN=1 rewrites the file instead.
void expect_golden(const std::string& name, const std::string& svg) {
  const fs::path file = fs::path(NEURARCH_SOURCE_DIR) / "tests" / "data" / "diagrams" / (name + ".svg");
  if (std::getenv("NEURARCH_UPDATE_GOLDEN")) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << svg;
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << file << " is missing (run with NEURARCH_UPDATE_GOLDEN=1 once and review it)";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(svg, want.str()) << name << ": the diagram changed; review it and update the golden file";
}

int crossing_edges(const Diagram& d, const std::string& label = "") {
  int n = 0;
  for (const auto& e : d.edges) n += e.cross && (label.empty() || e.label == label);
  return n;
}

TEST(Diagram, LlamaDrawsOneLayerTimesThirtyTwo) {
  const auto r = from_catalogue("meta-llama/Meta-Llama-3-8B");
  const auto d = layout_diagram(r.graph);
  EXPECT_EQ(geometry_problem(d), "");
  ASSERT_EQ(d.columns.size(), 1u);
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].count, 32);
  EXPECT_EQ(d.groups[0].lines[0], "× 32 · layers 0–31");
  // The layer's attention box names grouped-query attention with its heads, kv heads and RoPE.
  bool gqa = false;
  for (int b : d.groups[0].boxes)
    for (const auto& l : d.boxes[static_cast<std::size_t>(b)].lines) gqa |= l == "heads 32 · kv 8 · head_dim 128 · causal · RoPE";
  EXPECT_TRUE(gqa);
  expect_golden("llama-3-8b", render::diagram(r));
}

TEST(Diagram, BertForSequenceClassificationEndsInItsHead) {
  const auto r = from_catalogue("bert-base-uncased", "BertForSequenceClassification");
  const auto d = layout_diagram(r.graph);
  EXPECT_EQ(geometry_problem(d), "");
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].count, 12);
  bool classifier = false;
  for (const auto& b : d.boxes) classifier |= b.lines[0].rfind("Classifier", 0) == 0;
  EXPECT_TRUE(classifier);
  expect_golden("bert-base-sequence-classification", render::diagram(r));
}

TEST(Diagram, Dinov2WithPlanOverlayMarksThePeak) {
  const auto r = from_catalogue("facebook/dinov2-small", "", true);
  const auto d = layout_diagram(r.graph, &*r.plan);
  EXPECT_EQ(geometry_problem(d), "");
  int peaks = 0;
  double hottest = 0;
  for (const auto& b : d.boxes) {
    peaks += b.peak;
    EXPECT_GE(b.heat, 0.0);
    hottest = std::max(hottest, b.heat);
  }
  EXPECT_DOUBLE_EQ(hottest, 1.0);
  // The plan puts the peak in backward at a node, and the diagram marks exactly that one.
  if (r.plan->full.peak_phase == "backward") {
    EXPECT_EQ(peaks, 1);
  } else {
    EXPECT_EQ(peaks, 0);
  }
  EXPECT_FALSE(d.legend.empty());
  expect_golden("dinov2-small-plan", render::diagram(r));
}

TEST(Diagram, ClipDrawsTwoTowersMeetingInTheSimilarityHead) {
  NEURARCH_REQUIRE(testing::groundtruth_root(), "../shared/groundtruth not found");
  const auto r = from_groundtruth("clip", "CLIPModel");
  ASSERT_TRUE(r);
  const auto d = layout_diagram(r->graph);
  EXPECT_EQ(geometry_problem(d), "");
  EXPECT_EQ(d.columns.size(), 2u);
  EXPECT_GE(crossing_edges(d), 1);
  expect_golden("clip", render::diagram(*r));
}

TEST(Diagram, T5DecoderCrossAttendsToTheEncoder) {
  const auto r = from_catalogue("t5-base");
  const auto d = layout_diagram(r.graph);
  EXPECT_EQ(geometry_problem(d), "");
  EXPECT_EQ(d.columns.size(), 2u);
  EXPECT_GE(crossing_edges(d, "k, v"), 1);
  expect_golden("t5-base", render::diagram(r));
}

TEST(Diagram, LlavaFeedsTheVisionTowerIntoTheLanguageModel) {
  NEURARCH_REQUIRE(testing::groundtruth_root(), "../shared/groundtruth not found");
  const auto r = from_groundtruth("llava", "LlavaForConditionalGeneration");
  ASSERT_TRUE(r);
  const auto d = layout_diagram(r->graph);
  EXPECT_EQ(geometry_problem(d), "");
  EXPECT_GE(d.columns.size(), 2u);
  EXPECT_GE(crossing_edges(d), 1);
  expect_golden("llava", render::diagram(*r));
}

TEST(Diagram, SameGraphSameBytes) {
  const auto r = from_catalogue("gpt2", "", true);
  EXPECT_EQ(render::diagram(r), render::diagram(r));
  const auto svg = render::diagram(r);
  EXPECT_EQ(svg.find("style="), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  // Every box's accessible name says what the box says.
  const auto d = layout_diagram(r.graph, &*r.plan);
  for (const auto& b : d.boxes) {
    std::string joined;
    for (const auto& l : b.lines) joined += (joined.empty() ? "" : "; ") + l;
    EXPECT_NE(svg.find("<title>" + html_escape(joined) + "</title>"), std::string::npos) << joined;
  }
}

// Every default config of every supported type draws without overlap.
TEST(Diagram, EverySupportedDefaultConfigRenders) {
  NEURARCH_REQUIRE(testing::groundtruth_root(), "../shared/groundtruth not found");
  int drawn = 0;
  for (const auto& type : families::supported_model_types())
    for (const auto& c : testing::cases_for(type)) {
      if (c.file.parent_path().parent_path().filename() != "defaults") continue;
      SCOPED_TRACE(c.file.string());
      const auto r = from_case(c.file, c.class_name);
      ASSERT_TRUE(r);
      const auto d = layout_diagram(r->graph);
      EXPECT_EQ(geometry_problem(d), "");
      EXPECT_FALSE(diagram_svg(d, c.class_name).empty());
      ++drawn;
    }
  EXPECT_GT(drawn, 400);
}

}  // namespace
}  // namespace neurarch::render
