// The league pages a group sees first, in a real headless Chromium: the board with new
// players apart, dates on the form, the list of games with void and correct, names
// checked before a new player is made, and the league form. Run by scripts/e2e.sh.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { base, createLeague, post, ledger, launch } from "./helpers.mjs";

let page, violations, close;


// Eight game nights of ann, bo, cy and dee (a place each, turning round); frank joins
// the last two and wins both (the same nights as the library's and the CLI's tests).
function frankJoinsLate() {
  const four = ["ann", "bo", "cy", "dee"];
  return Array.from({ length: 8 }, (_, night) => {
    const order = [0, 1, 2, 3].map((k) => four[(night + k) % 4]);
    if (night >= 6) order.unshift("frank");
    return { id: `night ${night + 1}`, results: order.map((player, i) => ({ player, rank: i + 1 })) };
  });
}

// Fills the game form: one line per [player, place].
async function fillGame(results, token) {
  const rows = page.locator("#game-rows .game-row");
  // The form is drawn once the league's data is in: count its rows only then.
  await rows.first().waitFor();
  while ((await rows.count()) > results.length) await rows.last().locator("button.remove").click();
  while ((await rows.count()) < results.length) await page.click("#add-player");
  for (const [i, [player, place]] of results.entries()) {
    await rows.nth(i).locator(".player-input").fill(player);
    await rows.nth(i).locator(".place-input").fill(String(place));
  }
  await page.fill("#token", token);
}

const boardRows = () => page.$$eval("#leaderboard tbody tr[data-player]", (trs) => trs.map((tr) => ({
  player: tr.dataset.player, provisional: tr.classList.contains("provisional"),
  position: tr.children[0].textContent, badge: tr.querySelector(".badge")?.textContent ?? "",
})));

before(async () => {
  ({ page, violations, close } = await launch("pages"));
});

after(async () => {
  // Every page above was drawn with the policy in force: nothing was refused.
  assert.deepEqual(violations, []);
  await close?.();
});

test("a player who won their two games stands below the established players, apart", async () => {
  const l = await createLeague("Frank E2E", "sme");
  for (const night of frankJoinsLate()) await post(l, night);
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#new-players").waitFor();
  const rows = await boardRows();
  assert.deepEqual(rows.map((r) => r.provisional), [false, false, false, false, true]);
  assert.equal(rows[4].player, "frank");
  assert.deepEqual(rows.map((r) => r.position), ["1", "2", "3", "4", ""]);
  assert.equal(rows[4].badge, "3 more games to count");
  // frank's rating is the highest, shown as an estimate; the block says why he is apart.
  // The API lists the board in the same order; by rating alone, frank is first.
  const api = await (await fetch(`${base}/api/leagues/${l.id}/leaderboard`)).json();
  assert.deepEqual(rows.map((r) => r.player), api.map((r) => r.player));
  const byRating = await (await fetch(`${base}/api/leagues/${l.id}/leaderboard?order=rating`)).json();
  assert.equal(byRating[0].player, "frank");
  assert.deepEqual(rows.slice(0, 4).map((r) => r.player), byRating.slice(1).map((r) => r.player));
  assert.match(await page.textContent('#leaderboard tr[data-player="frank"] td:nth-child(3)'), /^≈/);
  assert.match(await page.textContent("#new-players"), /New players — ranked once they have played 5 games/);
  // The page reads on a phone: nothing wider than the screen.
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client, `the page is ${scroll} px wide on a ${client} px screen`);
  assert.ok(await page.locator("#leaderboard th[data-key=last_played]").isHidden(), "a minor column is left out on a phone");
});

