// The pages a person starts from: "Try it" (/), its two forms (/go, /try), the card catalogue,
// and the stylesheet and script, served as files so the CSP can forbid inline code.
#include <fmt/format.h>

#include "core/embedded_assets.hpp"
#include "core/json_depth.hpp"
#include "core/limits.hpp"
#include "plan/hardware.hpp"
#include "render/plan_render.hpp"
#include "server/http_util.hpp"
#include "server/plan_body.hpp"
#include "server/route_groups.hpp"

namespace neurarch::server {
namespace {
using render::html_escape;

constexpr const char* kExampleConfig = R"({
  "model_type": "llama",
  "architectures": ["LlamaForCausalLM"],
  "hidden_size": 2048,
  "intermediate_size": 5632,
  "num_hidden_layers": 22,
  "num_attention_heads": 32,
  "num_key_value_heads": 4,
  "vocab_size": 32000,
  "max_position_embeddings": 2048,
  "torch_dtype": "bfloat16"
})";

std::string home_page(ServerContext& ctx) {
  const auto ids = ctx.reports.known_ids();
  std::string options, list;
  for (const auto& id : ids) {
    options += fmt::format("<option value=\"{}\"></option>", html_escape(id));
    list += fmt::format("<li><a href=\"/models/{0}\">{0}</a></li>", html_escape(id));
  }
  return fmt::format(R"(<section class="hero"><h1>What does this model cost to fine-tune?</h1>
<p>From a Hugging Face <code>config.json</code> alone: every layer and tensor, whether it runs, the GPU memory of a
full fine-tune and of LoRA, which card holds it, and what a run costs. No weights are downloaded.</p></section>
<div class="try">
<form id="model-form" method="get" action="/go"><label for="model">A model on this server</label>
<input type="text" id="model" name="model" list="known-models" placeholder="facebook/dinov2-small" required
 maxlength="200" autocomplete="off" spellcheck="false"><datalist id="known-models">{}</datalist>
<p class="hint">The bundled catalogue and this server's model cache; the server fetches nothing.</p>
<div class="row"><button type="submit">Show its page</button></div></form>
<form id="config-form" method="post" action="/try"><label for="config">…or paste a config.json</label>
<textarea id="config" name="config" required spellcheck="false" placeholder="{{}}"></textarea>
<div class="options"><label>batch <input type="number" name="batch" min="1" max="65536" value="1"></label>
<label>LoRA rank <input type="number" name="lora_rank" min="1" max="4096" value="16"></label>
<label><input type="checkbox" name="qlora" value="true"> QLoRA</label>
<label><input type="checkbox" name="grad_checkpointing" value="true"> gradient checkpointing</label></div>
<div class="row"><button type="submit" id="trace-config">Trace it</button><span id="config-message" class="hint" role="status"></span></div>
<p class="hint">The result gets a permanent link (<code>/p/…</code>) you can share.</p></form>
</div>
<section><h2>Models on this server</h2><ul class="known">{}</ul></section>
<section><h2>From the command line and other programs</h2>
<p><code>neurarch-trace MODEL --plan --share</code> publishes a report here and prints its link.
<code>POST /api/v1/plan</code> with <code>{{"model": "org/name"}}</code> or <code>{{"config": {{…}}}}</code> plus planner
options (<code>batch</code>, <code>attention</code>, <code>optimizer</code>, <code>grad_checkpointing</code>,
<code>lora_rank</code>, <code>lora_dropout</code>, <code>lora_targets</code>, <code>qlora</code>, <code>autocast</code>,
<code>card</code>, <code>epochs</code>, <code>global_batch</code>, <code>samples</code>, <code>seq</code>,
<code>image_size</code>, <code>class</code>) returns the <code>neurarch.report/v1</code> JSON. Every model page has
<code>.md</code> and <code>.json</code> twins and a shields.io badge at <code>/api/v1/badge/org/name</code>.</p>
<details><summary>An example config to paste</summary><pre><code>{}</code></pre></details></section>)",
                     options, list, html_escape(kExampleConfig));
}

