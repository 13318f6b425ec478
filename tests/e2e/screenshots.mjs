// Screenshots of every league page at 1280 and 390 px wide, for docs/server.md and
// docs/groups.md (Tonight, rivals and head-to-head, a player's chart across a season): a
// league of eight dated game nights (Frank joins for the last two and wins both).
// Run by `E2E_DOCS_IMG=docs/img bash scripts/e2e.sh` before the tests, on the scratch
// server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const base = (process.env.PODIUM_URL || "").replace(/\/$/, "");
const dir = process.argv[2];
if (!base || !dir) throw new Error("usage: PODIUM_URL=URL node tests/e2e/screenshots.mjs DIR");

async function call(path, body, token) {
  const res = await fetch(`${base}${path}`, {
    method: "POST", body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const l = await call("/api/leagues", { name: "Thursday board games" });
await call("/api/leagues", { name: "Office Mario Kart", system: "trueskill" });
const five = ["Maya", "Priya", "Tom", "Kate", "Sam"];
const games = ["Azul", "Wingspan", "Catan", "Carcassonne"];
for (let night = 0; night < 8; night++) {
  const order = five.map((_, k) => five[(night * 2 + k * (night % 2 ? 3 : 1)) % 5]);
  const results = [...new Set(order)].slice(0, 4);
  if (night >= 6) results.unshift("Frank");
  const day = String(night + 1).padStart(2, "0");
  await call(`/api/leagues/${l.id}/matches`, {
    id: `2024-09-${day} ${games[night % 4]}`, time: `2024-09-${day}`,
    results: results.map((player, i) => ({ player, rank: i + 1 })),
  }, l.admin_token);
}

const profile = mkdtempSync(join(tmpdir(), "podium-shots-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  viewport: { width: 1280, height: 900 },
});
const page = browser.pages()[0] || (await browser.newPage());
// Top of each page, at most `height` px of it.
async function shot(name, path, width, height, prepare) {
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${base}${path}`);
  await page.locator("main section").first().waitFor();
  await page.waitForFunction(() => !document.querySelector("main > p"));
  if (prepare) await prepare();
  const full = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({ path: join(dir, `${name}-${width}.png`), clip: { x: 0, y: 0, width, height: Math.min(full, height) }, fullPage: true });
}
for (const width of [1280, 390]) {
  await shot("leagues", "/", width, width > 600 ? 820 : 1100);
  await shot("league", `/leagues/${l.id}`, width, width > 600 ? 1500 : 1500);
  // The list of games with a correction open, and a name flagged on the form.
  await shot("games", `/leagues/${l.id}`, width, 900, async () => {
    await page.locator('#games tr[data-match="2024-09-08 Carcassonne"] button.correct').click();
    await page.evaluate(() => { document.querySelectorAll("main > section").forEach((s) => { if (s.id !== "games-section") s.hidden = true; }); });
  });
  await shot("name-check", `/leagues/${l.id}`, width, 900, async () => {
    const rows = page.locator("#game-rows .game-row");
    await rows.nth(0).locator(".player-input").fill("maya");
    await rows.nth(1).locator(".player-input").fill("Priyaa");
    await rows.nth(2).locator(".player-input").fill("Tom");
    await page.click("#submit-game");
    await page.locator("#name-check .message").waitFor();
    await page.evaluate(() => { document.querySelectorAll("main > section").forEach((s) => { if (!s.querySelector("#game-form")) s.hidden = true; }); });
  });
  await shot("player", `/leagues/${l.id}/players/Maya`, width, width > 600 ? 900 : 1100);
  // Tonight: the six players ticked, two teams, the fairest split and the next-best ones,
  // the first with its record form open.
  await shot("tonight", `/leagues/${l.id}`, width, width > 600 ? 1400 : 1750, async () => {
    await page.click("#tonight-all");
    await page.click("#make-teams");
    await page.locator('#tonight-result .split[data-rank="3"]').waitFor();
    await page.click('#tonight-result .split[data-rank="1"] button.record-split');
    await page.evaluate(() => { document.querySelectorAll("main > section").forEach((s) => { if (s.id !== "tonight") s.hidden = true; }); });
  });
  // Maya's rivals and her head-to-head with Priya.
  await shot("versus", `/leagues/${l.id}/players/Maya`, width, width > 600 ? 900 : 1300, async () => {
    await page.locator("#rivals-table").waitFor();
    await page.click('#rivals-table tr[data-opponent="Priya"] button.vs');
    await page.locator("#versus-table").waitFor();
    await page.evaluate(() => { document.querySelectorAll("main > section").forEach((s) => { if (s.id !== "rivals-section") s.hidden = true; }); });
  });
}
// The seasons section: the first season ended (its board kept), a new one started with
// a soft reset and one game of it entered.
await call(`/api/leagues/${l.id}/seasons`, { name: "Winter", reset: { kind: "soft", pull: 0.5, widen: 0.25 } }, l.admin_token);
await call(`/api/leagues/${l.id}/matches`, { id: "Winter night 1", time: new Date().toISOString().slice(0, 10), results: ["Priya", "Frank", "Maya", "Tom"].map((player, i) => ({ player, rank: i + 1 })) }, l.admin_token);
for (const width of [1280, 390]) {
  await shot("seasons", `/leagues/${l.id}`, width, width > 600 ? 900 : 1300, async () => {
    await page.locator('details.season[data-season="1"] summary').click();
    await page.locator("#season-1-board").waitFor();
    await page.locator("#season-new summary").click();
    await page.evaluate(() => { document.querySelectorAll("main > section").forEach((s) => { if (s.id !== "seasons-section") s.hidden = true; }); });
  });
  // Kate has not played in Winter: her chart ends at the soft reset, her rating now.
  await shot("player-season", `/leagues/${l.id}/players/Kate`, width, 1000, async () => {
    await page.locator("svg.chart .season-mark").waitFor();
    await page.evaluate(() => { document.getElementById("rivals-section").hidden = true; });
  });
}
await browser.close();
rmSync(profile, { recursive: true, force: true });
