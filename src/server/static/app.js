// Progressive enhancement only: every page reads and works without it.
"use strict";

// Sort a table by a header click; cells may carry data-sort with the raw number.
function sortableTables() {
  for (const table of document.querySelectorAll("table.sortable")) {
    const headers = table.querySelectorAll("thead th");
    headers.forEach((th, column) => {
      th.addEventListener("click", () => {
        const ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach((h) => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        const key = (row) => {
          const cell = row.cells[column];
          const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
          const number = Number(raw);
          return Number.isFinite(number) && raw !== "" ? number : raw.toLowerCase();
        };
        rows.sort((a, b) => {
          const x = key(a), y = key(b);
          const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return ascending ? order : -order;
        });
        for (const row of rows) body.appendChild(row);
      });
    });
  }
}

// Copy buttons are hidden without script, shown once they can work.
function copyButtons() {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      await navigator.clipboard.writeText(source.textContent);
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
  }
}

// A pasted config that is not JSON is caught before the round trip.
function configCheck() {
  const form = document.getElementById("config-form");
  if (!form) return;
  const area = form.querySelector("textarea");
  const message = document.getElementById("config-message");
  form.addEventListener("submit", (event) => {
    try {
      const parsed = JSON.parse(area.value);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("a JSON object is expected");
      message.textContent = "";
    } catch (error) {
      event.preventDefault();
      message.textContent = "Not a JSON object: " + error.message;
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  sortableTables();
  copyButtons();
  configCheck();
});
