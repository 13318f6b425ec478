// Enters games through the league page's form in a real headless Chromium and checks
// that the leaderboard changes. Run by scripts/e2e.sh, which starts `podium serve` and
// sets PODIUM_URL.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { base, createLeague, launch, post } from "./helpers.mjs";

const shots = process.env.E2E_SCREENSHOTS;
// `violations`: what the browser reports as blocked by the pages' content security policy.
let page, violations, close, league, token;

before(async () => {
  ({ page, violations, close } = await launch("league"));
  ({ id: league, admin_token: token } = await createLeague("Thursday E2E", "sme"));
});

after(async () => {
  await close?.();
});

async function enterGame(results) {
  const rows = page.locator("#game-rows .game-row");
  while ((await rows.count()) > results.length) await rows.last().locator("button.remove").click();
  while ((await rows.count()) < results.length) await page.click("#add-player");
  for (const [i, [player, place]] of results.entries()) {
    await rows.nth(i).locator(".player-input").fill(player);
    await rows.nth(i).locator(".place-input").fill(String(place));
  }
  await page.fill("#token", token);
  await page.evaluate(() => document.querySelector("#game-result").replaceChildren());
  await page.click("#submit-game");
  await page.locator("#changes").waitFor();
}

async function board() {
  return page.$$eval("#leaderboard tbody tr[data-player]", (trs) => trs.map((tr) => ({
    player: tr.dataset.player,
    rating: Number(tr.children[2].getAttribute("title")),
    provisional: tr.classList.contains("provisional"),
  })));
}

test("the league list shows the new league", async () => {
  await page.goto(`${base}/`);
  await page.locator("#leagues").getByText("Thursday E2E").waitFor();
});

test("a game entered through the form changes the leaderboard", async () => {
  await page.goto(`${base}/leagues/${league}`);
  await page.locator("#empty-board").waitFor();
  // ann wins; bo and cy tie for second.
  await enterGame([["ann", 1], ["bo", 2], ["cy", 2]]);
  const changes = await page.$$eval("#changes tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(changes.map((r) => r[1]), ["ann", "bo", "cy"]);
  assert.equal(changes[0][4], "+16.0");
  await page.locator("#leaderboard tbody tr").nth(2).waitFor();
  let rows = await board();
  // bo and cy tied: each meets ann half of the time and they draw, so both lose 8 and
  // the leaderboard orders them by name.
  assert.deepEqual(rows.map((r) => r.player), ["ann", "bo", "cy"]);
  assert.deepEqual(rows.map((r) => r.rating), [1516, 1492, 1492]);
  // Every row is drawn: no "Show more", and no count of rows not shown (none is).
  assert.ok(await page.locator("#show-more").isHidden());
  assert.equal(await page.textContent("#show-more"), "");
  if (shots) await page.screenshot({ path: join(shots, "league.png"), fullPage: true });

  // A second game: bo beats ann. The leaderboard follows.
  await enterGame([["bo", 1], ["ann", 2]]);
  await page.waitForFunction(() => document.querySelector('#leaderboard tr[data-player="ann"] td:nth-child(3)')?.title !== "1516");
  rows = await board();
  const ann = rows.find((r) => r.player === "ann");
  const bo = rows.find((r) => r.player === "bo");
  assert.ok(ann.rating < 1516, `ann lost rating: ${ann.rating}`);
  assert.ok(bo.rating > 1484, `bo gained rating: ${bo.rating}`);
  const api = await (await fetch(`${base}/api/leagues/${league}/leaderboard`)).json();
  assert.deepEqual(rows.map((r) => r.player), api.map((r) => r.player));
  assert.deepEqual(rows.map((r) => r.rating), api.map((r) => r.rating));

  // Sorting by a column: click "Rating" twice for lowest first.
  const ratingHeader = page.locator("#leaderboard th[data-key=rating]");
  await ratingHeader.click();
  await ratingHeader.click();
  const sorted = (await board()).map((r) => r.rating);
  assert.deepEqual(sorted, [...sorted].sort((a, b) => a - b));
});

test("on a desktop screen the leaderboard fits its page, percentages with one decimal", async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  try {
    await page.goto(`${base}/leagues/${league}`);
    await page.locator("#leaderboard tbody tr").nth(2).waitFor();
    // Every column, the provisional badges included, without a horizontal scroll bar.
    const [scroll, client] = await page.$eval("#board", (d) => [d.scrollWidth, d.clientWidth]);
    assert.ok(scroll <= client, `the leaderboard is ${scroll} px wide in ${client} px`);
    // ann won one of two games: 50.0 %, beside an average player's 41.7 % (1/3 and 1/2).
    const cells = await page.$$eval('#leaderboard tr[data-player="ann"] td', (tds) => tds.map((td) => td.textContent));
    const heads = await page.$$eval("#leaderboard th", (ths) => ths.map((th) => th.dataset.key));
    const cell = (key) => cells[heads.indexOf(key)];
    assert.equal(cell("win_pct"), "50.0");
    assert.equal(cell("expected_win_pct"), "41.7");
    assert.equal(cell("avg_size"), "2.5");
  } finally {
    await page.setViewportSize({ width: 390, height: 844 });
  }
});

