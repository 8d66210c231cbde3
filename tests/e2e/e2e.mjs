// End-to-end: a person opens the "Try it" page in a real browser, pastes a config, lands on its
// page, and the figures there are the JSON API's. Also: the structure table opens, tables sort,
// the model form works, and no script error or CSP violation happens on the way.
// Usage: node e2e.mjs BASE_URL OUTPUT_DIR   (chromium from $NEURARCH_CHROMIUM or /usr/bin/chromium)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const [base, out] = process.argv.slice(2);
if (!base || !out) throw new Error("usage: node e2e.mjs BASE_URL OUTPUT_DIR");
const here = dirname(fileURLToPath(import.meta.url));
const configText = readFileSync(join(here, "../../data/catalogue/TinyLlama--TinyLlama-1.1B-Chat-v1.0.json"), "utf8");

const browser = await chromium.launch({
  executablePath: process.env.NEURARCH_CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const problems = [];
let step = "start";
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));

  step = "home page";
  await page.goto(base + "/");
  assert.match(await page.title(), /Try it/);
  await page.screenshot({ path: join(out, "home.png"), fullPage: true });

  step = "paste a config and submit";
  await page.fill("#config", configText);
  await page.fill("input[name=batch]", "1");
  await Promise.all([page.waitForURL(/\/p\/[0-9a-f]{32}$/), page.click("#trace-config")]);
  const sharedUrl = page.url();

  step = "headline figures against the JSON API";
  const figure = async (name) => page.getAttribute(`[data-figure="${name}"]`, "data-value");
  const api = await page.request.post(base + "/api/v1/plan", {
    data: { config: JSON.parse(configText) },
    headers: { "content-type": "application/json" },
  });
  assert.equal(api.status(), 200);
  const report = await api.json();
  assert.equal(Number(await figure("parameters-derived")), report.parameters.derived);
  assert.equal(Number(await figure("full-device-bytes")), report.plan.full.device_bytes);
  assert.equal(Number(await figure("lora-device-bytes")), report.plan.lora.device_bytes);
  assert.equal(await figure("forward-pass"), String(report.forward_pass.ok));
  assert.equal(Number(await figure("layers")), report.layer_count);
  assert.equal(await figure("cheapest-card"), report.plan.cost.card);
  // What a person reads agrees too: 1,100,048,384 is written with separators.
  const shown = await page.textContent('[data-figure="parameters-derived"]');
  assert.equal(shown.replaceAll(",", ""), String(report.parameters.derived));
  // The stored report behind the link is the same report.
  const stored = await (await page.request.get(sharedUrl + ".json")).json();
  assert.equal(stored.plan.full.device_bytes, report.plan.full.device_bytes);

  step = "charts";
  assert.equal(await page.locator("svg.chart").count(), 2);
  assert.ok((await page.locator("svg.chart line.limit").count()) >= 3, "card limits drawn");

  step = "open the structure table";
  const structure = page.locator("details#structure");
  assert.equal(await structure.getAttribute("open"), null, "a long model starts folded");
  assert.equal(await page.locator("details#structure table").isVisible(), false);
  await page.click("details#structure summary");
  assert.notEqual(await structure.getAttribute("open"), null);
  assert.ok(await page.locator("details#structure table").isVisible());
  const rows = await page.locator("details#structure tbody tr").count();
  assert.equal(rows, report.layers.length);

  step = "sort the card table";
  const memoryHeader = page.locator("table.cards th", { hasText: "Memory" });
  await memoryHeader.click();
  assert.equal(await memoryHeader.getAttribute("aria-sort"), "ascending");
  const firstCard = await page.locator("table.cards tbody tr:first-child td:first-child").textContent();
  const smallest = [...report.plan.cards].sort((a, b) => a.memory_bytes - b.memory_bytes)[0].card;
  assert.equal(firstCard, smallest);

  step = "screenshot";
  await page.screenshot({ path: join(out, "model-page.png"), fullPage: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(out, "model-page-top.png") });
  await page.locator("#memory").screenshot({ path: join(out, "model-memory.png") });

  step = "model id form";
  await page.goto(base + "/");
  await page.fill("#model", "facebook/dinov2-small");
  await Promise.all([page.waitForURL(/\/models\/facebook\/dinov2-small$/), page.click("#model-form button")]);
  const dino = await (await page.request.get(base + "/models/facebook/dinov2-small.json")).json();
  assert.equal(Number(await figure("parameters-derived")), dino.parameters.derived);
  assert.equal(await page.locator("details#structure[open]").count(), 0);
  await page.screenshot({ path: join(out, "dinov2-small.png"), fullPage: true });

  step = "see it: the architecture diagram";
  await Promise.all([page.waitForURL(/#see-it$/), page.click("header nav a:has-text('See it')")]);
  const diagram = page.locator("#see-it svg.diagram");
  assert.ok(await diagram.isVisible(), "the diagram is drawn on the page");
  const geometry = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll("#see-it svg.diagram g.box")].map((g) => ({
      title: g.querySelector("title").textContent,
      rect: g.querySelector("rect").getBoundingClientRect().toJSON(),
      texts: [...g.querySelectorAll("text")].map((t) => t.getBoundingClientRect().toJSON()),
    }));
    return boxes;
  });
  assert.ok(geometry.length >= 5, `boxes drawn: ${geometry.length}`);
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  for (let i = 0; i < geometry.length; ++i) {
    for (const t of geometry[i].texts) {
      assert.ok(t.left >= geometry[i].rect.left - 0.5 && t.right <= geometry[i].rect.right + 0.5,
        `text overflows its box: ${geometry[i].title}`);
    }
    for (let j = i + 1; j < geometry.length; ++j)
      assert.ok(!overlaps(geometry[i].rect, geometry[j].rect), `boxes overlap: ${geometry[i].title} / ${geometry[j].title}`);
  }
  const svg = await page.request.get(base + "/models/facebook/dinov2-small/diagram.svg");
  assert.equal(svg.status(), 200);
  assert.match(svg.headers()["content-type"], /^image\/svg\+xml/);
  await page.locator("#see-it").screenshot({ path: join(out, "see-it.png") });

  step = "no script errors";
  assert.deepEqual(problems, []);
  console.log(`e2e: ok (${sharedUrl}); screenshots in ${out}`);
} catch (error) {
  console.error(`e2e: failed at "${step}": ${error.message}`);
  if (problems.length) console.error(problems.join("\n"));
  process.exitCode = 1;
} finally {
  await browser.close();
}
