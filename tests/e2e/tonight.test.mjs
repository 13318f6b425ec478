// "Tonight" on the league page and the head-to-head on the player's page, in a real
// headless Chromium: tick who is here, get fair teams, record the game played from the
// proposal and see the board change; refusals said in plain words; a player's rivals
// and a pair's meetings. Run by scripts/e2e.sh.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { base, createLeague, post, ledger, launch } from "./helpers.mjs";

// `violations`: what the browser reports as blocked by the pages' content security policy.
let page, violations, close;


// Six game nights of six players; ann and bo finish first and second every time.
async function sixNights(l) {
  const six = ["ann", "bo", "cy", "dee", "eve", "fay"];
  for (let night = 0; night < 6; night++) {
    const rest = six.slice(2);
    const order = ["ann", "bo", ...rest.map((_, k) => rest[(night + k) % 4])];
    await post(l, { id: `night ${night + 1}`, time: `2024-09-0${night + 1}`, results: order.map((player, i) => ({ player, rank: i + 1 })) });
  }
}

async function tick(names) {
  for (const n of names) await page.check(`#tonight-players label[data-player="${n}"] input`);
}

async function noStrayText() {
  assert.doesNotMatch(await page.textContent("main"), /\bnull\b|undefined|NaN/);
}

async function fitsTheScreen() {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client, `the page is ${scroll} px wide on a ${client} px screen`);
}

before(async () => {
  ({ page, violations, close } = await launch("tonight"));
});

after(async () => {
  // Every page above was drawn with the policy in force: nothing was refused.
  assert.deepEqual(violations, []);
  await close?.();
});

test("the two strongest players present are put on different teams, and the game recorded from there moves the board", async () => {
  const l = await createLeague("Tonight E2E", "sme");
  await sixNights(l);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#tonight-players label").first().waitFor();
  const listed = await page.$$eval("#tonight-players label", (ls) => ls.map((x) => x.dataset.player));
  assert.deepEqual(listed, ["ann", "bo", "cy", "dee", "eve", "fay"]);
  await tick(["ann", "bo", "cy", "dee"]);
  assert.equal(await page.textContent("#tonight-count"), "4 players ticked");
  await page.selectOption("#tonight-format", "teams:2");
  await page.click("#make-teams");
  await page.locator('#tonight-result .split[data-rank="1"]').waitFor();
  // The fairest split and the next-best ones; the API's answer, drawn as it is.
  const api = await (await fetch(`${base}/api/leagues/${l.id}/balance`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ players: ["ann", "bo", "cy", "dee"], teams: 2, top: 3 }),
  })).json();
  const splits = await page.$$eval("#tonight-result .split", (ss) => ss.map((s) => [...s.querySelectorAll(".group-card")]
    .map((g) => [[...g.querySelectorAll("li")].map((li) => li.textContent), g.querySelector(".chance").textContent])));
  assert.equal(splits.length, 3);
  assert.deepEqual(splits, api.splits.map((s) => s.groups.map((g) => [g.players, `${(100 * g.win).toFixed(1)}% to win`])));
  const best = splits[0].map(([players]) => players);
  assert.ok(best.every((team) => team.includes("ann") !== team.includes("bo")), `ann and bo apart: ${JSON.stringify(best)}`);
  assert.match(await page.textContent('#tonight-result .split[data-rank="1"] .unevenness'), /^Unevenness \d+\.\d points: the furthest any team's chance is from an even 50\.0%/);
  assert.match(await page.textContent("#tonight-how"), /The fairest of all 3 splits, by the league's ratings; the 2 next-best below/);
  await noStrayText();
  await fitsTheScreen();

  // Record it: team 2 won.
  const before = await (await fetch(`${base}/api/leagues/${l.id}/leaderboard`)).json();
  await page.fill("#token", l.admin_token);
  const first = page.locator('#tonight-result .split[data-rank="1"]');
  await first.locator("button.record-split").click();
  await first.locator(".team-place").nth(0).fill("2");
  await first.locator(".team-place").nth(1).fill("1");
  const date = await first.locator(".tonight-date").inputValue();
  assert.match(date, /^\d{4}-\d{2}-\d{2}$/, "the date defaults to today");
  await first.locator("button.save-split").click();
  await page.locator("#tonight-recorded #changes").waitFor();
  const game = (await ledger(l)).at(-1);
  assert.equal(game.time, date);
  assert.deepEqual(game.results.map((r) => [r.player, r.team, r.rank]).sort(),
    [...best[0].map((p) => [p, "Team 1", 2]), ...best[1].map((p) => [p, "Team 2", 1])].sort());
  // The board shows the new ratings.
  const after = await (await fetch(`${base}/api/leagues/${l.id}/leaderboard`)).json();
  const winner = best[1][0];
  const rating = (rows, p) => rows.find((r) => r.player === winner).rating;
  assert.ok(rating(after) > rating(before), `${winner} won and rose`);
  await page.waitForFunction(([p, r]) => document.querySelector(`#leaderboard tr[data-player="${p}"] td:nth-child(3)`)?.title === String(r),
    [winner, rating(after)]);
  assert.match(await page.textContent("main section p.muted"), /7 games/);
  await noStrayText();
});

