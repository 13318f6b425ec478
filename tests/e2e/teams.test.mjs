// A game of teams corrected on the league page, in a real headless Chromium: the editor
// shows each player's team, a place changed for one player alone is refused naming that
// player, and a player moved to the other team with its place is rated so. Run by
// scripts/e2e.sh.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { base, createLeague, launch, ledger, post } from "./helpers.mjs";

let page, violations, close;

before(async () => {
  ({ page, violations, close } = await launch("teams"));
});

after(async () => {
  assert.deepEqual(violations, []);
  await close?.();
});

test("a team game's correction shows and edits each player's team", async () => {
  const l = await createLeague("Teams E2E", "sme");
  const team = (name, rank, players) => players.map((player) => ({ player, team: name, rank }));
  await post(l, { id: "t1", results: [...team("Team 1", 1, ["Tom", "Ann", "Bo", "Cy"]), ...team("Team 2", 2, ["Dee", "Eve", "Fay", "Gus"])] });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator('#games tr[data-match="t1"] button.correct').click();
  const edit = page.locator("#games tr.editing");
  await edit.waitFor();
  const lines = edit.locator(".game-row");
  const shown = async () => lines.evaluateAll((rows) => rows.map((r) => [r.querySelector(".player-input").value,
    r.querySelector(".team-input").value, r.querySelector(".place-input").value]));
  assert.deepEqual(await shown(), [["Tom", "Team 1", "1"], ["Ann", "Team 1", "1"], ["Bo", "Team 1", "1"], ["Cy", "Team 1", "1"],
    ["Dee", "Team 2", "2"], ["Eve", "Team 2", "2"], ["Fay", "Team 2", "2"], ["Gus", "Team 2", "2"]]);
  // On a phone, player, team and place stay on the screen.
  const boxes = await edit.locator(".game-row input").evaluateAll((els) => els.map((e) => [e.getAttribute("aria-label"), e.getBoundingClientRect().right]));
  assert.equal(boxes.length, 24);
  for (const [what, right] of boxes) assert.ok(right <= 390, `${what} ends at ${right} px`);

  // Ann's place alone changed: refused before it is sent, naming Ann, not Tom, in the
  // correction.
  await lines.nth(1).locator(".place-input").fill("2");
  await page.fill("#token", l.admin_token);
  await edit.locator("button.save-correction").click();
  await edit.locator(".correct-said .message.err").waitFor();
  assert.equal(await edit.locator(".correct-said").textContent(),
    "The players of a team share one place: in Team 1, Ann has place 2, but the team's 3 other players have place 1. Give them one place, or move a player to another team.");
  assert.equal((await ledger(l))[0].results.filter((r) => r.team === "Team 1").length, 4, "nothing was changed");
  // Everyone put in one team: a game needs two sides.
  const teams = await lines.locator(".team-input").evaluateAll((xs) => xs.map((x) => x.value));
  for (let i = 4; i < 8; i++) await lines.nth(i).locator(".team-input").fill("Team 1");
  await lines.nth(1).locator(".place-input").fill("1");
  await edit.locator("button.save-correction").click();
  assert.equal(await edit.locator(".correct-said").textContent(), "Put the players in at least two teams.");
  // A player given twice, on two teams.
  for (let i = 4; i < 8; i++) await lines.nth(i).locator(".team-input").fill(teams[i]);
  await lines.nth(4).locator(".player-input").fill("Tom");
  await edit.locator("button.save-correction").click();
  assert.equal(await edit.locator(".correct-said").textContent(), "Tom is entered twice.");
  await lines.nth(4).locator(".player-input").fill("Dee");
  await lines.nth(1).locator(".place-input").fill("2");

  // Ann moved to Team 2 with its place: rated so.
  await lines.nth(1).locator(".team-input").fill("Team 2");
  await edit.locator("button.save-correction").click();
  await page.locator("#games-result .message.ok").getByText("Game t1 corrected").waitFor();
  const [t1] = await ledger(l);
  assert.deepEqual(t1.results.filter((r) => r.team === "Team 2").map((r) => r.player).sort(), ["Ann", "Dee", "Eve", "Fay", "Gus"]);
  assert.deepEqual(t1.results.filter((r) => r.team === "Team 1").map((r) => [r.player, r.rank]).sort(), [["Bo", 1], ["Cy", 1], ["Tom", 1]]);
  await page.waitForFunction(() => /2\. .*Ann \(Team 2\)/.test(document.querySelector('#games tr[data-match="t1"] td.result')?.textContent || ""));
});
