// Seasons on the league page, in a real headless Chromium: a new season started from
// the page, a game entered in it, the new season's board, and the previous season's
// board kept as it stood, and the page of a player who has not played in the new
// season, its chart marking the reset. Run by scripts/e2e.sh.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { base, launch, ledger } from "./helpers.mjs";

let page, violations, close;

async function call(path, body, token) {
  const res = await fetch(`${base}${path}`, {
    method: body ? "POST" : "GET", body: body ? JSON.stringify(body) : undefined,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const text = await res.text();
  assert.ok(res.ok, `${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const names = (selector) => page.$$eval(`${selector} tbody tr[data-player]`, (trs) => trs.map((tr) => tr.dataset.player));

before(async () => {
  ({ page, violations, close } = await launch("seasons", { width: 1280, height: 900 }));
});

after(async () => {
  // Every page above was drawn with the policy in force: nothing was refused.
  assert.deepEqual(violations, []);
  await close?.();
});

test("a season started from the page keeps the last board and rates the next games anew", async () => {
  const l = await call("/api/leagues", { name: "Seasons E2E", system: "sme" });
  await call(`/api/leagues/${l.id}/matches`, { id: "g1", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }, { player: "cy", rank: 3 }] }, l.admin_token);
  await call(`/api/leagues/${l.id}/matches`, { id: "g2", results: [{ player: "bo", rank: 1 }, { player: "ann", rank: 2 }] }, l.admin_token);
  const before = await call(`/api/leagues/${l.id}/leaderboard`);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#current-season strong").waitFor();
  assert.equal(await page.textContent("#current-season strong"), "Season 1");
  assert.match(await page.textContent("#past-seasons"), /No past season yet/);

  // Start it: a soft reset shows its pull and widen; a hard one does not.
  await page.click("#season-new summary");
  assert.ok(await page.locator("#season-pull").isVisible());
  await page.selectOption("#season-reset", "hard");
  assert.ok(await page.locator("#season-pull").isHidden());
  await page.fill("#season-name", "Spring");
  // Without the token: refused in plain words, nothing started.
  await page.fill("#season-token", "");
  await page.click("#start-season");
  await page.locator("#season-result .message.err").waitFor();
  assert.match(await page.textContent("#season-result"), /admin token is missing or wrong/);
  assert.equal((await call(`/api/leagues/${l.id}/seasons`)).length, 1);
  await page.fill("#season-token", l.admin_token);
  // A name the league has (in other letters' case) is refused in plain words.
  await page.fill("#season-name", "season 1");
  await page.click("#start-season");
  await page.locator("#season-result .message.err").getByText("This league has a season named").waitFor();
  assert.equal(await page.textContent("#season-result"), "This league has a season named “Season 1” already: give the new season another name.");
  await page.fill("#season-name", "Spring");
  await page.click("#start-season");
  await page.locator("#season-result .message.ok").waitFor();
  await page.locator("#empty-board").waitFor();
  // The board is the new season's, empty while the league counts its 2 games.
  assert.equal(await page.textContent("#empty-board"), "No game yet this season.");
  assert.match(await page.textContent("main section p.muted"), / · 2 games · /);
  await page.waitForFunction(() => document.querySelector("#current-season strong")?.textContent === "Spring");
  await page.locator('details.season[data-season="1"]').waitFor();

  // A game of the new season, entered with the page's form (dated today).
  const rows = page.locator("#game-rows .game-row");
  await rows.first().waitFor();
  while ((await rows.count()) > 2) await rows.last().locator("button.remove").click();
  await rows.nth(0).locator(".player-input").fill("cy");
  await rows.nth(0).locator(".place-input").fill("1");
  await rows.nth(1).locator(".player-input").fill("dee");
  await rows.nth(1).locator(".place-input").fill("2");
  await page.fill("#token", l.admin_token);
  await page.click("#submit-game");
  await page.locator("#changes").waitFor();
  await page.locator("#leaderboard").waitFor();
  // The board is the new season's: its players only, from the starting rating.
  assert.deepEqual(await names("#leaderboard"), ["cy", "dee"]);
  const spring = await call(`/api/leagues/${l.id}/seasons/2/board`);
  assert.equal(spring[0].rating, 1516);
  await page.waitForFunction(() => /1 game/.test(document.getElementById("current-season").textContent));

  // The previous season's board, opened from the list, is the board as it stood.
  await page.click('details.season[data-season="1"] summary');
  await page.locator("#season-1-board").waitFor();
  assert.deepEqual(await names("#season-1-board"), before.map((r) => r.player));
  const shown = await page.$$eval("#season-1-board tbody tr[data-player] td:nth-child(3)", (tds) => tds.map((td) => Number(td.title)));
  assert.deepEqual(shown, before.map((r) => r.rating));
  assert.match(await page.textContent('details.season[data-season="1"] summary'), /Season 1 · 2 games/);

  // ann played in Season 1 only: not on Spring's board, and her page says so rather
  // than giving her a place; cy, who played in Spring, reads as on its board (a new
  // player there: the hard reset started everyone's games again).
  await page.goto(`${base}/leagues/${l.id}/players/ann`);
  await page.locator("#player-summary").waitFor();
  assert.match(await page.textContent("#player-summary"), /^not played this season · rating \d/);
  assert.doesNotMatch(await page.textContent("#player-summary"), /#\d/);
  assert.equal(await page.locator("#history tbody tr:not(.reset)").count(), 2, "her games of Season 1 stay listed");
  assert.match(await page.textContent('#history tr.reset[data-season="2"]'), /Season 2: Spring.*hard reset/);
  const ann = await call(`/api/leagues/${l.id}/players/ann`);
  assert.deepEqual([ann.in_season, ann.position], [false, null]);
  await page.goto(`${base}/leagues/${l.id}/players/cy`);
  await page.locator("#player-summary").waitFor();
  assert.match(await page.textContent("#player-summary"), /^new player · rating so far ≈1516\.00 · 1 game/);
});

// The rating chart of a player across a soft reset: the season's start is a dashed
// marker labelled "season 2" with the reset as a point of the line, so the line ends at
// the headline rating; the games table and the text under the chart list the reset too.
// At desktop and phone width.
test("a player's chart marks the season's reset and ends at the headline rating", async () => {
  const l = await call("/api/leagues", { name: "Reset chart E2E", system: "sme" });
  const game = (id, order) => call(`/api/leagues/${l.id}/matches`, { id, results: order.map((player, i) => ({ player, rank: i + 1 })) }, l.admin_token);
  await game("g1", ["ann", "bo", "cy"]);
  await game("g2", ["ann", "cy", "bo"]);
  await game("g3", ["ann", "bo"]);
  await call(`/api/leagues/${l.id}/seasons`, { name: "Spring", reset: { kind: "soft", pull: 0.5, widen: 0.25 } }, l.admin_token);
  await game("g4", ["bo", "cy"]);
  const ann = await call(`/api/leagues/${l.id}/players/ann`);
  const bo = await call(`/api/leagues/${l.id}/players/bo`);
  assert.equal(ann.position, null, "ann has not played in Spring: no place on its board");
  assert.equal(bo.position, 1);
  assert.equal(ann.seasons.length, 1);
  assert.equal(ann.rating, ann.seasons[0].rating, "ann's rating now is the reset's");
  assert.notEqual(ann.seasons[0].rating, ann.history[2].after, "the reset moved her rating");

  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(viewport);
    // ann: the reset after her last game, the line ends at it.
    await page.goto(`${base}/leagues/${l.id}/players/ann`);
    await page.locator("svg.chart .season-mark").waitFor();
    const mark = page.locator('svg.chart .season-mark[data-season="2"]');
    assert.equal(await mark.locator("text").textContent(), "season 2");
    assert.match(await mark.locator("title").textContent(), /^season 2 \(Spring\) began after game 3: soft reset, \d+\.\d\d → \d+\.\d\d$/);
    const dots = await page.$$eval("svg.chart circle.dot", (cs) => cs.map((c) => ({ rating: Number(c.dataset.rating), season: c.dataset.season ?? null })));
    assert.equal(dots.length, 4, "three games and the reset");
    assert.deepEqual(dots.at(-1), { rating: ann.rating, season: "2" });
    const headline = Number((await page.textContent("#player-summary")).match(/rating (\d+\.\d\d)/)[1]);
    assert.equal(dots.at(-1).rating.toFixed(2), headline.toFixed(2), "the line ends at the headline rating");
    assert.match(await page.getAttribute("svg.chart", "aria-label"), /season 2 \(Spring\) began after game 3: soft reset/);
    assert.match(await page.textContent("#chart-resets"), /season 2 \(Spring\) began after game 3/);
    // The games table lists the reset above her games, newest first.
    const first = page.locator("#history tbody tr").first();
    assert.equal(await first.getAttribute("data-season"), "2");
    assert.match(await first.textContent(), /Season 2: Spring.*soft reset/);
    assert.ok(await page.locator("svg.chart .season-label").isVisible());
    // Nothing is wider than the screen.
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));

    // bo played after the reset: the marker sits between his games and the line goes on
    // from the reset to his game of Spring, ending at his rating now.
    await page.goto(`${base}/leagues/${l.id}/players/bo`);
    await page.locator("svg.chart .season-mark").waitFor();
    const his = await page.$$eval("svg.chart circle.dot", (cs) => cs.map((c) => ({ rating: Number(c.dataset.rating), season: c.dataset.season ?? null })));
    assert.deepEqual(his.map((d) => d.season), [null, null, null, "2", null]);
    assert.equal(his[3].rating, bo.seasons[0].rating);
    assert.equal(his.at(-1).rating, bo.rating);
    assert.equal(bo.history[3].before, bo.seasons[0].rating, "his game of Spring starts from the reset");
    assert.equal(await page.getAttribute("#history tbody tr:nth-child(2)", "data-season"), "2");
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

// After a new season, the page still knows the players of the seasons before: a name in
// another letter case is flagged in the game form, Tonight lists them and balances them
// at their ratings (not as newcomers), and a player's head-to-head offers them.
test("a new season's page knows every player of the league", async () => {
  const l = await call("/api/leagues", { name: "Known E2E", system: "sme" });
  await call(`/api/leagues/${l.id}/matches`, { id: "g1", results: [{ player: "Alice", rank: 1 }, { player: "Bob", rank: 2 }, { player: "Carol", rank: 3 }] }, l.admin_token);
  await call(`/api/leagues/${l.id}/seasons`, { name: "Spring", reset: { kind: "soft", pull: 0.5, widen: 0.25 } }, l.admin_token);
  assert.deepEqual((await call(`/api/leagues/${l.id}/leaderboard`)), []);
  assert.deepEqual((await call(`/api/leagues/${l.id}/players`)).map((r) => r.player), ["Alice", "Bob", "Carol"]);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#empty-board").waitFor();

  // The game form: "alice" looks like Alice, and the form stops before making her anew.
  const rows = page.locator("#game-rows .game-row");
  await rows.first().waitFor();
  while ((await rows.count()) > 2) await rows.last().locator("button.remove").click();
  await rows.nth(0).locator(".player-input").fill("alice");
  await rows.nth(0).locator(".place-input").fill("1");
  await rows.nth(1).locator(".player-input").fill("Bob");
  await rows.nth(1).locator(".place-input").fill("2");
  await page.fill("#token", l.admin_token);
  await page.click("#submit-game");
  await page.locator("#name-check .use-known").waitFor();
  assert.equal(await page.textContent("#name-check .use-known"), "Use “Alice”");
  assert.equal((await ledger(l)).length, 1, "nothing was sent");
  assert.deepEqual(await page.$$eval("#known-players option", (os) => os.map((o) => o.value)), ["Alice", "Bob", "Carol"]);
  // Taking the known name settles the last flagged one: the game goes on and is entered.
  await page.click("#name-check .use-known");
  await page.locator("#changes").waitFor();
  assert.deepEqual((await ledger(l)).at(-1).results.map((r) => r.player), ["Alice", "Bob"]);
  assert.deepEqual((await call(`/api/leagues/${l.id}/players`)).map((r) => r.player), ["Alice", "Bob", "Carol"]);

  // Tonight: the three are listed, and balanced at their ratings.
  assert.deepEqual(await page.$$eval("#tonight-players label[data-player]", (ls) => ls.map((x) => x.dataset.player)), ["Alice", "Bob", "Carol"]);
  await page.click("#tonight-all");
  await page.selectOption("#tonight-format", "teams:2");
  await page.click("#make-teams");
  await page.locator("#tonight-how").waitFor();
  assert.equal(await page.locator("#tonight-newcomers").count(), 0, "no one is a newcomer");

  // Bob's page offers Alice and Carol to compare with, though neither played in Spring.
  await page.goto(`${base}/leagues/${l.id}/players/Bob`);
  await page.locator("#versus-opponent").waitFor();
  assert.deepEqual(await page.$$eval("#versus-opponent option", (os) => os.map((o) => o.value)), ["", "Alice", "Carol"]);
});

// After a new season, the factors' table keeps each factor's rating but has no matches of
// the season to count for a factor not yet played in it: a dash, not 0 and 0.0.
test("a new season's factors' table gives no figures for a factor not yet played in it", async () => {
  const l = await call("/api/leagues", { name: "Season seats E2E", system: "sme" });
  const game = (id, order) => call(`/api/leagues/${l.id}/matches`, { id,
    results: order.map((player, i) => ({ player, rank: i + 1, factors: { seat: String(i + 1) } })) }, l.admin_token);
  await game("g1", ["ann", "bo", "cy"]);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#factors tbody tr").nth(2).waitFor();
  assert.equal(await page.locator("#empty-board").count(), 0);
  const cells = () => page.$$eval("#factors tbody tr", (trs) => trs.map((tr) => [tr.dataset.factor, ...[...tr.children].slice(3).map((td) => td.textContent)]));
  assert.deepEqual((await cells()).map((r) => r[1]), ["1", "1", "1"]);
  await call(`/api/leagues/${l.id}/seasons`, { name: "Spring", reset: { kind: "none" } }, l.admin_token);
  await game("g2", ["bo", "ann"]);
  await page.reload();
  await page.locator("#factors tbody tr").nth(2).waitFor();
  const api = await call(`/api/leagues/${l.id}/factors`);
  const shown = await cells();
  for (const f of api) {
    const row = shown.find((r) => r[0] === `${f.kind}=${f.value}`);
    assert.deepEqual(row.slice(1), f.matches ? [String(f.matches), f.win_pct.toFixed(1), f.expected_win_pct.toFixed(1)] : ["—", "—", "—"], row[0]);
  }
  assert.deepEqual(shown.find((r) => r[0] === "seat=3").slice(1), ["—", "—", "—"], "seat 3 not played in Spring");
  assert.match(await page.textContent("#factors-section"), /Matches and win percentages count this season's games \(— for a factor not yet played in it\)\./);
});