test("tables: each player's chance at their table, and a table's result entered on the game form", async () => {
  const l = await createLeague("Tables E2E", "sme");
  await sixNights(l);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#tonight-players label").first().waitFor();
  await page.click("#tonight-all");
  assert.equal(await page.textContent("#tonight-count"), "6 players ticked");
  await page.selectOption("#tonight-format", "tables:3");
  await page.click("#make-teams");
  await page.locator('#tonight-result .split[data-rank="1"]').waitFor();
  const tables = await page.$$eval('#tonight-result .split[data-rank="1"] .group-card', (gs) => gs.map((g) => g.querySelectorAll("li").length));
  assert.deepEqual(tables, [3, 3]);
  await page.locator('#tonight-result .split[data-rank="1"] button.record-table').nth(1).click();
  const names = await page.$$eval("#game-rows .player-input", (is) => is.map((i) => i.value));
  const shown = await page.$$eval('#tonight-result .split[data-rank="1"] .group-card[data-group="2"] li', (lis) => lis.map((li) => li.firstChild.textContent));
  assert.deepEqual(names, shown);
  assert.deepEqual(await page.$$eval("#game-rows .place-input", (is) => is.map((i) => i.value)), ["1", "2", "3"]);
  // A game with a new player, entered on the form: the player is offered to tick.
  await page.locator("#game-rows .player-input").nth(2).fill("gus");
  await page.fill("#token", l.admin_token);
  await page.click("#submit-game");
  await page.locator('#tonight-players label[data-player="gus"]').waitFor();
  assert.ok(await page.isChecked('#tonight-players label[data-player="ann"] input'), "the players ticked stay ticked");
  await noStrayText();
});

