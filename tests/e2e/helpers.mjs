// What the browser tests share: the scratch server's address (PODIUM_URL, set by
// scripts/e2e.sh), the API calls that set a league up, and a headless Chromium with a
// fresh profile that records what the pages' content security policy refused.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const base = (process.env.PODIUM_URL || "").replace(/\/$/, "");

// Creates a league through the API: its id and admin token.
export async function createLeague(name, system) {
  const res = await fetch(`${base}/api/leagues`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, ...(system ? { system } : {}) }),
  });
  assert.equal(res.status, 201);
  return res.json();
}

// Records a match in league `l` through the API (201 expected).
export async function post(l, body) {
  const res = await fetch(`${base}/api/leagues/${l.id}/matches`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${l.admin_token}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text);
}

// The league's ledger as the API exports it (JSON Lines), one object per match.
export const ledger = async (l) => (await (await fetch(`${base}/api/leagues/${l.id}/matches`)).text())
  .split("\n").filter((x) => x.trim()).map((x) => JSON.parse(x));

// A headless Chromium with a fresh profile directory (Playwright passes it as
// --user-data-dir) and a window of `viewport` (a phone's unless said), in the machine's
// time zone unless `timezoneId` names another. `violations` collects what the content
// security policy refused; `close()` ends the browser and removes the profile.
export async function launch(name, viewport = { width: 390, height: 844 }, { timezoneId } = {}) {
  assert.ok(base, "PODIUM_URL is not set");
  const profile = mkdtempSync(join(tmpdir(), `podium-e2e-${name}-`));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport,
    ...(timezoneId ? { timezoneId } : {}),
  });
  const page = browser.pages()[0] || (await browser.newPage());
  const violations = [];
  page.on("console", (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
  });
  const close = async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { browser, page, violations, close };
}