test("a game entered with a date, in a league whose first game had none", async () => {
  const l = await createLeague("Dates E2E", "sme");
  await post(l, { id: "undated", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#game-date").waitFor();
  const today = await page.inputValue("#game-date");
  assert.match(today, /^\d{4}-\d{2}-\d{2}$/, "the date defaults to today");
  await page.fill("#game-date", "2024-05-03");
  await fillGame([["bo", 1], ["ann", 2]], l.admin_token);
  await page.click("#submit-game");
  await page.locator("#changes").waitFor();
  const games = await ledger(l);
  assert.deepEqual(games.map((g) => g.time ?? null), [null, "2024-05-03"]);
  // A game without factors leaves no stray text under the changes.
  assert.doesNotMatch(await page.textContent("main"), /\bnull\b|undefined/);
  assert.equal(await page.locator("#factor-changes").count(), 0);
  // The list of games shows it, newest first, with its date.
  await page.locator('#games tr[data-match]').nth(1).waitFor();
  const listed = await page.$$eval("#games tbody tr[data-match]", (trs) => trs.map((tr) => tr.dataset.match));
  assert.equal(listed.length, 2);
  assert.equal(listed[1], "undated");
  // Once dated, a game without a date is refused in plain words.
  await page.fill("#game-date", "");
  await fillGame([["ann", 1], ["bo", 2]], l.admin_token);
  await page.click("#submit-game");
  await page.locator("#game-result .message.err").waitFor();
  assert.equal(await page.textContent("#game-result"),
    "Give the game a date: this league's games are dated, and once a league has a dated game every later one needs a date.");
  assert.equal((await ledger(l)).length, 2);
});

test("a game dated after today is refused in plain words, on the form, in a correction and from Tonight", async () => {
  const l = await createLeague("Future E2E", "sme");
  await post(l, { id: "g1", time: "2024-05-03", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator('#games tr[data-match="g1"]').waitFor();
  // The date field goes up to today.
  const today = await page.inputValue("#game-date");
  assert.equal(await page.getAttribute("#game-date", "max"), today);
  await page.fill("#game-date", "2030-01-01");
  await fillGame([["ann", 1], ["bo", 2]], l.admin_token);
  await page.click("#submit-game");
  await page.locator("#game-result .message.err").waitFor();
  assert.equal(await page.textContent("#game-result"), "2030-01-01 is after today: enter a game once it has been played, dated the day it was played.");
  assert.equal((await ledger(l)).length, 1, "nothing was sent");
  // Today goes in.
  await page.fill("#game-date", today);
  await page.click("#submit-game");
  await page.locator("#changes").waitFor();
  assert.equal((await ledger(l)).at(-1).time, today);
  // A correction moved after today: refused in the correction.
  await page.locator('#games tr[data-match="g1"] button.correct').click();
  const edit = page.locator("#games tr.editing");
  await edit.locator(".edit-date").fill("2030-01-01");
  await edit.locator("button.save-correction").click();
  assert.equal(await edit.locator(".correct-said").textContent(), "2030-01-01 is after today: enter a game once it has been played, dated the day it was played.");
  assert.equal((await ledger(l))[0].time, "2024-05-03");
  await edit.locator("button.secondary", { hasText: "Cancel" }).click();
  // A split recorded from Tonight, dated after today: refused there.
  await page.click("#tonight-all");
  await page.click("#make-teams");
  const first = page.locator('#tonight-result .split[data-rank="1"]');
  await first.locator("button.record-split").click();
  await first.locator(".team-place").nth(0).fill("1");
  await first.locator(".team-place").nth(1).fill("2");
  await first.locator(".tonight-date").fill("2030-01-01");
  await first.locator("button.save-split").click();
  await first.locator(".record-form .message.err").waitFor();
  assert.equal(await first.locator(".record-form .message.err").textContent(), "2030-01-01 is after today: enter a game once it has been played, dated the day it was played.");
  assert.equal((await ledger(l)).length, 2);
});

test("a game voided and one corrected from the list of games", async () => {
  const l = await createLeague("Fix E2E", "sme");
  await post(l, { id: "g1", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }] });
  await post(l, { id: "g2", results: [{ player: "bo", rank: 1 }, { player: "cy", rank: 2 }] });
  await post(l, { id: "g3", results: [{ player: "cy", rank: 1 }, { player: "ann", rank: 2 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.fill("#token", l.admin_token);
  // Void g2: asked twice.
  const g2 = page.locator('#games tr[data-match="g2"]');
  await g2.locator("button.void").click();
  assert.equal(await g2.locator("button.void").textContent(), "Void it?");
  assert.equal((await ledger(l)).length, 3, "one press voids nothing");
  await g2.locator("button.void").click();
  await page.locator("#games-result .message.ok").waitFor();
  assert.match(await page.textContent("#games-result"), /Game g2 voided/);
  await page.waitForFunction(() => !document.querySelector('#games tr[data-match="g2"]'));
  assert.deepEqual((await ledger(l)).map((g) => g.id ?? g.match), ["g1", "g3"]);
  // Correct g3: ann won it, not cy.
  const g3 = page.locator('#games tr[data-match="g3"]');
  await g3.locator("button.correct").click();
  const edit = page.locator("#games tr.editing");
  await edit.locator(".place-input").nth(0).fill("2");
  await edit.locator(".place-input").nth(1).fill("1");
  await edit.locator("button.save-correction").click();
  await page.locator("#games-result .message.ok").getByText("Game g3 corrected").waitFor();
  const g = (await ledger(l)).find((x) => (x.id ?? x.match) === "g3");
  assert.deepEqual(g.results.map((r) => [r.player, r.rank]).sort(), [["ann", 1], ["cy", 2]]);
  await page.waitForFunction(() => document.querySelector('#games tr[data-match="g3"] .result')?.textContent === "1. ann · 2. cy");
  const board = (await boardRows()).map((r) => r.player);
  assert.equal(board[0], "ann");
});

test("a two-player game goes in from the three lines the form starts with; an old error does not stay", async () => {
  const l = await createLeague("Form E2E", "sme");
  await page.goto(`${base}/leagues/${l.id}`);
  const rows = page.locator("#game-rows .game-row");
  await rows.first().waitFor();
  assert.equal(await rows.count(), 3);
  // Nothing entered, or one player: said before anything is sent.
  await page.fill("#token", l.admin_token);
  await page.click("#submit-game");
  assert.equal(await page.textContent("#game-result"), "Enter at least two players.");
  await rows.nth(0).locator(".player-input").fill("ann");
  await page.click("#submit-game");
  assert.equal(await page.textContent("#game-result"), "Enter at least two players.");
  // The same player twice: named.
  await rows.nth(1).locator(".player-input").fill("ann");
  await page.click("#submit-game");
  assert.equal(await page.textContent("#game-result"), "ann is entered twice.");
  assert.equal((await ledger(l)).length, 0, "nothing was sent");
  // A place the browser refuses (0) stops the next try before it is sent: the old
  // message goes.
  await rows.nth(1).locator(".player-input").fill("bo");
  await rows.nth(1).locator(".place-input").fill("0");
  await page.click("#submit-game");
  assert.equal(await page.locator("#game-result .message").count(), 0);
  // A player without a place is named.
  await rows.nth(1).locator(".place-input").fill("");
  await page.click("#submit-game");
  assert.match(await page.textContent("#game-result"), /Give bo a place/);
  // Two players, the third line left empty: recorded.
  await rows.nth(1).locator(".place-input").fill("2");
  await page.click("#submit-game");
  await page.locator("#changes").waitFor();
  const games = await ledger(l);
  assert.deepEqual(games.map((g) => g.results.map((r) => [r.player, r.rank])), [[["ann", 1], ["bo", 2]]]);
});

test("a game entered with scores is corrected as scores, its time of day kept", async () => {
  const l = await createLeague("Scores E2E", "sme");
  await post(l, { id: "s1", time: "2025-01-14T20:30:00Z",
    results: [{ player: "ann", score: 31 }, { player: "bo", score: 25 }, { player: "cy", score: 12 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.fill("#token", l.admin_token);
  const s1 = page.locator('#games tr[data-match="s1"]');
  // The list shows scores as scores, best first, not as places.
  assert.equal(await s1.locator(".result").textContent(), "ann 31 · bo 25 · cy 12");
  await s1.locator("button.correct").click();
  const edit = page.locator("#games tr.editing");
  const boxes = edit.locator(".place-input");
  assert.deepEqual(await boxes.evaluateAll((xs) => xs.map((x) => [x.value, x.getAttribute("aria-label")])),
    [["31", "score"], ["25", "score"], ["12", "score"]]);
  // bo's score was 35, not 25; the date is left as it was.
  await boxes.nth(1).fill("35");
  await edit.locator("button.save-correction").click();
  await page.locator("#games-result .message.ok").getByText("Game s1 corrected").waitFor();
  const g = (await ledger(l)).find((x) => (x.id ?? x.match) === "s1");
  assert.deepEqual(g.results.map((r) => [r.player, r.score, r.rank]).sort(),
    [["ann", 31, undefined], ["bo", 35, undefined], ["cy", 12, undefined]]);
  assert.equal(g.time, "2025-01-14T20:30:00Z");
  // The next day keeps the time of day; an emptied score is not sent as 0. (The date
  // field holds the day in the browser's time zone, as the list shows it.)
  await page.locator('#games tr[data-match="s1"] button.correct').click();
  const shown = await page.inputValue("#games tr.editing .edit-date");
  const [y, m, d] = shown.split("-").map(Number);
  const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
  await page.locator("#games tr.editing .edit-date").fill(next);
  const at = await page.locator("#games tr.editing .player-input").evaluateAll((xs) => xs.findIndex((x) => x.value === "cy"));
  const cy = page.locator("#games tr.editing .place-input").nth(at);
  await cy.fill("");
  assert.equal(await cy.evaluate((x) => x.validity.valueMissing && !x.form.checkValidity()), true);
  await cy.fill("12");
  await page.locator("#games tr.editing button.save-correction").click();
  await page.waitForFunction((day) => document.querySelector('#games tr[data-match="s1"] td.when')?.textContent.startsWith(day), next);
  assert.equal((await ledger(l)).find((x) => (x.id ?? x.match) === "s1").time, "2025-01-15T20:30:00Z");
});

test("a name one letter or a letter case away from a player's is flagged before it is made", async () => {
  const l = await createLeague("Names E2E", "sme");
  await post(l, { results: [{ player: "Alice", rank: 1 }, { player: "Marcus", rank: 2 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  // The known names are suggested (once the page has drawn its form).
  await page.locator("#known-players option").first().waitFor({ state: "attached" });
  const options = await page.$$eval("#known-players option", (os) => os.map((o) => o.value).sort());
  assert.deepEqual(options, ["Alice", "Marcus"]);
  await fillGame([["alice", 1], ["Markus", 2], ["Bo", 3]], l.admin_token);
  await page.click("#submit-game");
  await page.locator("#name-check .message.warn").waitFor();
  const flagged = await page.$$eval("#name-check li", (lis) => lis.map((li) => li.dataset.name));
  assert.deepEqual(flagged, ["alice", "Markus"], "Bo is new and like nobody: not flagged");
  assert.equal((await ledger(l)).length, 1, "nothing sent before the names are confirmed");
  // Take the known "Alice"; keep "Markus" as a new player. Markus is still flagged:
  // nothing is sent yet.
  await page.click('#name-check li[data-name="alice"] button.use-known');
  assert.equal(await page.inputValue("#game-rows .game-row >> nth=0 >> .player-input"), "Alice");
  assert.deepEqual(await page.$$eval("#name-check li", (lis) => lis.map((li) => li.dataset.name)), ["Markus"]);
  assert.equal((await ledger(l)).length, 1);
  await page.click("#name-check button.confirm-new");
  await page.locator("#changes").waitFor();
  const last = (await ledger(l)).at(-1);
  assert.deepEqual(last.results.map((r) => r.player), ["Alice", "Markus", "Bo"]);
});

test("creating a league leaves the server token field empty and lists the new league", async () => {
  await page.goto(`${base}/`);
  await page.locator("#create-league").waitFor();
  // The default system, its parameters folded away.
  assert.equal(await page.inputValue("#league-system"), "kalman-mmr");
  assert.ok(await page.locator("#league-advanced input").first().isHidden());
  await page.fill("#league-name", "Token E2E");
  await page.click("#create-league button[type=submit]");
  await page.locator("#new-token").waitFor();
  assert.equal(await page.inputValue("#server-token"), "", "the league's token is not the server's");
  await page.locator("#leagues").getByText("Token E2E").waitFor();
  const id = Number(new URL(await page.getAttribute("#create-league a", "href"), base).pathname.split("/").pop());
  // The same name again (in other letters' case) is refused, naming the league that has it.
  await page.fill("#league-name", "token e2e");
  await page.click("#create-league button[type=submit]");
  await page.locator("#create-league .message.err").waitFor();
  assert.equal(await page.textContent("#create-league .message.err"), `a league named "Token E2E" exists already (league ${id}): choose another name`);
  assert.equal(await page.locator("#leagues td a", { hasText: /^token e2e$/i }).count(), 1);
  // The league's own token field is filled on its page.
  await page.goto(`${base}/leagues/${id}`);
  await page.locator("#token").waitFor();
  assert.equal(await page.inputValue("#token"), await page.evaluate((i) => localStorage.getItem(`podium-token-${i}`), id));
  assert.match(await page.inputValue("#token"), /\S/);
  // Counts read in plain English.
  assert.match(await page.textContent("main section p.muted"), /kalman-mmr · 0 players · 0 games/);
});

test("a wrong token is answered in plain words", async () => {
  const l = await createLeague("Wrong E2E", "sme");
  await page.goto(`${base}/leagues/${l.id}`);
  await fillGame([["ann", 1], ["bo", 2]], "");
  await page.click("#submit-game");
  await page.locator("#game-result .message.err").waitFor();
  const text = await page.textContent("#game-result");
  assert.match(text, /admin token is missing or wrong/);
  assert.doesNotMatch(text, /Bearer|Authorization/);
});

test("a correction that names someone new asks first, as the game form does", async () => {
  const l = await createLeague("Correct names E2E", "sme");
  await post(l, { id: "g1", results: [{ player: "Maya", rank: 1 }, { player: "Tom", rank: 2 }, { player: "Priya", rank: 3 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.fill("#token", l.admin_token);
  const open = async () => {
    await page.locator('#games tr[data-match="g1"] button.correct').click();
    return page.locator("#games tr.editing");
  };
  // A name like a player's and one like nobody's: asked about, nothing sent.
  let edit = await open();
  await edit.locator(".player-input").nth(1).fill("tom");
  await edit.locator(".player-input").nth(2).fill("Zed");
  await edit.locator("button.save-correction").click();
  const warn = edit.locator(".message.warn");
  await warn.waitFor();
  assert.equal(await warn.locator("p").textContent(), "These names are new to the league:");
  assert.deepEqual(await warn.locator("li").allTextContents(), ["“tom” — Use “Tom”", "“Zed” — not yet a player of this league"]);
  assert.equal(await warn.locator("button.confirm-new").textContent(), "They are new players: save the correction");
  assert.deepEqual((await ledger(l))[0].results.map((r) => r.player), ["Maya", "Tom", "Priya"], "nothing was sent");
  // "tom" is Tom; Zed is still asked about.
  await warn.locator("button.use-known").click();
  assert.equal(await edit.locator(".player-input").nth(1).inputValue(), "Tom");
  assert.deepEqual(await warn.locator("li").allTextContents(), ["“Zed” — not yet a player of this league"]);
  assert.equal(await warn.locator("button.confirm-new").textContent(), "It is a new player: save the correction");
  assert.deepEqual((await ledger(l))[0].results.map((r) => r.player), ["Maya", "Tom", "Priya"]);
  // Cancelled, then confirmed: Zed is made.
  await edit.locator("button.secondary", { hasText: "Cancel" }).click();
  edit = await open();
  await edit.locator(".player-input").nth(2).fill("Zed");
  await edit.locator("button.save-correction").click();
  await edit.locator("button.confirm-new").click();
  await page.locator("#games-result").getByText("Game g1 corrected").waitFor();
  assert.deepEqual((await ledger(l))[0].results.map((r) => r.player), ["Maya", "Tom", "Zed"]);
  // A correction of the league's names only goes at once (Priya, out of the league's
  // games since, would be asked about).
  edit = await open();
  assert.equal(await page.locator("#games-result").count(), 0, "the last answer goes when a correction opens");
  await edit.locator(".place-input").nth(0).fill("2");
  await edit.locator(".place-input").nth(1).fill("1");
  await edit.locator("button.save-correction").click();
  await page.locator("#games-result").getByText("Game g1 corrected").waitFor();
  assert.deepEqual((await ledger(l))[0].results.map((r) => [r.player, r.rank]), [["Tom", 1], ["Maya", 2], ["Zed", 3]]);
});

test("places read alike in the games list and the rating changes: 1 + the entries ahead", async () => {
  const l = await createLeague("Places E2E", "sme");
  await post(l, { id: "gaps", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 3 }, { player: "cy", rank: 7 }] });
  await post(l, { id: "teams", results: [{ player: "ann", team: "x", rank: 1 }, { player: "bo", team: "x", rank: 1 },
    { player: "cy", team: "y", rank: 2 }, { player: "dee", team: "z", rank: 3 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  // A tie for first entered on the form as 1, 1, 2.
  await fillGame([["ann", 1], ["bo", 1], ["cy", 2]], l.admin_token);
  await page.click("#submit-game");
  await page.locator("#changes").waitFor();
  const places = await page.$$eval("#changes tbody tr", (trs) => trs.map((tr) => [tr.children[1].textContent, tr.children[0].textContent]));
  assert.deepEqual(places, [["ann", "1"], ["bo", "1"], ["cy", "3"]]);
  await page.locator("#games tr[data-match]").nth(2).waitFor();
  const line = (key) => page.textContent(`#games tr[data-match="${key}"] .result`);
  const [tie] = await page.$$eval("#games tr[data-match]", (trs) => trs.map((tr) => tr.dataset.match));
  assert.equal(await line(tie), "1. ann, bo · 3. cy");
  // Places given as 1, 3, 7: read as 1, 2, 3, as the league rates them.
  assert.equal(await line("gaps"), "1. ann · 2. bo · 3. cy");
  const gaps = await (await fetch(`${base}/api/leagues/${l.id}/matches/gaps`)).json();
  assert.deepEqual(gaps.changes.map((c) => c.place), [1, 2, 3]);
  // A team is one entry: the team after a team of two is 2nd.
  assert.equal(await line("teams"), "1. ann (x), bo (x) · 2. cy (y) · 3. dee (z)");
});

test("a share of a game played shows in the games list, its correction and the player's games", async () => {
  const l = await createLeague("Shares E2E", "sme");
  await post(l, { id: "full", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }] });
  await post(l, { id: "half", results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2, weight: 0.5 }, { player: "cy", rank: 3, weight: 0.4 }] });
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator('#games tr[data-match="half"]').waitFor();
  assert.equal(await page.textContent('#games tr[data-match="half"] .result'), "1. ann · 2. bo (played ½) · 3. cy (played 40%)");
  assert.equal(await page.textContent('#games tr[data-match="full"] .result'), "1. ann · 2. bo");
  assert.equal(await page.textContent("#games-shares"), "“Played ½”: the player played that share of the game, which counts for their rating as that share of a game.");
  // The correction shows the shares, and keeps them.
  await page.locator('#games tr[data-match="half"] button.correct').click();
  const edit = page.locator("#games tr.editing");
  assert.deepEqual(await edit.locator(".share").allTextContents(), ["played ½", "played 40%"]);
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client, `the page is ${scroll} px wide on a ${client} px screen`);
  await page.fill("#token", l.admin_token);
  await edit.locator(".place-input").nth(1).fill("3");
  await edit.locator(".place-input").nth(2).fill("2");
  await edit.locator("button.save-correction").click();
  await page.locator("#games-result").getByText("Game half corrected").waitFor();
  const half = (await ledger(l)).find((g) => g.match === "half");
  assert.deepEqual(half.results.map((r) => [r.player, r.weight ?? 1]).sort(), [["ann", 1], ["bo", 0.5], ["cy", 0.4]]);
  // bo's games: the share under the place.
  await page.goto(`${base}/leagues/${l.id}/players/bo`);
  await page.locator("#history tbody tr").nth(1).waitFor();
  assert.deepEqual(await page.$$eval("#history tbody tr", (trs) => trs.map((tr) => tr.children[2].textContent)), ["3 of 3 played ½", "2 of 2"]);
  assert.match(await page.textContent("#history-how"), /scaled by the share of the game played/);
});

test("the league form reads whole at both widths: the system's summary under its list, the token's hint in its field", async () => {
  const systems = await (await fetch(`${base}/api/systems`)).json();
  try {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${base}/`);
      await page.locator("#create-league").waitFor();
      const names = await page.$$eval("#league-system option", (os) => os.map((o) => o.textContent));
      assert.deepEqual(names, systems.map((s) => `${s.name}${s.default ? " (recommended)" : ""}`));
      assert.equal(await page.textContent("#league-system-about"), systems.find((s) => s.default).summary);
      // The text of each field fits it (measured in the field's own font).
      const fits = await page.evaluate(() => {
        const ctx = document.createElement("canvas").getContext("2d");
        return [["#server-token", (e) => e.placeholder], ["#league-name", (e) => e.placeholder],
          ["#league-system", (e) => e.selectedOptions[0].textContent]].map(([sel, text]) => {
          const e = document.querySelector(sel);
          const cs = getComputedStyle(e);
          ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
          const room = e.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - (e.tagName === "SELECT" ? 24 : 0);
          return [sel, Math.ceil(ctx.measureText(text(e)).width), Math.floor(room)];
        });
      });
      for (const [sel, need, room] of fits) assert.ok(need <= room, `${width} px: ${sel} needs ${need} px, has ${room}`);
      assert.equal(await page.getAttribute("#server-token", "placeholder"), "if the server asks for one");
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
      // Another system: its summary.
      await page.selectOption("#league-system", "elo");
      assert.equal(await page.textContent("#league-system-about"), systems.find((s) => s.name === "elo").summary);
    }
  } finally {
    await page.setViewportSize({ width: 390, height: 844 });
  }
});

test("no request of a page fails: an icon is given, none is asked for", async () => {
  const l = await createLeague("Icon E2E", "sme");
  await post(l, { results: [{ player: "ann", rank: 1 }, { player: "bo", rank: 2 }] });
  const failed = [];
  const onResponse = (res) => { if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`); };
  const onError = (msg) => { if (msg.type() === "error") failed.push(msg.text()); };
  page.on("response", onResponse);
  page.on("console", onError);
  try {
    for (const path of ["/", `/leagues/${l.id}`, `/leagues/${l.id}/players/ann`]) {
      await page.goto(`${base}${path}`);
      await page.locator("main section").first().waitFor();
      await page.waitForLoadState("networkidle");
    }
    assert.match(await page.getAttribute('link[rel="icon"]', "href"), /^data:image\/svg\+xml,/);
    assert.deepEqual(failed, []);
  } finally {
    page.off("response", onResponse);
    page.off("console", onError);
  }
});

test("an unknown player's page says so and leads back to the league", async () => {
  const l = await createLeague("Nobody E2E", "sme");
  await page.goto(`${base}/leagues/${l.id}/players/Nobody`);
  await page.locator("#way-back a").waitFor();
  assert.equal(await page.textContent("main .message.err"), "This league has no player named “Nobody”.");
  assert.equal(await page.getAttribute("#way-back a", "href"), `/leagues/${l.id}`);
  await page.goto(`${base}/leagues/999999`);
  await page.locator("#way-back a").waitFor();
  assert.equal(await page.textContent("main .message.err"), "There is no such league: the address may be mistyped, or the league is on another server.");
  assert.equal(await page.getAttribute("#way-back a", "href"), "/");
});

test("the API's refusals reach a person in plain words, without the match's and the field's names", async () => {
  const l = await createLeague("Words E2E", "sme");
  await post(l, { id: "t1", results: [{ player: "Ann", team: "Team 1", rank: 1 }, { player: "Tom", team: "Team 1", rank: 1 }, { player: "Bo", team: "Team 1", rank: 1 },
    { player: "Cy", team: "Team 1", rank: 1 }, { player: "Dee", team: "Team 2", rank: 2 }] });
  // What the server answers to refusals the pages check before sending (a page open in
  // another tab, a client of the API), each worded by the page.
  const refusal = async (method, path, body) => {
    const res = await fetch(`${base}/api/leagues/${l.id}${path}`, { method, body: body && JSON.stringify(body),
      headers: { "content-type": "application/json", authorization: `Bearer ${l.admin_token}` } });
    assert.ok(res.status >= 400, `${path}: ${res.status}`);
    return [res.status, (await res.json()).error];
  };
  const cases = [
    [await refusal("POST", "/matches", { results: [] }), "Enter at least two players."],
    [await refusal("POST", "/matches", { results: [{ player: "Priya", rank: 1 }, { player: "Priya", rank: 2 }] }), "Priya is entered twice."],
    [await refusal("PUT", "/matches/t1", { results: [{ player: "Ann", rank: 1 }] }), "Enter at least two players."],
    [await refusal("PUT", "/matches/t1", { results: [{ player: "Ann", team: "Team 1", rank: 2 }, { player: "Tom", team: "Team 1", rank: 1 },
      { player: "Bo", team: "Team 1", rank: 1 }, { player: "Cy", team: "Team 1", rank: 1 }, { player: "Dee", team: "Team 2", rank: 2 }] }),
    "The players of a team share one place: in Team 1, Ann has place 2, but the team's 3 other players have place 1. Give them one place, or move a player to another team."],
    [await refusal("PUT", "/matches/t1", { results: [{ player: "Ann", team: "Team 1", rank: 1 }, { player: "Tom", team: "Team 1", rank: 2 }, { player: "Dee", team: "Team 2", rank: 2 }] }),
      "The players of Team 1 were given different places (place 1: Ann; place 2: Tom): the players of a team share one place. Give them one place, or move a player to another team."],
    [await refusal("PUT", "/matches/t1", { results: [{ player: "Ann", rank: 1 }, { player: "Nobody", rank: 2 }] }),
      "Nobody has never played in this league: check the name, or confirm that they are a new player."],
    [await refusal("POST", "/seasons", { name: "season 1", reset: { kind: "hard" } }), "This league has a season named “Season 1” already: give the new season another name."],
    [await refusal("PATCH", "", { system: "sme", config: { k: "abc" } }), "Nothing was changed: k cannot be “abc”; it takes a finite number in (0, 1e9]."],
  ];
  await page.goto(`${base}/leagues/${l.id}`);
  await page.locator("#games").waitFor();
  for (const [[status, raw], said] of cases) {
    assert.equal(await page.evaluate(([s, m]) => plain(new ApiError(s, m)), [status, raw]), said, raw);
  }
});