test("a new name plays at a new player's rating; too few players and impossible options are refused in plain words", async () => {
  const l = await createLeague("Refusals E2E", "sme");
  await sixNights(l);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#tonight-players label").first().waitFor();
  // A name like a player's is flagged, in this form's words; changed, the warning goes.
  await page.fill("#tonight-add", "Ann");
  await page.click("#tonight-add-button");
  await page.locator('#tonight-name-check li[data-name="Ann"]').waitFor();
  assert.equal(await page.textContent("#tonight-name-check button.confirm-new"), "It is a new player: add them");
  await page.fill("#tonight-add", "An");
  assert.equal(await page.locator("#tonight-name-check .message").count(), 0);
  // Flagged again; the known one is taken at once, and the warning goes.
  await page.fill("#tonight-add", "Ann");
  await page.click("#tonight-add-button");
  await page.click('#tonight-name-check button.use-known');
  assert.equal(await page.locator("#tonight-name-check .message").count(), 0);
  assert.ok(await page.isChecked('#tonight-players label[data-player="ann"] input'));
  assert.equal(await page.locator('#tonight-players label[data-player="Ann"]').count(), 0);
  // A new player plays a first game: balanced at a new player's rating, and said so.
  await page.fill("#tonight-add", "zed");
  await page.click("#tonight-add-button");
  assert.ok(await page.isChecked('#tonight-players label[data-player="zed"] input'));
  await tick(["bo", "cy"]);
  // A name like a player's still typed when Make teams is pressed: asked about first, no
  // split made; once it is settled (a new player), the teams are made and the warning goes.
  await page.fill("#tonight-add", "Fay");
  await page.click("#make-teams");
  await page.locator('#tonight-name-check li[data-name="Fay"]').waitFor();
  assert.equal(await page.locator("#tonight-result .split").count(), 0);
  await page.click("#tonight-name-check button.confirm-new");
  await page.locator('#tonight-result .split[data-rank="1"]').waitFor();
  assert.equal(await page.locator("#tonight-name-check .message").count(), 0);
  assert.ok(await page.isChecked('#tonight-players label[data-player="Fay"] input'));
  assert.equal(await page.textContent("#tonight-newcomers"), "zed, Fay play a first game and are counted at a new player's rating.");
  await page.uncheck('#tonight-players label[data-player="Fay"] input');
  await page.click("#make-teams");
  const note = page.locator("#tonight-newcomers");
  await note.waitFor();
  assert.equal(await note.textContent(), "zed plays a first game and is counted at a new player's rating.");
  assert.match(await page.locator("#tonight-result .split").first().textContent(), /zed/);
  await page.uncheck('#tonight-players label[data-player="zed"] input');
  // Three players, four teams.
  await page.selectOption("#tonight-format", "teams:4");
  await page.click("#make-teams");
  await page.locator("#tonight-result .message.err").getByText("3 players ticked, but this format needs at least 4").waitFor();
  // Three kept apart on two teams.
  await tick(["dee"]);
  await page.selectOption("#tonight-format", "teams:2");
  await page.click("#tonight-options summary");
  await page.fill("#tonight-apart", "ann, bo, cy");
  await page.click("#make-teams");
  await page.locator("#tonight-result .message.err").getByText(/^No split can keep to these options \(.*\): loosen one of them\.$/).waitFor();
  // A name in an option who is not here.
  await page.fill("#tonight-apart", "ann, fay");
  await page.click("#make-teams");
  await page.locator("#tonight-result .message.err").getByText("“fay” is named in “Keep apart” but is not ticked as here").waitFor();
  await page.fill("#tonight-apart", "");
  await page.fill("#tonight-fixed", "ann=3");
  await page.click("#make-teams");
  await page.locator("#tonight-result .message.err").getByText("“ann” is fixed to team 3, but there are only 2.").waitFor();
  // More players fixed to a team than it has seats.
  await page.fill("#tonight-fixed", "ann=1, bo=1, cy=1");
  await page.click("#make-teams");
  await page.locator("#tonight-result .message.err").getByText(/^No split can keep to these options \(3 players are fixed to team 1, which has 2 seats\)/).waitFor();
  await page.fill("#tonight-fixed", "ann");
  await page.click("#make-teams");
  await page.locator("#tonight-result .message.err").getByText("write a name, “=” and a team or table from 1").waitFor();
  // Honoured when it can be: ann on team 2.
  await page.fill("#tonight-fixed", "ann=2");
  await page.click("#make-teams");
  await page.locator('#tonight-result .split[data-rank="1"]').waitFor();
  const team2 = await page.$$eval('#tonight-result .split[data-rank="1"] .group-card[data-group="2"] li', (lis) => lis.map((li) => li.textContent));
  assert.ok(team2.includes("ann"));
  await noStrayText();
  await fitsTheScreen();
});

test("a league of fifty players lists only the players added by name", async () => {
  const l = await createLeague("Fifty E2E", "sme");
  const fifty = Array.from({ length: 50 }, (_, i) => `p${i}`);
  await post(l, { results: fifty.map((player, i) => ({ player, rank: i + 1 })) });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#tonight-many").waitFor();
  assert.equal(await page.textContent("#tonight-many"), "50 players in the league: add those here by name below.");
  assert.equal(await page.locator("#tonight-players label").count(), 0);
  assert.ok(await page.locator("#tonight-all").isHidden());
  for (const p of ["p3", "p10", "p20", "p41"]) {
    await page.fill("#tonight-add", p);
    await page.press("#tonight-add", "Enter");
  }
  assert.deepEqual(await page.$$eval("#tonight-players label", (ls) => ls.map((x) => x.dataset.player)), ["p10", "p20", "p3", "p41"]);
  await page.click("#make-teams");
  await page.locator('#tonight-result .split[data-rank="1"]').waitFor();
  const best = await page.$$eval('#tonight-result .split[data-rank="1"] .group-card', (gs) => gs.map((g) => [...g.querySelectorAll("li")].map((li) => li.textContent)));
  const api = await (await fetch(`${base}/api/leagues/${l.id}/balance`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ players: ["p3", "p10", "p20", "p41"], teams: 2 }),
  })).json();
  assert.deepEqual(best, api.splits[0].groups.map((g) => g.players));
  await noStrayText();
});