test("a wrong token is refused on the form", async () => {
  await page.goto(`${base}/leagues/${league}`);
  await page.locator("#game-rows .game-row").first().waitFor();
  const rows = page.locator("#game-rows .game-row");
  await rows.nth(2).locator("button.remove").click();
  await rows.nth(0).locator(".player-input").fill("ann");
  await rows.nth(1).locator(".player-input").fill("dee");
  await page.fill("#token", "pdm_wrong");
  await page.click("#submit-game");
  await page.locator("#game-result .message.err").waitFor();
  const api = await (await fetch(`${base}/api/leagues/${league}`)).json();
  assert.equal(api.matches, 2);
});

test("the player page draws the rating over time and each game", async () => {
  await page.goto(`${base}/leagues/${league}/players/ann`);
  await page.locator("svg.chart polyline").waitFor();
  const points = await page.getAttribute("svg.chart polyline", "points");
  assert.equal(points.trim().split(/\s+/).length, 3, "start and two games");
  assert.equal(await page.locator("#history tbody tr").count(), 2);
  // sme steps by K: its column and the rule that uses it.
  const heads = await page.$$eval("#history th", (ths) => ths.map((th) => th.textContent));
  assert.deepEqual(heads, ["Game", "When", "Place", "Before", "Expected", "Actual", "K", "Change", "After"]);
  assert.match(await page.textContent("#history-how"), /^Change = K × \(actual − expected\)/);
  // sme learns nothing beside its players: no such list on its league page.
  assert.deepEqual((await (await fetch(`${base}/api/leagues/${league}`)).json()).learned, []);
  if (shots) await page.screenshot({ path: join(shots, "player.png"), fullPage: true });
});

