#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "plan/plan.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::render {
namespace {

report::Report traced(const std::string& id, bool with_plan = true) {
  resolve::ResolveOptions ro;
  ro.offline = true;
  ro.hub_cache = std::filesystem::temp_directory_path() / "neurarch_html_no_cache";
  auto model = resolve::resolve_repo_id(id, ro);
  pipeline::TraceOptions to;
  if (with_plan) {
    plan::PlanOptions po;
    po.full.mode = plan::Mode::Full;
    po.lora.mode = plan::Mode::LoRA;
    to.plan = po;
  }
  return pipeline::trace(model, to);
}

TEST(HtmlRender, HeadlineChartsAndSectionsFromTheReport) {
  const auto r = traced("facebook/dinov2-small");
  const auto html = render::html(r);
  EXPECT_EQ(html.rfind("<article class=\"neurarch\">", 0), 0u);
  EXPECT_NE(html.find("data-figure=\"parameters-derived\" data-value=\"22056576\""), std::string::npos);
  EXPECT_NE(html.find(fmt::format("data-figure=\"full-device-bytes\" data-value=\"{}\"", r.plan->full.device_bytes)),
            std::string::npos);
  EXPECT_NE(html.find("data-figure=\"forward-pass\" data-value=\"true\""), std::string::npos);
  // Two charts, every card's limit on the batch chart, and no script or inline style anywhere.
  EXPECT_EQ(std::count(html.begin(), html.end(), '\0'), 0);
  EXPECT_NE(html.find("phase-chart-title"), std::string::npos);
  EXPECT_NE(html.find("batch-chart-title"), std::string::npos);
  for (const auto& c : r.plan->cards) EXPECT_NE(html.find(c.card), std::string::npos) << c.card;
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("style=\""), std::string::npos);
  // 101 nodes: the structure table starts folded.
  EXPECT_NE(html.find("<details class=\"structure\" id=\"structure\">"), std::string::npos);
  EXPECT_NE(html.find("What the verifier says"), std::string::npos);
  EXPECT_EQ(html.find("Change history"), std::string::npos);
  EXPECT_FALSE(html_stylesheet().empty());
}

TEST(HtmlRender, EscapesEverythingItDidNotWrite) {
  auto r = traced("facebook/dinov2-small", false);
  r.model.id = "<img src=x onerror=alert(1)>";
  r.notes.push_back("a & b \"quoted\" 'single'");
  const auto html = render::html(r, {std::vector<ChangeRow>{{"2025-01-01", "abc", "<script>"}}, "run <this>"});
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(html.find("a &amp; b &quot;quoted&quot; &#39;single&#39;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("Change history"), std::string::npos);
  EXPECT_NE(html.find("run &lt;this&gt;"), std::string::npos);
  // Without a plan there is no plan section, and the page still says what it can.
  EXPECT_EQ(html.find("id=\"cards\""), std::string::npos);
  EXPECT_EQ(html_escape("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
}

TEST(HtmlRender, ModelThatDoesNotFitAnyCardSaysSo) {
  const auto r = traced("meta-llama/Meta-Llama-3-8B");
  const auto html = render::html(r);
  ASSERT_TRUE(r.plan);
  bool full_fits = false;
  for (const auto& c : r.plan->cards) full_fits |= c.full_max_batch > 0;
  if (!full_fits) {
    EXPECT_NE(html.find("no single card fits batch 1"), std::string::npos);
  }
  // The batch curve goes past the largest LoRA fit so each card's crossing is drawn.
  std::int64_t largest = 0;
  for (const auto& c : r.plan->cards) largest = std::max(largest, c.lora_max_batch);
  EXPECT_GE(r.plan->batch_curve.back().batch * 2, std::min<std::int64_t>(largest, 2048));
}

}  // namespace
}  // namespace neurarch::render