std::string cards_page() {
  std::string rows;
  for (const auto& c : plan::default_cards())
    rows += fmt::format(
        "<tr><td>{}</td><td class=\"num\" data-sort=\"{}\">{}</td><td class=\"num\">{}</td><td>{}</td><td "
        "class=\"num\">{}</td><td class=\"num\" data-sort=\"{}\">{}</td><td>{}</td></tr>",
        html_escape(c.name), c.memory_bytes, render::gib(c.memory_bytes), c.dense_tflops, c.bf16_native ? "bf16" : "fp16",
        c.bandwidth_gbps, c.usd_per_hour.value_or(1e9), c.usd_per_hour ? fmt::format("{:.2f}", *c.usd_per_hour) : "—",
        html_escape(c.source));
  return fmt::format(
      "<h1>Card catalogue</h1><p>What every plan is priced on (<code>data/cards.json</code>, compiled in; "
      "<a href=\"/cards.json\">JSON</a>). Memory is what <code>torch.cuda</code> reports, throughput is dense "
      "16-bit tensor-core TFLOP/s, prices are on-demand list prices for one GPU.</p><table class=\"sortable\"><thead><tr>"
      "<th>Card</th><th class=\"num\">Memory</th><th class=\"num\">TFLOP/s</th><th>Tensor cores</th><th "
      "class=\"num\">GB/s</th><th class=\"num\">$/hour</th><th>Source</th></tr></thead><tbody>{}</tbody></table>",
      rows);
}

std::string cards_json() {
  nlohmann::json cards = nlohmann::json::array();
  for (const auto& c : plan::default_cards())
    cards.push_back({{"card", c.name},
                     {"memory_bytes", c.memory_bytes},
                     {"dense_tflops_16bit", c.dense_tflops},
                     {"bf16_native", c.bf16_native},
                     {"bandwidth_gbps", c.bandwidth_gbps},
                     {"usd_per_hour", c.usd_per_hour ? nlohmann::json(*c.usd_per_hour) : nlohmann::json(nullptr)},
                     {"source", c.source}});
  return nlohmann::json{{"cards", cards}}.dump();
}

void serve_asset(const httplib::Request& req, httplib::Response& res) {
  const std::string name = req.matches[1];
  const auto content = embedded_asset(name);
  if (content.empty()) return send_json_error(res, 404, "not_found", "no such file");
  res.set_header("Cache-Control", "public, max-age=3600");
  res.set_content(std::string(content), name.ends_with(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8");
}

}  // namespace

void register_page_routes(httplib::Server& http, ServerContext& ctx) {
  http.Get("/", [&ctx](const httplib::Request&, httplib::Response& res) { send_page(res, "Try it", home_page(ctx)); });
  http.Get(R"(/static/(html\.css|app\.js))", serve_asset);
  http.Get("/cards", [](const httplib::Request&, httplib::Response& res) { send_page(res, "Cards", cards_page()); });
  http.Get("/cards.json", [](const httplib::Request&, httplib::Response& res) { send_json(res, 200, cards_json()); });

  // The model form: a redirect to the model's page, so the page's address is the one to share.
  http.Get("/go", [](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.get_param_value("model");
    try {
      validate_model_id(id);
    } catch (const ServiceError& e) {
      return send_html_error(res, 400, e.message);
    }
    res.status = 303;
    res.set_header("Location", "/models/" + id);
  });

  // The config form: traced, stored as a shared report, and answered with its permanent page.
  http.Post("/try", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admit_post(ctx, req, res, false)) return;
    if (req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) != 0)
      return send_html_error(res, 415, "send the form as application/x-www-form-urlencoded");
    std::string config;
    httplib::Params options;
    for (const auto& [key, value] : req.params) {
      if (key == "config")
        config = value;
      else if (!value.empty())  // an emptied number field means "the default"
        options.emplace(key, value);
    }
    try {
      if (nested_deeper_than(config, limits::kMaxJsonDepth))
        throw ServiceError{400, "invalid_json", fmt::format("the pasted config nests deeper than {} levels", limits::kMaxJsonDepth)};
      nlohmann::json parsed;
      try {
        parsed = nlohmann::json::parse(config);
      } catch (const nlohmann::json::parse_error& e) {
        throw ServiceError{400, "invalid_json", fmt::format("the pasted config is not JSON (byte {})", e.byte)};
      } catch (const nlohmann::json::exception&) {
        // Good syntax that no double holds (1e400): nlohmann throws out_of_range, not parse_error.
        throw ServiceError{400, "invalid_json", "the pasted config holds a number out of range"};
      }
      if (!parsed.is_object()) throw ServiceError{400, "invalid_json", "the pasted config must be a JSON object"};
      const auto cached = ctx.reports.for_config(parsed.dump(), options_from_query(options));
      res.status = 303;
      res.set_header("Location", "/p/" + publish(ctx, *cached));
    } catch (const OptionError& e) {
      send_html_error(res, 400, e.what());
    } catch (const ServiceError& e) {
      send_html_error(res, e.status, e.message);
    }
  });
}

}  // namespace neurarch::server