test("the default system's player page reads performances, σ and the entry's seat", async () => {
  const km = await createLeague("Performances E2E");
  const post = (results) => fetch(`${base}/api/leagues/${km.id}/matches`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${km.admin_token}` },
    body: JSON.stringify({ results }),
  });
  assert.equal((await post([{ player: "ann", rank: 1, factors: { seat: 1 } }, { player: "bo", rank: 2, factors: { seat: 2 } }, { player: "cy", rank: 3, factors: { seat: 3 } }])).status, 201);
  assert.equal((await post([{ player: "bo", rank: 1 }, { player: "ann", rank: 2 }])).status, 201);
  const info = await (await fetch(`${base}/api/leagues/${km.id}`)).json();
  assert.equal(info.system, "kalman-mmr");
  assert.equal(info.performances, true);
  const api = await (await fetch(`${base}/api/leagues/${km.id}/players/ann`)).json();
  // The first game's entry carried seat 1, which started at 0; the second, no factor.
  assert.deepEqual(api.history.map((g) => (g.factors || []).map((f) => [f.kind, f.value, f.before])), [[["seat", "1", 0]], []]);
  await page.goto(`${base}/leagues/${km.id}/players/ann`);
  await page.locator("#history tbody tr").nth(1).waitFor();
  const heads = await page.$$eval("#history th", (ths) => ths.map((th) => th.textContent));
  // No K (a Kalman filter has none), σ after each game, and the seat.
  assert.deepEqual(heads, ["Game", "When", "Place", "Factors", "Before", "Expected", "Actual", "Change", "After", "σ after"]);
  const rows = await page.$$eval("#history tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  // Newest first: the second game carried no factor, the first seat 1 at +0.0.
  assert.deepEqual(rows.map((r) => r[3]), ["", "seat=1 (0.0)"]);
  // Performances on the rating scale, in whole points, as the API gives them.
  const first = api.history[0];
  assert.deepEqual(rows[1].slice(5, 7), [first.expected.toFixed(0), first.actual.toFixed(0)]);
  assert.equal(rows[1][9], first.sigma_after.toFixed(1));
  assert.match(await page.textContent("#history-how"), /^Expected: the performance the rating and the entry's factors predicted/);
  // The league page says what the system learned from the games, as the API does.
  assert.deepEqual(info.learned.map((v) => v.name), ["tau", "gamma", "robust", "switches", "filters", "kappa", "c", "prior_mean"]);
  await page.goto(`${base}/leagues/${km.id}`);
  await page.locator("#learned li").nth(6).waitFor();
  assert.match(await page.textContent("#learned"), /Learned by kalman-mmr from the 2 games, not set:/);
  const tau = info.learned.find((v) => v.name === "tau");
  assert.equal(await page.textContent('#learned li[data-name="tau"]'), `tau ${tau.value} — ${tau.doc}`);
  if (shots) await page.screenshot({ path: join(shots, "player-performances.png"), fullPage: true });
});

test("settings change the system and recompute", async () => {
  await page.goto(`${base}/leagues/${league}`);
  // elo cannot rate the three-player game: refused, nothing changes, and the page says so
  // (the server's reason under it).
  await page.selectOption("#settings-system", "elo");
  await page.fill("#settings-token", token);
  await page.click("#settings-form button[type=submit]");
  const refused = page.locator("#settings-form .message.err");
  await refused.waitFor();
  assert.equal(await refused.evaluate((m) => m.firstChild.textContent), "Nothing was changed: elo rates games of exactly 2 players or teams, " +
    "and the game “#1” has 3. The league keeps sme and its ratings; choose a system that can rate every game of the league.");
  assert.equal(await refused.locator(".detail").textContent(),
    "The server's reason: match \"#1\" cannot be rated: system elo rates matches of exactly 2 entries, this one has 3");
  assert.equal((await (await fetch(`${base}/api/leagues/${league}`)).json()).system, "sme");
  // mes with K = 20: recomputed, and every player is still provisional.
  await page.selectOption("#settings-system", "mes");
  await page.fill("#param-k", "20");
  await page.click("#settings-form button[type=submit]");
  await page.locator("#settings-form .message.ok").waitFor();
  const info = await (await fetch(`${base}/api/leagues/${league}`)).json();
  assert.equal(info.system, "mes");
  assert.deepEqual(info.config, [["k", "20"]]);
  await page.waitForFunction(() => document.querySelectorAll("#leaderboard tr.provisional .badge").length === 3);
  const api = await (await fetch(`${base}/api/leagues/${league}/leaderboard`)).json();
  assert.deepEqual((await board()).map((r) => r.rating), api.map((r) => r.rating));
  if (shots) await page.screenshot({ path: join(shots, "settings.png"), fullPage: true });
});

test("a league of 1,200 players draws 500 rows at a time, sorted over all of them", async () => {
  const big = await createLeague("Big E2E", "sme");
  const results = Array.from({ length: 1200 }, (_, i) => ({ player: `p${String(i).padStart(4, "0")}`, rank: i + 1 }));
  const post = await fetch(`${base}/api/leagues/${big.id}/matches`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${big.admin_token}` },
    body: JSON.stringify({ results }),
  });
  assert.equal(post.status, 201);
  await page.goto(`${base}/leagues/${big.id}`);
  await page.locator("#leaderboard tbody tr").first().waitFor();
  assert.equal((await board()).length, 500);
  assert.equal(await page.textContent("#show-more"), "Show 500 more (700 not shown)");
  // Sorting works on every player, not only the rows drawn: the lowest rating first.
  await page.click("#leaderboard th[data-key=rating]");
  await page.click("#leaderboard th[data-key=rating]");
  const api = await (await fetch(`${base}/api/leagues/${big.id}/leaderboard`)).json();
  assert.equal((await board())[0].player, api[api.length - 1].player);
  await page.click("#show-more");
  assert.equal(await page.textContent("#show-more"), "Show 200 more (200 not shown)");
  await page.click("#show-more");
  assert.equal((await board()).length, 1200);
  assert.ok(await page.locator("#show-more").isHidden());
  assert.equal(await page.textContent("#show-more"), "", "nothing is left to show: no count");
});