test("a player's rivals and a head-to-head with another player", async () => {
  const l = await createLeague("Rivals E2E", "sme");
  await sixNights(l);
  // cy and dee once on one team.
  await post(l, { id: "teams", time: "2024-09-07", results: [{ player: "cy", team: "x", rank: 1 }, { player: "dee", team: "x", rank: 1 }, { player: "ann", team: "y", rank: 2 }, { player: "bo", team: "y", rank: 2 }] });
  await page.goto(`${base}/leagues/${l.id}/players/cy`);
  await page.locator("#rivals-table").waitFor();
  const rivals = await (await fetch(`${base}/api/leagues/${l.id}/players/cy/rivals?min_meetings=3&frequent=5`)).json();
  const rows = await page.$$eval("#rivals-table tbody tr", (trs) => trs.map((tr) => [...tr.children].slice(0, 7).map((td) => td.textContent)));
  assert.deepEqual(rows, rivals.frequent.map((v) => [v.opponent, String(v.meetings), String(v.ahead), String(v.behind), String(v.ties),
    `${(100 * v.actual_share).toFixed(1)}%`, `${(100 * v.expected_share).toFixed(1)}%`]));
  // ann and bo finished ahead of cy in every meeting but the team game.
  const ann = rows.find((r) => r[0] === "ann");
  assert.deepEqual(ann.slice(1, 5), ["7", "1", "6", "0"]);
  const nemesis = await page.textContent('#rivals li[data-rival="nemesis"]');
  assert.equal(nemesis.startsWith("Nemesis: "), true);
  assert.equal(/none yet/.test(nemesis), rivals.nemesis === null);
  // The table reads on a phone without scrolling sideways.
  const [wide, box] = await page.$eval("#rivals-table", (t) => [t.scrollWidth, t.parentElement.clientWidth]);
  assert.ok(wide <= box, `the rivals table is ${wide} px wide in a ${box} px box`);
  // ann's head-to-head from the table's button.
  await page.click('#rivals-table tr[data-opponent="ann"] button.vs');
  await page.locator("#versus-table").waitFor();
  const versus = await (await fetch(`${base}/api/leagues/${l.id}/versus?a=cy&b=ann`)).json();
  const table = await page.$$eval("#versus-table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(table, [
    ["Finished ahead", "1", "6"],
    ["Share of the meetings (ties count half)", `${(100 * versus.versus.actual_share).toFixed(1)}%`, `${(100 - 100 * versus.versus.actual_share).toFixed(1)}%`],
    ["Share the ratings expected at the time", `${(100 * versus.versus.expected_share).toFixed(1)}%`, `${(100 - 100 * versus.versus.expected_share).toFixed(1)}%`],
    ["Chance to finish ahead today", `${(100 * versus.today).toFixed(1)}%`, `${(100 - 100 * versus.today).toFixed(1)}%`],
  ]);
  assert.match(await page.textContent("#versus-said"), /^7 meetings \(games with both, on different sides\)\. cy finished ahead/);
  // dee from the list: one game on one team besides the meetings.
  await page.selectOption("#versus-opponent", "dee");
  await page.click("#versus-go");
  await page.locator("#versus-result h3").getByText("cy vs dee").waitFor();
  assert.match(await page.textContent("#versus-said"), /^6 meetings .*; 1 more game on one team\./);
  await noStrayText();
  await fitsTheScreen();
});

test("two players who never met: today's chance only", async () => {
  const l = await createLeague("Never met E2E", "sme");
  await post(l, { results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }] });
  await post(l, { results: [{ player: "cy", rank: 1 }, { player: "dee", rank: 2 }] });
  await page.goto(`${base}/leagues/${l.id}/players/ann`);
  await page.locator("#rivals ul.rivals").waitFor();
  assert.match(await page.textContent("#rivals"), /No opponent met 3 times or more yet/);
  await page.selectOption("#versus-opponent", "cy");
  await page.click("#versus-go");
  await page.locator("#versus-table").waitFor();
  assert.match(await page.textContent("#versus-said"), /ann and cy have not yet played on different sides\./);
  const table = await page.$$eval("#versus-table tbody tr", (trs) => trs.map((tr) => tr.children[0].textContent));
  assert.deepEqual(table, ["Chance to finish ahead today"]);
  await noStrayText();
});