test("a game entered with cars shows the factors' table below the leaderboard", async () => {
  const gp = await createLeague("Grand prix E2E", "pairwise");
  await page.goto(`${base}/leagues/${gp.id}`);
  await page.locator("#empty-board").waitFor();
  assert.ok(await page.locator("#factors-section").isHidden(), "no factors yet, no table");
  assert.ok(await page.locator("#game-rows .factor-input").first().isHidden(), "no kind, no value fields");
  await page.fill("#factor-kind", "car");
  const rows = page.locator("#game-rows .game-row");
  await rows.nth(2).locator("button.remove").click();
  for (const [i, [player, place, car]] of [["ann", 1, "red"], ["bo", 2, "blue"]].entries()) {
    await rows.nth(i).locator(".player-input").fill(player);
    await rows.nth(i).locator(".place-input").fill(String(place));
    await rows.nth(i).locator(".factor-input").fill(car);
  }
  await page.fill("#token", gp.admin_token);
  await page.click("#submit-game");
  await page.locator("#factor-changes").waitFor();
  const changes = await page.$$eval("#factor-changes tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  // pairwise, K = 32: the winner's car gains 16, the loser's loses 16.
  assert.deepEqual(changes.map((r) => [r[0], r[1], r[4]]), [["car", "red", "+16.0"], ["car", "blue", "-16.0"]]);
  await page.locator("#factors tbody tr").nth(1).waitFor();
  assert.ok(await page.locator("#factors-section").isVisible());
  const table = await page.$$eval("#factors tbody tr", (trs) => trs.map((tr) => ({
    factor: tr.dataset.factor, rating: Number(tr.children[2].getAttribute("title")), matches: tr.children[3].textContent,
  })));
  assert.deepEqual(table, [{ factor: "car=red", rating: 16, matches: "1" }, { factor: "car=blue", rating: -16, matches: "1" }]);
  const api = await (await fetch(`${base}/api/leagues/${gp.id}/factors`)).json();
  assert.deepEqual(table.map((r) => r.rating), api.map((r) => r.rating));
  // The ledger has the cars; the drivers were rated beside them.
  const match = (await (await fetch(`${base}/api/leagues/${gp.id}/matches`)).text()).trim();
  assert.deepEqual(JSON.parse(match).results.map((r) => r.car), ["red", "blue"]);
  // The factor's section comes after the leaderboard's.
  const order = await page.$$eval("main > section", (ss) => ss.map((s) => s.id || s.querySelector("h1, h2")?.textContent));
  assert.equal(order.indexOf("factors-section"), 1, String(order));
  // Reloaded, the form offers the league's kind.
  await page.reload();
  await page.locator("#factors tbody tr").first().waitFor();
  assert.equal(await page.inputValue("#factor-kind"), "car");
  if (shots) await page.screenshot({ path: join(shots, "factors.png"), fullPage: true });
});

test("a game entered with a seat and a faction rates both kinds", async () => {
  const gl = await createLeague("Factions E2E", "pairwise");
  await page.goto(`${base}/leagues/${gl.id}`);
  await page.locator("#empty-board").waitFor();
  await page.fill("#factor-kind", "seat");
  await page.click("#add-kind");
  await page.fill("#factor-kind-2", "seat");
  const rows = page.locator("#game-rows .game-row");
  await rows.nth(2).locator("button.remove").click();
  for (const [i, [player, place, seat, faction]] of [["ann", 1, "1", "elves"], ["bo", 2, "2", "orcs"]].entries()) {
    await rows.nth(i).locator(".player-input").fill(player);
    await rows.nth(i).locator(".place-input").fill(String(place));
    await rows.nth(i).locator(".factor-input").nth(0).fill(seat);
    await rows.nth(i).locator(".factor-input").nth(1).fill(faction);
  }
  await page.fill("#token", gl.admin_token);
  // One kind in two columns is refused before anything is sent.
  await page.click("#submit-game");
  await page.locator("#game-result .message").waitFor();
  assert.equal(await page.textContent("#game-result"), "The factor kind “seat” is given twice: give each kind once.");
  assert.equal((await (await fetch(`${base}/api/leagues/${gl.id}/matches`)).text()).trim(), "");
  await page.fill("#factor-kind-2", "faction");
  await page.click("#submit-game");
  await page.locator("#factor-changes").waitFor();
  const changes = await page.$$eval("#factor-changes tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  // pairwise, K = 32: each factor of the winner gains 16, each of the loser's loses 16.
  assert.deepEqual(changes.map((r) => `${r[0]}=${r[1]} ${r[4]}`).sort(),
    ["faction=elves +16.0", "faction=orcs -16.0", "seat=1 +16.0", "seat=2 -16.0"]);
  const match = JSON.parse((await (await fetch(`${base}/api/leagues/${gl.id}/matches`)).text()).trim());
  assert.deepEqual(match.results.map((r) => [r.player, String(r.seat), r.faction]), [["ann", "1", "elves"], ["bo", "2", "orcs"]]);
  await page.locator("#factors tbody tr").nth(3).waitFor();
  const table = await page.$$eval("#factors tbody tr", (trs) => trs.map((tr) => tr.dataset.factor));
  assert.deepEqual(table, ["faction=elves", "faction=orcs", "seat=1", "seat=2"]);
  // Reloaded, the form offers both of the league's kinds, and the offline command reads both.
  await page.reload();
  await page.locator("#factors tbody tr").first().waitFor();
  assert.deepEqual([await page.inputValue("#factor-kind"), await page.inputValue("#factor-kind-2")], ["faction", "seat"]);
  assert.equal(await page.locator("#game-rows .game-row").first().locator(".factor-input").count(), 2);
  assert.match(await page.textContent("main"), /--factor faction --factor seat/);
  if (shots) await page.screenshot({ path: join(shots, "factions.png"), fullPage: true });
});

test("the offline command carries the league's parameters and says it leaves out the seasons' resets", async () => {
  const res = await fetch(`${base}/api/leagues`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Offline E2E", system: "sme", config: { k: 24, scale: 400 } }),
  });
  assert.equal(res.status, 201);
  const l = await res.json();
  const game = (id, order, cars) => ({ id, results: order.map((player, i) => ({ player, rank: i + 1, factors: { car: cars[i] } })) });
  await post(l, game("r1", ["ann", "bo", "cy"], ["red", "blue", "blue"]));
  await post(l, game("r2", ["bo", "ann", "cy"], ["blue", "red", "red"]));
  await post(l, game("r3", ["ann", "cy", "bo"], ["blue", "red", "red"]));
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#factors tbody tr").first().waitFor();
  // k differs from sme's default, scale does not. The command gives, from the downloaded
  // games, ann 1520.94, bo 1499.79, cy 1479.27 (without --set k=24: ann 1526.59): the
  // league's own board.
  assert.equal(await page.textContent("#offline-command"), `podium rate league-${l.id}.jsonl --system sme --set k=24 --factor car`);
  // The link saves the games under the name the command reads.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-games")]);
  assert.equal(download.suggestedFilename(), `league-${l.id}.jsonl`);
  const saved = readFileSync(await download.path(), "utf8");
  assert.equal(saved, await (await fetch(`${base}/api/leagues/${l.id}/matches`)).text());
  assert.deepEqual(saved.trim().split("\n").map((x) => JSON.parse(x).match), ["r1", "r2", "r3"]);
  const api = await (await fetch(`${base}/api/leagues/${l.id}/leaderboard`)).json();
  assert.deepEqual(api.map((r) => [r.player, r.rating.toFixed(2)]), [["ann", "1520.94"], ["bo", "1499.79"], ["cy", "1479.27"]]);
  assert.equal(await page.locator("#offline-seasons").count(), 0);

  // A second season: the command rates without its reset, and says so.
  const started = await fetch(`${base}/api/leagues/${l.id}/seasons`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${l.admin_token}` },
    body: JSON.stringify({ name: "Winter", reset: { kind: "hard" } }),
  });
  assert.equal(started.status, 201, await started.text());
  await page.reload();
  await page.locator("#offline-seasons").waitFor();
  assert.match(await page.textContent("#data"), /--set k=24 --factor car, which rates every game as one season, without the resets of the league's seasons/);

  // A list parameter as the command line takes it, a boolean, and no factor.
  const km = await fetch(`${base}/api/leagues`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Offline list E2E", system: "kalman-mmr", config: { taus: "0,25", robust: false } }),
  });
  assert.equal(km.status, 201);
  const kmId = (await km.json()).id;
  await page.goto(`${base}/leagues/${kmId}`);
  await page.locator("#empty-board").waitFor();
  assert.equal(await page.textContent("#offline-command"), `podium rate league-${kmId}.jsonl --system kalman-mmr --set taus=0,25 --set robust=false`);
});

test("a system with uncertainty shows each factor's σ", async () => {
  const ts = await createLeague("Seats E2E", "trueskill");
  const res = await fetch(`${base}/api/leagues/${ts.id}/matches`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ts.admin_token}` },
    body: JSON.stringify({ results: [{ player: "ann", rank: 1, factors: { seat: 1 } }, { player: "bo", rank: 2, factors: { seat: 2 } }] }),
  });
  assert.equal(res.status, 201);
  await page.goto(`${base}/leagues/${ts.id}`);
  await page.locator("#factors tbody tr").nth(1).waitFor();
  const heads = await page.$$eval("#factors thead th", (ths) => ths.map((th) => th.textContent));
  assert.deepEqual(heads, ["Kind", "Value", "Rating", "σ", "Matches", "Win %", "Exp. win %"]);
  const sigmas = await page.$$eval("#factors tbody td.sigma", (tds) => tds.map((td) => Number(td.getAttribute("title"))));
  const api = await (await fetch(`${base}/api/leagues/${ts.id}/factors`)).json();
  assert.deepEqual(sigmas, api.map((f) => f.sigma));
  assert.ok(sigmas.every((v) => v > 0), String(sigmas));
});

// The league's voided games, as the API lists them, by id.
const voidedIds = async (id) => (await (await fetch(`${base}/api/leagues/${id}/voided`)).json()).map((m) => m.match);

test("a game voided from the page is listed under the games and restored as it was", async () => {
  const l = await createLeague("Restore E2E", "sme");
  const send = async (body) => {
    const res = await fetch(`${base}/api/leagues/${l.id}/matches`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${l.admin_token}` },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 201, await res.text());
  };
  await send({ id: "g1", time: "2026-11-20", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }, { player: "cy", rank: 3 }] });
  await send({ id: "g2", time: "2026-11-22T19:30:00Z", results: [{ player: "bo", score: 31, factors: { seat: 1 } },
    { player: "ann", score: 12, factors: { seat: 2 } }, { player: "cy", score: 25, factors: { seat: 3 } }] });
  await send({ id: "g3", time: "2026-11-29", results: [{ player: "cy", rank: 1 }, { player: "ann", rank: 2 }] });
  const get = async (path) => (await fetch(`${base}/api/leagues/${l.id}${path}`)).json();
  const [g2, before, factors] = [await get("/matches/g2"), await get("/leaderboard"), await get("/factors")];

  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator('#games tr[data-match="g2"]').waitFor();
  assert.equal(await page.locator("#voided-games").count(), 0, "no voided game, no list of them");
  await page.fill("#token", l.admin_token);
  const row = page.locator('#games tr[data-match="g2"]');
  await row.locator("button.void").click();
  await row.locator("button.void").click();
  await page.locator("#games-result .message.ok").getByText("Game g2 voided").waitFor();
  await page.waitForFunction(() => !document.querySelector('#games tr[data-match="g2"]'));
  assert.deepEqual(await voidedIds(l.id), ["g2"]);
  assert.notDeepEqual(await get("/leaderboard"), before, "the board without g2");

  // Listed, folded, under the games: its result, its time, a Restore button.
  const voided = page.locator("#voided-games");
  assert.equal(await voided.locator("summary").textContent(), "Voided games (1)");
  assert.ok(await voided.locator("#voided").isHidden(), "folded until opened");
  await voided.locator("summary").click();
  const listed = voided.locator('#voided tr[data-match="g2"]');
  assert.equal(await listed.locator(".result").textContent(), "bo 31 · cy 25 · ann 12");
  assert.equal(await listed.locator("td.when").getAttribute("title"), "2026-11-22T19:30:00Z");
  await listed.locator("button.restore").click();
  await page.locator("#games-result .message.ok").getByText("Game g2 restored").waitFor();

  // Back among the games, in its place; nothing voided is left; the league is what it was.
  await page.waitForFunction(() => !document.querySelector("#voided-games"));
  assert.deepEqual(await page.$$eval("#games tbody tr[data-match]", (trs) => trs.map((tr) => tr.dataset.match)), ["g3", "g2", "g1"]);
  assert.deepEqual(await voidedIds(l.id), []);
  assert.deepEqual(await get("/matches/g2"), g2);
  assert.deepEqual(await get("/leaderboard"), before);
  assert.deepEqual(await get("/factors"), factors);
  await page.waitForFunction((want) => document.querySelector('#leaderboard tr[data-player="ann"] td:nth-child(3)')?.title === want,
    String(before.find((r) => r.player === "ann").rating));

  // The message of a void offers to undo it at once.
  const g3 = page.locator('#games tr[data-match="g3"]');
  await g3.locator("button.void").click();
  await g3.locator("button.void").click();
  const undo = page.locator("#games-result .message.ok button.restore");
  await undo.waitFor();
  assert.equal(await undo.textContent(), "Undo");
  assert.deepEqual(await voidedIds(l.id), ["g3"]);
  await undo.click();
  await page.locator("#games-result .message.ok").getByText("Game g3 restored").waitFor();
  await page.locator('#games tr[data-match="g3"]').waitFor();
  assert.deepEqual(await voidedIds(l.id), []);
  assert.deepEqual(await get("/leaderboard"), before);
});

// Whether the element `selector` picks is all within the window.
const inView = (selector) => page.$eval(selector, (el) => {
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight;
});
// The games listed on either side of the answer to a correction, void or restore.
const beside = () => page.$eval("#games-result", (el) => [el.previousElementSibling?.dataset.match ?? null, el.nextElementSibling?.dataset.match ?? null]);

test("at 390 px the answer to Correct, Void and Restore is beside the game, in view, and each button names its game", async () => {
  const l = await createLeague("Answers E2E", "sme");
  const days = Array.from({ length: 30 }, (_, i) => String(i + 1).padStart(2, "0"));
  for (const d of days) await post(l, { id: `d${d}`, time: `2025-01-${d}`, results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }] });
  // A voided game older than the 20 the list shows at first.
  assert.equal((await fetch(`${base}/api/leagues/${l.id}/matches/d03`, { method: "DELETE", headers: { authorization: `Bearer ${l.admin_token}` } })).status, 200);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator('#games tr[data-match="d12"]').waitFor();
  await page.fill("#token", l.admin_token);
  const row = (key) => page.locator(`#games tr[data-match="${key}"]`);
  assert.equal(await row("d12").locator("button.correct").getAttribute("aria-label"), "Correct game d12");
  assert.equal(await row("d12").locator("button.void").getAttribute("aria-label"), "Void game d12");

  // A correction far down the list: its answer under its row, on the screen.
  await row("d12").locator("button.correct").click();
  const edit = page.locator("#games tr.editing");
  await edit.locator(".place-input").nth(0).fill("2");
  await edit.locator(".place-input").nth(1).fill("1");
  await edit.locator("button.save-correction").click();
  await page.locator("#games-result .message.ok").waitFor();
  assert.equal(await page.textContent("#games-result"), "Game d12 corrected; the league was rated again.");
  assert.deepEqual(await beside(), ["d12", "d11"]);
  assert.ok(await inView("#games-result"), "the answer is on the screen");

  // A void: the answer, with its Undo, where the game was.
  await row("d15").locator("button.void").click();
  assert.equal(await row("d15").locator("button.void").getAttribute("aria-label"), "Void game d15? Press again to void it");
  await row("d15").locator("button.void").click();
  await page.locator("#games-result").getByText("Game d15 voided").waitFor();
  assert.equal(await page.textContent("#games-result"), "Game d15 voided; the league was rated again without it. Undo");
  assert.deepEqual(await beside(), ["d16", "d14"]);
  assert.ok(await inView("#games-result"));
  const undo = page.locator("#games-result button.restore");
  assert.equal(await undo.getAttribute("aria-label"), "Undo: restore game d15");
  await undo.click();
  await page.locator("#games-result").getByText("Game d15 restored").waitFor();
  assert.deepEqual(await beside(), ["d15", "d14"]);
  assert.ok(await inView("#games-result"));

  // A void refused (a wrong token): said under the game, which stays.
  await page.fill("#token", "pdm_wrong");
  await row("d20").locator("button.void").click();
  await row("d20").locator("button.void").click();
  await page.locator("#games-result .message.err").waitFor();
  assert.match(await page.textContent("#games-result"), /^The league's admin token is missing or wrong\./);
  assert.deepEqual(await beside(), ["d20", "d19"]);
  assert.ok(await inView("#games-result"));
  await page.fill("#token", l.admin_token);

  // A correction the league would refuse is said in the correction, before it is sent.
  await row("d13").locator("button.correct").click();
  await edit.locator(".player-input").nth(1).fill("ann");
  await edit.locator("button.save-correction").click();
  assert.equal(await edit.locator(".correct-said").textContent(), "ann is entered twice.");
  assert.ok(await inView("#games tr.editing .correct-said"));
  await edit.locator("button.secondary", { hasText: "Cancel" }).click();

  // An old game restored from the voided games: the list shows every game, the answer
  // under the game back in its place.
  await page.click("#voided-games summary");
  const voidedRow = page.locator('#voided tr[data-match="d03"]');
  assert.equal(await voidedRow.locator("button.restore").getAttribute("aria-label"), "Restore game d03");
  await voidedRow.locator("button.restore").click();
  await page.locator("#games-result").getByText("Game d03 restored").waitFor();
  assert.deepEqual(await beside(), ["d03", "d02"]);
  assert.ok(await inView("#games-result"));
  assert.equal(await page.locator("#all-games").count(), 0, "every game shown");
  // Nothing is wider than the screen.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));

  // The game form's ✕ buttons name their line, and follow when one goes.
  const removes = () => page.$$eval("#game-rows button.remove", (bs) => bs.map((b) => b.getAttribute("aria-label")));
  assert.deepEqual(await removes(), ["Remove row 1", "Remove row 2", "Remove row 3"]);
  await page.locator("#game-rows button.remove").nth(1).click();
  assert.deepEqual(await removes(), ["Remove row 1", "Remove row 2"]);
  await page.click("#add-player");
  assert.deepEqual(await removes(), ["Remove row 1", "Remove row 2", "Remove row 3"]);
});

test("at 390 px the games list fits the screen with a correction open, its times short and local, as on a player's page", async () => {
  // New York: 5 hours behind UTC in winter, so local days and times differ from UTC ones.
  const ny = await launch("times", { width: 390, height: 844 }, { timezoneId: "America/New_York" });
  try {
    const l = await createLeague("Times E2E", "sme");
    const send = async (body) => {
      const res = await fetch(`${base}/api/leagues/${l.id}/matches`, {
        method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${l.admin_token}` },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 201, await res.text());
    };
    await send({ id: "night", time: "2025-01-14T02:30:00Z", results: [{ player: "Christopher-Alexander Longname", rank: 1 }, { player: "bo", rank: 2 }] });
    await send({ id: "day", time: "2026-11-20", results: [{ player: "bo", rank: 1 }, { player: "cy", rank: 2 }] });
    await send({ id: "afternoon", time: "2026-11-29T13:14:29Z", results: [{ player: "Maximilian-Bartholomew", rank: 1 },
      { player: "Christopher-Alexander Longname", rank: 2 }, { player: "bo", rank: 3 }, { player: "cy", rank: 3 }] });
    const p = ny.page;
    await p.goto(`${base}/leagues/${l.id}`);
    await p.locator('#games tr[data-match="night"]').waitFor();
    const when = (key) => p.$eval(`#games tr[data-match="${key}"] td.when`, (td) => [td.textContent, td.title]);
    // A time of day in the browser's zone, to the minute; a day alone as it is.
    assert.deepEqual(await when("afternoon"), ["2026-11-29 08:14", "2026-11-29T13:14:29Z"]);
    assert.deepEqual(await when("night"), ["2025-01-13 21:30", "2025-01-14T02:30:00Z"]);
    assert.deepEqual(await when("day"), ["2026-11-20", "2026-11-20"]);

    // The list scrolls nowhere, and a correction opened on the longest row is all in view.
    const fits = () => p.$eval("#games-list .scroll", (d) => [d.scrollWidth, d.clientWidth]);
    let [scroll, client] = await fits();
    assert.ok(scroll <= client, `the games are ${scroll} px wide in ${client} px`);
    await p.locator('#games tr[data-match="afternoon"] button.correct').click();
    const edit = p.locator("#games tr.editing");
    await edit.waitFor();
    [scroll, client] = await fits();
    assert.ok(scroll <= client, `with a correction open the games are ${scroll} px wide in ${client} px`);
    const boxes = await edit.locator("input, button").evaluateAll((els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return [e.getAttribute("aria-label") || e.textContent, r.left, r.right];
    }));
    assert.equal(boxes.length, 4 * 2 + 1 + 2, "four players and places, the date, save and cancel");
    for (const [what, left, right] of boxes) assert.ok(left >= 0 && right <= 390, `${what}: ${left}–${right} px`);

    // The correction's date is the day the list shows; another day keeps the local time of day.
    await p.locator("#games tr.editing button.secondary").click();
    await p.locator('#games tr[data-match="night"] button.correct').click();
    assert.equal(await p.inputValue("#games tr.editing .edit-date"), "2025-01-13");
    await p.fill("#games tr.editing .edit-date", "2025-01-15");
    await p.fill("#token", l.admin_token);
    await p.locator("#games tr.editing button.save-correction").click();
    await p.locator("#games-result .message.ok").getByText("Game night corrected").waitFor();
    const night = (await (await fetch(`${base}/api/leagues/${l.id}/matches/night`)).json()).result;
    assert.equal(night.time, "2025-01-16T02:30:00Z");
    await p.waitForFunction(() => document.querySelector('#games tr[data-match="night"] td.when')?.textContent === "2025-01-15 21:30");

    // On a desktop screen the list is as it was: the game's id shown, each time on one line.
    await p.setViewportSize({ width: 1280, height: 800 });
    [scroll, client] = await fits();
    assert.ok(scroll <= client, `at 1280 px the games are ${scroll} px wide in ${client} px`);
    assert.ok(await p.locator('#games tr[data-match="afternoon"] td').first().isVisible(), "the game's id");
    const lines = await p.$eval('#games tr[data-match="afternoon"] td.when', (td) => new Set([...td.querySelectorAll("span")].map((s) => s.getBoundingClientRect().top)).size);
    assert.equal(lines, 1, "day and time of day on one line");

    // A player's games show their times the same way.
    await p.goto(`${base}/leagues/${l.id}/players/bo`);
    await p.locator("#history tbody tr").nth(2).waitFor();
    const times = await p.$$eval("#history tbody td.when", (tds) => tds.map((td) => [td.textContent, td.title]));
    assert.deepEqual(times, [["2026-11-29 08:14", "2026-11-29T13:14:29Z"], ["2026-11-20", "2026-11-20"],
      ["2025-01-15 21:30", "2025-01-16T02:30:00Z"]]);
    assert.deepEqual(ny.violations, []);
  } finally {
    await ny.close();
  }
});

test("the pages break none of their own content security policy", async () => {
  const res = await fetch(`${base}/`);
  assert.match(res.headers.get("content-security-policy") || "", /frame-ancestors 'none'/);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  // Every page was drawn above with the policy in force: nothing was refused.
  assert.deepEqual(violations, []);
});

test("the league form sends the server's admin token when one is given", async () => {
  await page.goto(`${base}/`);
  await page.fill("#league-name", "With a token");
  await page.fill("#server-token", "not-this-servers-token");
  let sent = null;
  page.on("request", (req) => { if (req.url().endsWith("/api/leagues") && req.method() === "POST") sent = req.headers().authorization; });
  await page.click("#create-league button[type=submit]");
  await page.locator("#new-token").waitFor();
  assert.equal(sent, "Bearer not-this-servers-token");
});
