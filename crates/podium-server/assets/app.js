// podium league pages: plain JavaScript over the JSON API, no external resources.
"use strict";

const app = document.getElementById("app");
const crumbs = document.getElementById("crumbs");

// Builds an element: h("td", {class: "x"}, "text", child...). Text is never parsed as HTML.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value") el.value = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// An answer of the API that is not a success: its HTTP status and the API's message.
class ApiError extends Error {
  constructor(status, text) { super(text); this.status = status; }
}

async function api(path, options) {
  let res;
  try { res = await fetch(path, options); } catch (_) {
    throw new ApiError(0, "The server could not be reached: check the connection and try again.");
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = text; }
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || `${res.status} ${res.statusText}`);
  return data;
}

// A quoted name as the API's messages give it ("Priya", with JSON's escapes) → Priya.
const unquote = (q) => { try { return JSON.parse(q); } catch (_) { return q.replace(/^"|"$/g, ""); } };
// "Bo" and "Eve" → Bo and Eve.
const unquoteAll = (text) => text.replace(/"((?:[^"\\]|\\.)*)"/g, (q) => unquote(q));

// Why the league's system cannot rate a game, as a person reads it: "elo rates games of
// exactly 2 players or teams, and the game “Azul” has 3". `key`: null for the game
// being entered.
function unratable(key, reason) {
  const game = key === null ? "this game" : `the game “${key}”`;
  let x;
  if ((x = reason.match(/^system (\S+) rates matches of exactly (\d+) entries, this one has (\d+)/))) {
    return `${x[1]} rates games of exactly ${x[2]} players or teams, and ${game} has ${x[3]}`;
  }
  if ((x = reason.match(/^system (\S+) does not rate factors/))) {
    return `${x[1]} does not rate factors (a seat, a car, a faction), and ${game} has some`;
  }
  return `this league's system cannot rate ${game}`;
}

// Names in a sentence: "Ann", "Ann and Bo", "Ann, Bo and Cy".
const listed = (names) => (names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`);

// A team whose players were given different places (or scores), as the pages say it.
// `groups`: each place given, with the players given it as a text ("Bo and Eve") and how
// many they are, in the order first given. The players at odds with the place most of
// the team have are named; when no place has more players than every other, each is.
function teamSplit(team, what, groups) {
  const fix = `Give them one ${what}, or move a player to another team.`;
  const sizes = groups.map(([, , n]) => n);
  const top = Math.max(...sizes);
  const usual = sizes.filter((n) => n === top).length === 1 ? sizes.indexOf(top) : -1;
  if (usual < 0) {
    return `The players of ${team} were given different ${what}s (${groups.map(([v, who]) => `${what} ${v}: ${who}`).join("; ")}): ` +
      `the players of a team share one ${what}. ${fix}`;
  }
  const odd = groups.filter((_, k) => k !== usual).map(([v, who, n]) => `${who} ${n === 1 ? "has" : "have"} ${what} ${v}`);
  const n = groups[usual][2];
  return `The players of a team share one ${what}: in ${team}, ${odd.join(" and ")}, but the team's ` +
    `${n === 1 ? "other player has" : `${n} other players have`} ${what} ${groups[usual][0]}. ${fix}`;
}

// A list of quoted names as the API's messages give it: `"Bo" and "Eve"`, `"A", "B" and
// 3 more`: the names as a text, and how many they are.
function quotedNames(text) {
  const more = text.match(/ and (\d+) more$/);
  const n = (text.match(/"(?:[^"\\]|\\.)*"/g) || []).length + (more ? Number(more[1]) : 0);
  return [unquoteAll(text), n];
}

// An error as the pages say it. The API's messages are written for programs (they name
// the match and the field at fault: "invalid match: the match, field `results`: …";
// "…: Authorization: Bearer <token>"): a person is told what is wrong and what to do on
// the page. `about` says what was being done: {server: true} creating a league;
// {system, was} switching a league's system; {done} what did not happen ("The game was
// not recorded"). Either a text, or {text, detail} with the server's own reason as the
// detail.
function plain(e, about = {}) {
  if (e.status === 401 || e.status === 403) {
    return about.server
      ? "This server asks for its admin token before it creates a league: enter it in “Server admin token”."
      : "The league's admin token is missing or wrong. It was shown once, when the league was created: ask whoever created the league for it and paste it into “League admin token”.";
  }
  if (e.status === 429) return "Too many leagues were created here in the last hour: try again later.";
  if (e.status >= 500) return `The server failed (${e.message}); try again in a moment.`;
  const raw = e.message || "";
  // A match's errors without the match's and the field's names.
  const m = raw.replace(/^invalid match: (?:the match|match (?:"(?:[^"\\]|\\.)*"|\d+ of the array))(?:, field `[^`]*`)?: /, "");
  let x;
  if (/^a match needs at least 2 entries/.test(m)) return "Enter at least two players.";
  if ((x = m.match(/^player ("(?:[^"\\]|\\.)*") appears more than once in the match/))) return `${unquote(x[1])} is entered twice.`;
  // A team's players given different places: "team "Team 1": player "Ann" finished rank 2,
  // but the team's 3 other players finished rank 1", or "…: its players' finishes
  // disagree (rank 1: "Sam"; rank 2: "Tom"); …".
  if ((x = m.match(/^team ("(?:[^"\\]|\\.)*"): (.*), but the team's (?:other player|(\d+) other players) finished (rank|score) (\S+)$/))) {
    const groups = [...x[2].matchAll(/players? (.*?) finished (?:rank|score) (\S+)(?: and |$)/g)].map((g) => [g[2], ...quotedNames(g[1])]);
    groups.push([x[5], "", Number(x[3] ?? 1)]);
    // The usual place last, as many as the server counted: the most of the team.
    return teamSplit(unquote(x[1]), x[4] === "rank" ? "place" : "score", groups);
  }
  if ((x = m.match(/^team ("(?:[^"\\]|\\.)*"): its players' finishes disagree \((.*)\)/))) {
    const groups = x[2].split("; ").map((g) => g.match(/^(rank|score) (\S+): (.*)$/)).filter(Boolean);
    return teamSplit(unquote(x[1]), groups[0]?.[1] === "score" ? "score" : "place", groups.map((g) => [g[2], ...quotedNames(g[3])]));
  }
  if ((x = m.match(/^player ("(?:[^"\\]|\\.)*") has never played in this league/))) {
    return `${unquote(x[1])} has never played in this league: check the name, or confirm that they are a new player.`;
  }
  if ((x = m.match(/^player id ("(?:[^"\\]|\\.)*"…?(?: \(\d+ bytes\))?) is not valid, expected 1 to (\d+) bytes/))) {
    return `“${unquote(x[1])}” cannot be a player's name: a name is at most ${x[2]} bytes long (an accented letter takes two), without control characters.`;
  }
  if (/has no date, but the league already has dated matches/.test(m)) {
    return "Give the game a date: this league's games are dated, and once a league has a dated game every later one needs a date.";
  }
  if (/is dated, but the correction has no date/.test(m)) return "Give the game a date: it was dated, and a dated game keeps a date.";
  if ((x = m.match(/^(?:match ("(?:[^"\\]|\\.)*")|the match) cannot be rated: ([\s\S]*)$/))) {
    const why = unratable(x[1] === undefined ? null : unquote(x[1]), x[2]);
    const text = about.system
      ? `Nothing was changed: ${why}. The league keeps ${about.was} and its ratings; choose a system that can rate every game of the league.`
      : `${about.done || "Nothing was changed"}: ${why}.`;
    return { text, detail: `The server's reason: ${raw}` };
  }
  if ((x = raw.match(/^parameter (\S+): ("(?:[^"\\]|\\.)*") is not valid, expected (.*)$/))) {
    return `Nothing was changed: ${x[1]} cannot be “${unquote(x[2])}”; it takes ${x[3]}.`;
  }
  if ((x = raw.match(/^invalid season: name: league \d+ has a season named ("(?:[^"\\]|\\.)*") already/))) {
    return `This league has a season named “${unquote(x[1])}” already: give the new season another name.`;
  }
  if ((x = raw.match(/^invalid (season|league): name .* is not valid, expected 1 to (\d+) characters/))) {
    return `A ${x[1]}'s name has 1 to ${x[2]} characters, without control characters.`;
  }
  if ((x = raw.match(/^league \d+ has no player ("(?:[^"\\]|\\.)*")$/))) return `This league has no player named “${unquote(x[1])}”.`;
  if ((x = raw.match(/^league \d+ has no match ("(?:[^"\\]|\\.)*")$/))) {
    return `The game “${unquote(x[1])}” is not in this league any more: reload the page to see its games as they are.`;
  }
  if (/^no league \d+$/.test(raw)) return "There is no such league: the address may be mistyped, or the league is on another server.";
  return m;
}

const tokenKey = (id) => `podium-token-${id}`;
const getToken = (id) => localStorage.getItem(tokenKey(id)) || "";
// Remembers a token that worked for league `id`, and fills it into that league's other
// empty token fields (never the server's, nor another league's).
const setToken = (id, t) => {
  if (!t) return;
  localStorage.setItem(tokenKey(id), t);
  document.querySelectorAll(`input[data-league-token="${id}"]`).forEach((i) => { if (!i.value) i.value = t; });
};
// The token to send for league `id`: the game form's field, else the one kept.
const tokenFor = (id) => (document.getElementById("token")?.value.trim() || getToken(id));

// "1 match", "2 matches".
const plural = (n, one, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
// Today in the browser's time zone, as a date field holds it (YYYY-MM-DD).
const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
};

// A date field for the day a game was played: today at most, since a game dated later
// would count as the league's latest and the games played before it would be rated
// after it. (Today is read again when the field is used: a page left open overnight.)
function playedDay(attrs) {
  const input = h("input", { type: "date", max: today(), ...attrs });
  input.addEventListener("focus", () => { input.max = today(); });
  return input;
}

// What a form says of a date after today, which the browser refuses to send (max).
const futureDay = (day) => `${day} is after today: enter a game once it has been played, dated the day it was played.`;

// Sees to it that `form` says in its own words (in `show`) why the browser will not send a
// date after today, rather than the browser's bubble; `also` runs first on any refused field.
function sayRefusedDates(form, show, also = () => {}) {
  form.addEventListener("invalid", (ev) => {
    also(ev);
    if (ev.target.type === "date" && ev.target.validity.rangeOverflow) {
      ev.preventDefault();
      show(message(false, futureDay(ev.target.value)));
    }
  }, true);
}

// The first name given twice among `names` (spaces around them left out), or undefined.
const twice = (names) => names.find((n, i) => n && names.indexOf(n) !== i);

// Edit distance between two names (insertions, deletions, substitutions), stopping
// early once it exceeds `max`.
function distance(a, b, max = 2) {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    if (Math.min(...cur) > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

// The known players a new name may be meant for: the same name in other letter case
// (`alice` for `Alice`), or, for names of five letters or more, one letter off.
function lookalikes(name, known) {
  const low = name.toLowerCase();
  return known.filter((k) => {
    if (k === name) return false;
    const kl = k.toLowerCase();
    if (kl === low) return true;
    return Math.min([...name].length, [...k].length) >= 5 && distance(low, kl, 1) === 1;
  });
}

const fmt = (x, d = 1) => (typeof x === "number" ? x.toFixed(d) : x ?? "");
const signed = (x, d = 1) => (x > 0 ? "+" : "") + x.toFixed(d);
const deltaCell = (x) => h("td", { class: x > 0 ? "up" : x < 0 ? "down" : "" }, signed(x));
// A message: a text, or what plain() words with a detail ({text, detail}), which goes
// under it, smaller.
const message = (ok, text) => h("div", { class: `message ${ok ? "ok" : "err"}`, role: "status" },
  typeof text === "object" && text !== null && !(text instanceof Node) ? [text.text, h("span", { class: "detail" }, text.detail)] : text);
const playerHref = (id, p) => `/leagues/${id}/players/${encodeURIComponent(p)}`;

function setCrumbs(...parts) {
  crumbs.replaceChildren(...parts.flatMap((p) => [" / ", p]));
}

// ---------- league list ----------
function leagueList(leagues) {
  if (leagues.length === 0) return h("p", { class: "muted" }, "No league yet: create one below.");
  return h("div", { class: "scroll" }, h("table", { id: "leagues" },
    h("thead", {}, h("tr", {}, h("th", { class: "minor" }, "#"), h("th", {}, "League"), h("th", { class: "minor" }, "System"),
      h("th", {}, "Players"), h("th", {}, "Games"))),
    h("tbody", {}, leagues.map((l) => h("tr", {},
      h("td", { class: "minor" }, l.id), h("td", {}, h("a", { href: `/leagues/${l.id}` }, l.name)),
      h("td", { class: "minor" }, l.system), h("td", {}, l.ready ? l.players : "loading…"), h("td", {}, l.ready ? l.matches : ""))))));
}

// A system's parameters as fields, each with what it does and its default; `current`
// holds the values set (by name).
function paramFields(spec, current, prefix) {
  return spec.params.flatMap((p) => [
    h("label", { for: `${prefix}${p.name}` }, p.name, " ", h("span", { class: "doc" }, `${p.doc} (default ${p.default})`)),
    h("input", { id: `${prefix}${p.name}`, "data-param": p.name, "data-default": p.default, value: current[p.name] ?? p.default }),
  ]);
}

// The parameters set away from their defaults.
function changedParams(container) {
  const config = {};
  container.querySelectorAll("input[data-param]").forEach((i) => { if (i.value.trim() !== i.dataset.default) config[i.dataset.param] = i.value.trim(); });
  return config;
}

async function home() {
  document.title = "podium — leagues";
  setCrumbs();
  const [leagues, systems] = await Promise.all([api("/api/leagues"), api("/api/systems")]);
  const listBox = h("div", { id: "league-list" }, leagueList(leagues));
  const list = h("section", {}, h("h1", {}, "Leagues"), listBox);
  const out = h("div");
  const name = h("input", { id: "league-name", required: true, placeholder: "Thursday board games" });
  const fallback = systems.find((s) => s.default) || systems[0];
  // The options name the systems; the chosen one's summary goes under the list, where it
  // wraps (an option's text is cut at the list's width).
  const system = h("select", { id: "league-system" }, systems.map((s) => h("option", { value: s.name, selected: s === fallback },
    `${s.name}${s.default ? " (recommended)" : ""}`)));
  const about = h("p", { id: "league-system-about", class: "muted" });
  const params = h("div", { class: "params" });
  const showParams = () => {
    const spec = systems.find((s) => s.name === system.value);
    about.textContent = spec.summary;
    params.replaceChildren(...paramFields(spec, {}, "new-param-"));
  };
  system.addEventListener("change", showParams);
  showParams();
  const serverToken = h("input", { id: "server-token", type: "password", autocomplete: "off", placeholder: "if the server asks for one" });
  const form = h("form", { id: "create-league" },
    h("label", { for: "league-name" }, "Name"), name,
    h("label", { for: "league-system" }, "Rating system ", h("span", { class: "doc" }, "the recommended one suits most groups; it can be changed later and every game is rated again")), system, about,
    h("details", { id: "league-advanced" }, h("summary", {}, "Advanced: the system's parameters"), params),
    h("label", { for: "server-token" }, "Server admin token"), serverToken,
    h("div", { class: "row actions" }, h("button", { type: "submit" }, "Create league")), out);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const headers = { "content-type": "application/json" };
      if (serverToken.value) headers.authorization = `Bearer ${serverToken.value}`;
      const config = changedParams(params);
      const r = await api("/api/leagues", { method: "POST", headers,
        body: JSON.stringify({ name: name.value, system: system.value, ...(Object.keys(config).length ? { config } : {}) }) });
      setToken(r.id, r.admin_token);
      out.replaceChildren(message(true, "League created. Its admin token, needed to enter games (kept in this browser; copy it for the others at the table — it is shown only once):"),
        h("p", { class: "token", id: "new-token" }, r.admin_token), h("p", {}, h("a", { href: `/leagues/${r.id}` }, "Open the league →")));
      name.value = "";
      listBox.replaceChildren(leagueList(await api("/api/leagues")));
    } catch (e) { out.replaceChildren(message(false, plain(e, { server: true }))); }
  });
  app.replaceChildren(list, h("section", {}, h("h2", {}, "New league"), form));
}

// ---------- league page ----------
// Columns of the board; the minor ones are left out on a phone.
const columns = [
  ["position", "#"], ["player", "Player"], ["rating", "Rating"], ["sigma", "σ", "minor"], ["games", "Games"],
  ["win_pct", "Win %"], ["expected_win_pct", "Exp. win %", "minor"], ["net_pct", "Net", "minor"], ["avg_size", "Avg size", "minor"],
  ["last_played", "Last played", "minor"],
];

// Rows drawn at first, and added by each press of "Show more": a league of thousands
// of players stays quick to draw and to sort.
const BOARD_ROWS = 500;

// Games a rating rests on before it stops being provisional: the league's own
// `provisional_games` (mes), else five, as the server counts.
const provisionalGames = (league) => Number(league.params.find((p) => p.name === "provisional_games")?.value ?? 5);

// The board: players whose rating is not provisional first, ranked; the new players
// (provisional ratings) after them, apart, each with their estimate and the games
// still to play. Both groups by rating then name, or by the column clicked.
function leaderboardTable(id, rows, hasSigma, needed) {
  const cols = columns.filter(([k]) => hasSigma || k !== "sigma");
  // Ties by name in code-point order, as the server orders them.
  const byRating = (a, b) => b.rating - a.rating || (a.player < b.player ? -1 : a.player > b.player ? 1 : 0);
  const rank = new Map([...rows].filter((r) => !r.provisional).sort(byRating).map((r, i) => [r.player, i + 1]));
  let sortKey = "position", dir = 1, shown = BOARD_ROWS;
  const tbody = h("tbody");
  const more = h("button", { type: "button", id: "show-more", class: "secondary", onclick: () => { shown += BOARD_ROWS; render(); } });
  const heads = cols.map(([k, label, minor]) => h("th", { class: `sortable ${minor || ""}`, "data-key": k, onclick: () => {
    dir = sortKey === k ? -dir : (k === "player" || k === "position" ? 1 : -1);
    sortKey = k; render();
  } }, label));
  const compare = (a, b) => {
    if (sortKey === "position") return byRating(a, b) * dir;
    const x = a[sortKey], y = b[sortKey];
    // A text column may hold null (`last_played` of a player without a dated game):
    // sorted as empty text.
    const text = typeof x === "string" || typeof y === "string";
    return (text ? (x ?? "").localeCompare(y ?? "") : (x ?? 0) - (y ?? 0)) * dir || byRating(a, b);
  };
  const row = (r) => h("tr", { class: r.provisional ? "provisional" : "", "data-player": r.player },
    cols.map(([k, , minor]) => {
      const c = minor ? "minor" : undefined;
      if (k === "position") return h("td", {}, r.provisional ? "" : rank.get(r.player));
      if (k === "player") {
        const left = Math.max(1, needed - r.games);
        return h("td", {}, h("a", { href: playerHref(id, r.player) }, r.player),
          r.provisional ? h("span", { class: "badge", title: "provisional: too few games for the system to be sure" },
            `${plural(left, "more game")} to count`) : null);
      }
      if (k === "rating" || k === "sigma") return h("td", { class: c, title: String(r[k]) }, (r.provisional && k === "rating" ? "≈" : "") + fmt(r[k], 1));
      if (k === "net_pct") return h("td", { class: `${c} ${r[k] > 0 ? "up" : r[k] < 0 ? "down" : ""}` }, signed(r[k]));
      // Percentages and the mean size always with one decimal, so that a column reads
      // alike whether or not a value happens to be whole (12.0 beside 35.7).
      if (k === "win_pct" || k === "expected_win_pct" || k === "avg_size") return h("td", { class: c }, fmt(r[k], 1));
      return h("td", { class: c }, r[k]);
    }));
  function render() {
    const settled = rows.filter((r) => !r.provisional).sort(compare);
    const fresh = rows.filter((r) => r.provisional).sort(compare);
    heads.forEach((th) => th.classList.remove("asc", "desc"));
    const active = heads.find((th) => th.dataset.key === sortKey);
    if (active) active.classList.add(dir > 0 ? "asc" : "desc");
    // The rows not drawn: none once every row is (`shown` grows past the count).
    const hidden = Math.max(0, rows.length - shown);
    more.hidden = hidden === 0;
    more.textContent = hidden ? `Show ${Math.min(BOARD_ROWS, hidden)} more (${hidden.toLocaleString("en")} not shown)` : "";
    const drawn = [...settled, ...fresh].slice(0, shown);
    const apart = drawn.filter((r) => r.provisional).length;
    const body = drawn.filter((r) => !r.provisional).map(row);
    if (apart) {
      body.push(h("tr", { class: "group", id: "new-players" }, h("td", { colspan: cols.length },
        h("strong", {}, "New players"), ` — ranked once they have played ${plural(needed, "game")}; their ratings so far are estimates.`)));
      body.push(...drawn.filter((r) => r.provisional).map(row));
    }
    tbody.replaceChildren(...body);
  }
  render();
  return h("div", {}, h("table", { id: "leaderboard", class: "board" }, h("thead", {}, h("tr", {}, heads)), tbody), more);
}

// The factors' table: what a car, a seat or a faction adds to an entry's strength, with
// its σ for the systems that keep one (an advantage within a σ of 0 may be chance).
function factorTable(rows, hasSigma) {
  return h("table", { id: "factors" },
    h("thead", {}, h("tr", {}, h("th", { class: "left" }, "Kind"), h("th", {}, "Value"), h("th", {}, "Rating"),
      hasSigma ? h("th", {}, "σ") : null, h("th", {}, "Matches"), h("th", {}, "Win %"), h("th", { class: "minor" }, "Exp. win %"))),
    h("tbody", {}, rows.map((f) => h("tr", { "data-factor": `${f.kind}=${f.value}` },
      h("td", { class: "left" }, f.kind), h("td", {}, f.value), h("td", { title: String(f.rating) }, fmt(f.rating, 1)),
      hasSigma ? h("td", { class: "sigma", title: String(f.sigma) }, fmt(f.sigma, 1)) : null,
      // A factor not played in the current season has no matches in it to count: no
      // figures rather than zeros.
      h("td", {}, f.matches || "—"), h("td", {}, f.matches ? fmt(f.win_pct) : "—"),
      h("td", { class: "minor" }, f.matches ? fmt(f.expected_win_pct) : "—")))));
}

// The rating changes of a game just entered or corrected (and its factors' changes
// when it had any).
function changeTables(r) {
  const tables = [h("div", { class: "scroll" }, h("table", { id: "changes" },
    h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", {}, "Player"), h("th", {}, "Before"), h("th", {}, "After"), h("th", {}, "Change"))),
    h("tbody", {}, r.changes.map((c) => h("tr", {}, h("td", {}, c.place), h("td", {}, c.player),
      h("td", {}, fmt(c.before)), h("td", {}, fmt(c.after)), deltaCell(c.delta))))))];
  if (r.factor_changes && r.factor_changes.length) {
    tables.push(h("div", { class: "scroll" }, h("table", { id: "factor-changes" },
      h("thead", {}, h("tr", {}, h("th", { class: "left" }, "Factor"), h("th", {}, "Value"), h("th", {}, "Before"), h("th", {}, "After"), h("th", {}, "Change"))),
      h("tbody", {}, r.factor_changes.map((c) => h("tr", {}, h("td", { class: "left" }, c.kind), h("td", {}, c.value),
        h("td", {}, fmt(c.before)), h("td", {}, fmt(c.after)), deltaCell(c.delta)))))));
  }
  return tables;
}

// Before a game makes new players: the names that look like a known player's
// (`alice` beside `Alice`, `Marcus` beside `Markus`), each with a button to take the
// known name, and one to go on with the new players. `onConfirm` goes on (sends the game):
// once every flagged name is settled, whichever button settled the last. Options:
// `every` flags every name new to the league, not only the lookalikes (a correction
// makes no new player unasked); `confirm` words the button that goes on for the form it
// is in, for one name and for several.
function nameCheck(box, inputs, known, onConfirm, options = {}) {
  const { every = false, confirm = ["It is a new player: submit", "They are new players: submit"] } = options;
  const flagged = [];
  for (const input of inputs) {
    const name = input.value.trim();
    if (!name || known.includes(name)) continue;
    const like = lookalikes(name, known);
    if (like.length || every) flagged.push([input, name, like]);
  }
  if (!flagged.length) return false;
  const alike = flagged.every(([, , like]) => like.length);
  const one = flagged.length === 1;
  box.replaceChildren(h("div", { class: "message warn", role: "alert" },
    h("p", {}, alike
      ? (one ? "This name is new to the league, but looks like a player it has:" : "These names are new to the league, but look like players it has:")
      : (one ? "This name is new to the league:" : "These names are new to the league:")),
    h("ul", {}, flagged.map(([input, name, like]) => h("li", { "data-name": name }, `“${name}” — `,
      like.length ? like.map((k) => h("button", { type: "button", class: "secondary use-known", onclick: () => {
        input.value = k;
        if (!nameCheck(box, inputs, known, onConfirm, options)) { box.replaceChildren(); onConfirm(); }
      } }, `Use “${k}”`)) : "not yet a player of this league"))),
    h("button", { type: "button", class: "confirm-new", onclick: () => { box.replaceChildren(); onConfirm(); } }, one ? confirm[0] : confirm[1])));
  box.scrollIntoView({ block: "nearest" });
  return true;
}

// kinds: the factor kinds the league has seen, each offered as a column of the form;
// known(): the league's players now.
function gameForm(id, known, kinds, onDone) {
  const rows = h("div", { id: "game-rows" });
  const datalist = h("datalist", { id: "known-players" });
  const suggest = () => datalist.replaceChildren(...known().map((p) => h("option", { value: p })));
  suggest();
  const kindList = h("datalist", { id: "known-kinds" }, ["seat", "car", "faction", ...kinds.filter((k) => !["seat", "car", "faction"].includes(k))]
    .map((k) => h("option", { value: k })));
  // The game's kinds of factor (the seat, the car, the faction), one column each; each
  // player's value of a kind on their line. An empty kind: no factor of it.
  const kindInputs = h("div", { id: "factor-kinds" });
  const kindOf = (i) => kindInputs.children[i].value.trim();
  function showFactors() {
    rows.querySelectorAll(".game-row").forEach((row) => {
      row.querySelectorAll(".factor-input").forEach((input, i) => {
        input.hidden = !kindOf(i);
        input.placeholder = kindOf(i) || "value";
        input.setAttribute("aria-label", kindOf(i) || "factor");
      });
    });
  }
  function factorInput() {
    return h("input", { class: "factor-input", autocomplete: "off" });
  }
  function addKind(value) {
    const i = kindInputs.children.length;
    kindInputs.append(h("input", { class: "factor-kind", id: i ? `factor-kind-${i + 1}` : "factor-kind", list: "known-kinds",
      value, autocomplete: "off", placeholder: "e.g. seat, car, faction", "aria-label": "factor kind", oninput: () => showFactors() }));
    rows.querySelectorAll(".game-row").forEach((row) => row.insertBefore(factorInput(), row.querySelector("button.remove")));
    showFactors();
  }
  function addRow(place) {
    const row = h("div", { class: "row game-row" },
      h("input", { class: "player-input", list: "known-players", placeholder: "player", "aria-label": "player", autocomplete: "off" }),
      h("input", { class: "place-input", type: "number", min: 1, step: 1, value: place, "aria-label": "place" }),
      ...[...kindInputs.children].map(() => factorInput()),
      h("button", { type: "button", class: "remove", onclick: () => { row.remove(); numberRows(); } }, "✕"));
    rows.append(row);
    showFactors();
    numberRows();
  }
  // Each ✕ names its line for a screen reader: "Remove row 3".
  function numberRows() {
    rows.querySelectorAll(".game-row button.remove").forEach((b, i) => b.setAttribute("aria-label", `Remove row ${i + 1}`));
  }
  for (const k of kinds.length ? kinds : [""]) addKind(k);
  for (let i = 1; i <= 3; i++) addRow(i);
  const date = playedDay({ id: "game-date", value: today() });
  const token = h("input", { id: "token", type: "password", value: getToken(id), placeholder: "admin token", autocomplete: "off", "data-league-token": id });
  const check = h("div", { id: "name-check" });
  const out = h("div", { id: "game-result" });
  const form = h("form", { id: "game-form" }, datalist, kindList,
    h("label", { for: "game-date" }, "Date ", h("span", { class: "doc" }, "when the game was played; empty for a game without a date")), date,
    h("p", { class: "muted" }, "One line per player with their place (1 = winner). Give tied players the same place; lines left without a player are left out."),
    h("label", { for: "factor-kind" }, "Factors (optional) ", h("span", { class: "doc" },
      "what else decides a result — the seat, the car, the faction — rated beside the players; one kind per column, each player's on their line")),
    h("div", { class: "row" }, kindInputs, h("button", { type: "button", class: "secondary", id: "add-kind",
      onclick: () => addKind("") }, "+ Add factor")),
    rows,
    h("div", { class: "row" }, h("button", { type: "button", class: "secondary", id: "add-player",
      onclick: () => addRow(rows.children.length + 1) }, "+ Add player")),
    h("label", { for: "token" }, "League admin token"), token,
    check,
    h("div", { class: "row actions" }, h("button", { type: "submit", id: "submit-game" }, "Submit game")),
    out);
  async function send() {
    const named = [...kindInputs.children].map((_, i) => kindOf(i));
    const results = [...rows.querySelectorAll(".game-row")].map((r) => {
      const result = { player: r.querySelector(".player-input").value.trim(), rank: Number(r.querySelector(".place-input").value) };
      const factors = {};
      r.querySelectorAll(".factor-input").forEach((input, i) => {
        if (named[i] && input.value.trim()) factors[named[i]] = input.value.trim();
      });
      if (Object.keys(factors).length) result.factors = factors;
      return result;
    }).filter((r) => r.player);
    try {
      const body = { results };
      if (date.value) body.time = date.value;
      const r = await api(`/api/leagues/${id}/matches`, { method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token.value.trim()}` },
        body: JSON.stringify(body) });
      setToken(id, token.value.trim());
      out.replaceChildren(message(true, `Game ${r.match} recorded. Rating changes:`), ...changeTables(r));
      rows.querySelectorAll(".player-input, .factor-input").forEach((i) => { i.value = ""; });
      await onDone();
      suggest();
    } catch (e) { out.replaceChildren(message(false, plain(e, { done: "The game was not recorded" }))); }
  }
  // A value the browser refuses (a place of 0) stops the submission before it is sent:
  // what an earlier one answered no longer stands. A date after today is refused in
  // words.
  sayRefusedDates(form, (m) => out.replaceChildren(m), () => out.replaceChildren());
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    out.replaceChildren();
    check.replaceChildren();
    // What the league would refuse, said before anything is sent.
    const names = [...rows.querySelectorAll(".player-input")].map((i) => i.value.trim());
    if (names.filter(Boolean).length < 2) {
      out.replaceChildren(message(false, "Enter at least two players."));
      return;
    }
    const again = twice(names);
    if (again) {
      out.replaceChildren(message(false, `${again} is entered twice.`));
      return;
    }
    const placeless = [...rows.querySelectorAll(".game-row")].find((r) =>
      r.querySelector(".player-input").value.trim() && !r.querySelector(".place-input").value.trim());
    if (placeless) {
      out.replaceChildren(message(false, `Give ${placeless.querySelector(".player-input").value.trim()} a place: 1 for the winner, the same place for a tie.`));
      return;
    }
    const kindTwice = twice([...kindInputs.children].map((_, i) => kindOf(i)));
    if (kindTwice) {
      out.replaceChildren(message(false, `The factor kind “${kindTwice}” is given twice: give each kind once.`));
      return;
    }
    if (nameCheck(check, [...rows.querySelectorAll(".player-input")], known(), send)) return;
    send();
  });
  return form;
}

async function settingsForm(id, current, onDone) {
  const systems = await api("/api/systems");
  const league = current();
  const system = h("select", { id: "settings-system" }, systems.map((s) => h("option", { value: s.name, selected: s.name === league.system }, s.name)));
  const params = h("div", { class: "params" });
  function showParams() {
    const spec = systems.find((s) => s.name === system.value);
    const now = current();
    const set = system.value === now.system ? Object.fromEntries(now.params.map((p) => [p.name, p.value])) : {};
    params.replaceChildren(...paramFields(spec, set, "param-"));
  }
  system.addEventListener("change", showParams);
  showParams();
  const token = h("input", { id: "settings-token", type: "password", value: getToken(id), placeholder: "admin token", autocomplete: "off", "data-league-token": id });
  const out = h("div");
  const form = h("form", { id: "settings-form" },
    h("label", { for: "settings-system" }, "Rating system"), system,
    h("details", { id: "settings-advanced", open: true }, h("summary", {}, "The system's parameters"), params),
    h("label", { for: "settings-token" }, "League admin token"), token,
    h("div", { class: "row actions" }, h("button", { type: "submit" }, "Save and recompute")), out);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const r = await api(`/api/leagues/${id}`, { method: "PATCH",
        headers: { "content-type": "application/json", authorization: `Bearer ${token.value.trim()}` },
        body: JSON.stringify({ system: system.value, config: changedParams(params) }) });
      setToken(id, token.value.trim());
      out.replaceChildren(message(true, `Now rated by ${r.system}; ${plural(r.matches, "game")} rated again.`));
      await onDone();
      showParams();
    } catch (e) { out.replaceChildren(message(false, plain(e, { system: system.value, was: current().system }))); }
  });
  return form;
}

// Whether a game's results are scores (higher = better) rather than places.
const scoredGame = (results) => results.some((r) => r.score !== undefined && r.score !== null);

// The share of a game a player played (partial play), as the pages say it: "½", "¼", …
// or "40%".
const SHARES = [[1 / 2, "½"], [1 / 3, "⅓"], [2 / 3, "⅔"], [1 / 4, "¼"], [3 / 4, "¾"]];
const share = (w) => SHARES.find(([x]) => Math.abs(w - x) < 1e-9)?.[1] ?? `${Number((100 * w).toFixed(1))}%`;
// Whether a result (or a player's game) was played in part: a weight below 1.
const partial = (r) => typeof r.weight === "number" && r.weight < 1;

// A player as a game's line names them: "Maya", with their team and the share they
// played when not all of it: "Maya (red)", "Maya (played ½)", "Maya (red, played ½)".
const inLine = (r) => {
  const notes = [r.team, partial(r) ? `played ${share(r.weight)}` : null].filter(Boolean);
  return notes.length ? `${r.player} (${notes.join(", ")})` : r.player;
};

// A game's result in a line: "1. ann · 2. bo, cy", or with scores, best first:
// "ann 31 · bo, cy 25". Places are read as the league reads them: 1 + the entries ahead
// (a team is one entry), so a tie for first is followed by 3rd (1, 1, 3) and places
// given as 1, 3, 7 read 1, 2, 3.
function resultLine(results) {
  const scored = scoredGame(results);
  const groups = new Map();
  if (scored) {
    for (const r of [...results].sort((a, b) => b.score - a.score)) {
      if (!groups.has(r.score)) groups.set(r.score, []);
      groups.get(r.score).push(inLine(r));
    }
    return [...groups].map(([score, names]) => `${names.join(", ")} ${score}`).join(" · ");
  }
  const rank = (r) => r.rank ?? Infinity;
  const entries = new Map();
  for (const r of results) {
    const entry = r.team ? `team ${r.team}` : `player ${r.player}`;
    if (!entries.has(entry)) entries.set(entry, rank(r));
  }
  const place = (r) => 1 + [...entries.values()].filter((x) => x < rank(r)).length;
  for (const r of [...results].sort((a, b) => rank(a) - rank(b))) {
    const p = place(r);
    if (!groups.has(p)) groups.set(p, []);
    groups.get(p).push(inLine(r));
  }
  return [...groups].map(([p, names]) => `${p}. ${names.join(", ")}`).join(" · ");
}

// Times as the ledger keeps them: a day alone ("2026-11-20"), or an instant in UTC
// ("2026-11-29T13:14:29Z").
const dayOnly = (time) => /^\d{4}-\d{2}-\d{2}$/.test(time || "");
const pad2 = (n) => String(n).padStart(2, "0");
const localDay = (d) => `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;

// A game's time as the lists show it, short: a day alone as it is; an instant as its day
// and time of day in the browser's time zone (["2026-11-29", "14:14"]). Empty without a
// time.
function gameWhen(time) {
  if (!time) return [];
  if (dayOnly(time)) return [time];
  const d = new Date(time);
  if (Number.isNaN(d.getTime())) return [time];
  return [localDay(d), `${pad2(d.getHours())}:${pad2(d.getMinutes())}`];
}

// The cell of a game's time: the day, then the time of day (which goes under it on a
// phone in the games lists); the time as stored in its title. `extra`: more classes.
const whenCell = (time, extra = "") => h("td", { class: extra ? `when ${extra}` : "when", title: time || null },
  gameWhen(time).flatMap((part, i) => [i ? " " : "", h("span", {}, part)]));

// The day a game was played, as the correction's date field shows it: the day of an
// instant in the browser's time zone, as the list shows it.
const gameDay = (time) => (!time ? "" : dayOnly(time) ? time : gameWhen(time)[0]);

// A game's instant moved to another day (YYYY-MM-DD) at the same time of day in the
// browser's time zone, in UTC as the ledger keeps it.
function movedTo(time, day) {
  const d = new Date(time);
  const [y, m, dd] = day.split("-").map(Number);
  d.setFullYear(y, m - 1, dd);
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

// What a correction's lines would make the league refuse, in the page's words, before
// it is sent: a name twice, a single side, a team given two places. `lines`: each
// line's player, team (or "") and place or score; `what`: "place" or "score".
function correctionRefusal(lines, what) {
  const again = twice(lines.map((l) => l.player));
  if (again) return `${again} is entered twice.`;
  const sides = new Set(lines.map((l) => (l.team ? `team ${l.team}` : `player ${l.player}`)));
  if (sides.size < 2) return lines.some((l) => l.team) ? "Put the players in at least two teams." : "Enter at least two players.";
  for (const team of new Set(lines.map((l) => l.team).filter(Boolean))) {
    const groups = new Map();
    for (const l of lines.filter((x) => x.team === team)) {
      if (!groups.has(l.value)) groups.set(l.value, []);
      groups.get(l.value).push(l.player);
    }
    if (groups.size > 1) return teamSplit(team, what, [...groups].map(([v, names]) => [v, listed(names), names.length]));
  }
  return null;
}

// The league's games, newest first, each with "Correct" (an editor of its players and
// places in place) and "Void" (asked twice); under them the voided games, folded, each
// with "Restore". What a correction, a void or a restore answers is said beside the game
// it was done to, and scrolled into view: the list may be long, and a voided game leaves
// its answer (with "Undo") where it was.
function gamesList(id, ledger, voided, known, onDone) {
  const SHOWN = 20;
  let all = false;
  const box = h("div", { id: "games-list" });
  const auth = () => ({ "content-type": "application/json", authorization: `Bearer ${tokenFor(id)}` });
  const path = (key) => `/api/leagues/${id}/matches/${encodeURIComponent(key)}`;
  // The last answer: its message and where it goes (after the row of game `after`, else
  // before that of `before`; or after the row of voided game `voided`), until the next
  // correction, void or restore. `scroll`: brought into view when next drawn.
  let note = null;
  function tell(ok, content, at) {
    note = { el: h("div", { class: `message ${ok ? "ok" : "err"}`, role: "status" }, content), at, scroll: true };
  }
  // Puts the answer in its place in the list as drawn.
  function placeNote() {
    box.querySelector("#games-result")?.remove();
    if (!note) return;
    const row = (table, key) => (key === undefined || key === null ? null
      : [...box.querySelectorAll(`${table} tr[data-match]`)].find((tr) => tr.dataset.match === key));
    const after = row("#games", note.at.after) || row("#voided", note.at.voided);
    const before = after ? null : row("#games", note.at.before);
    const ref = after || before;
    let el;
    if (ref) {
      // As wide as the row's cells shown (a phone leaves the game's id out), as an
      // open correction is.
      const cells = [...ref.children].filter((td) => td.getClientRects().length).length || ref.children.length;
      el = h("tr", { class: "note", id: "games-result" }, h("td", { colspan: cells }, note.el));
      if (after) {
        // Below the game's correction when one is open under it.
        const next = after.nextElementSibling;
        (next && next.classList.contains("editing") ? next : after).after(el);
      } else before.before(el);
    } else {
      // The game is not in the list (the only game, voided): under it.
      el = h("div", { id: "games-result" }, note.el);
      const folded = box.querySelector("#voided-games");
      if (folded) folded.before(el); else box.append(el);
    }
    if (note.scroll) {
      note.scroll = false;
      el.scrollIntoView({ block: "nearest" });
    }
  }
  function editor(tr, game) {
    // As wide as the row's cells shown (a phone leaves the game's id out), so that the
    // form spans the table and adds no column to it.
    const cells = [...tr.children].filter((td) => td.getClientRects().length).length;
    // A game entered with scores is corrected as scores, one with places as places.
    const scored = scoredGame(game.results);
    const field = scored ? "score" : "rank";
    // A game of teams shows each player's team, to be edited like the rest (a player
    // moved to the other team takes that team's place too).
    const teamed = game.results.some((r) => r.team);
    const lines = h("div", { class: "edit-rows" }, game.results.map((r) => h("div", { class: "row game-row" },
      h("input", { class: "player-input", list: "known-players", value: r.player, "aria-label": "player", autocomplete: "off", required: true }),
      teamed ? h("input", { class: "team-input", list: `teams-${game.match}`, value: r.team ?? "", "aria-label": "team", placeholder: "team", autocomplete: "off" }) : null,
      scored
        ? h("input", { class: "place-input score-input", type: "number", step: "any", value: r.score ?? "", "aria-label": "score", required: true })
        : h("input", { class: "place-input", type: "number", min: 1, step: 1, value: r.rank ?? "", "aria-label": "place", required: true }),
      partial(r) ? h("span", { class: "share", title: "the share of the game played, kept as it was" }, `played ${share(r.weight)}`) : null)));
    const day = gameDay(game.time);
    // Today at most, unless the game was dated later already (it can then be moved back).
    const when = playedDay({ class: "edit-date", value: day, "aria-label": "date" });
    if (day > when.max) when.max = day;
    const check = h("div", { class: "correct-check" });
    const said = h("div", { class: "correct-said" });
    const form = h("form", { class: "correct-form" }, h("label", {}, "Date"), when,
      h("p", { class: "muted" }, scored ? "Each player's score (higher = better)." : "Each player's place (1 = winner; the same place for a tie).",
        teamed ? ` Each player's team: the players of a team share its ${scored ? "score" : "place"}.` : ""),
      teamed ? h("datalist", { id: `teams-${game.match}` }, [...new Set(game.results.map((r) => r.team).filter(Boolean))].map((t) => h("option", { value: t }))) : null,
      lines, check, said,
      h("div", { class: "row actions" }, h("button", { type: "submit", class: "save-correction" }, "Save correction"),
        h("button", { type: "button", class: "secondary", onclick: () => edit.remove() }, "Cancel")));
    const edit = h("tr", { class: "editing" }, h("td", { colspan: cells }, form));
    // Each line as edited.
    const edited = () => [...lines.querySelectorAll(".game-row")].map((row) => ({
      player: row.querySelector(".player-input").value.trim(),
      team: row.querySelector(".team-input")?.value.trim() ?? "",
      value: row.querySelector(".place-input").value.trim(),
    }));
    async function save() {
      const now = edited();
      // The ledger's rows carry each factor as a field of its own ("car": "red"); the
      // API takes them as "factors". Teams are as edited; weights are kept as they were.
      const results = game.results.map((r, i) => {
        const fixed = { player: now[i].player, [field]: Number(now[i].value) };
        if (now[i].team) fixed.team = now[i].team;
        const factors = {};
        for (const [k, v] of Object.entries(r)) {
          if (k === "weight") fixed[k] = v;
          else if (!["player", "rank", "score", "team"].includes(k)) factors[k] = v;
        }
        if (Object.keys(factors).length) fixed.factors = factors;
        return fixed;
      });
      const body = { results };
      // The same day keeps the game's time as entered (its time of day too); another
      // day keeps its time of day.
      if (when.value) body.time = when.value === day ? game.time : game.time && !dayOnly(game.time) ? movedTo(game.time, when.value) : when.value;
      // A name new to the league was confirmed as a new player before this is reached.
      const fresh = results.some((r) => !known().includes(r.player));
      try {
        const r = await api(`${path(game.match)}${fresh ? "?allow_new_players=true" : ""}`, { method: "PUT", headers: auth(), body: JSON.stringify(body) });
        setToken(id, tokenFor(id));
        tell(true, r.status === "unchanged" ? `Game ${r.match} already had these results and this date: nothing was changed.` : `Game ${r.match} corrected; the league was rated again.`,
          { after: game.match });
        await onDone();
      } catch (e) { said.replaceChildren(message(false, plain(e))); }
    }
    sayRefusedDates(form, (m) => said.replaceChildren(m), () => said.replaceChildren());
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      said.replaceChildren();
      check.replaceChildren();
      const refused = correctionRefusal(edited(), scored ? "score" : "place");
      if (refused) { said.replaceChildren(message(false, refused)); return; }
      // A name the league does not know is asked about first, as the game form asks
      // about a lookalike: a correction makes a new player only when told to.
      if (nameCheck(check, [...lines.querySelectorAll(".player-input")], known(), save,
        { every: true, confirm: ["It is a new player: save the correction", "They are new players: save the correction"] })) return;
      save();
    });
    tr.after(edit);
    edit.scrollIntoView({ block: "nearest" });
  }
  // Puts a voided game back as it was: rated again, in its place among the games. `at`:
  // where its failure is said (where the button pressed is).
  async function restore(key, at) {
    try {
      await api(`${path(key)}/restore`, { method: "POST", headers: auth() });
      setToken(id, tokenFor(id));
      tell(true, `Game ${key} restored; the league was rated again with it.`, { after: key });
      await onDone();
    } catch (e) {
      tell(false, plain(e, { done: "The game was not restored" }), at);
      placeNote();
    }
  }
  const restoreButton = (key, at, label = "Restore") => h("button", { type: "button", class: "secondary restore",
    "aria-label": label === "Undo" ? `Undo: restore game ${key}` : `Restore game ${key}`, onclick: () => restore(key, at) }, label);
  // The voided games, folded under the list (open once opened, through redraws).
  let voidedOpen = false;
  function voidedList() {
    if (!voided.length) return "";
    const details = h("details", { id: "voided-games", open: voidedOpen },
      h("summary", {}, `Voided games (${voided.length})`),
      h("p", { class: "muted" }, "Not rated. Restore one to rate it again as it was: its players, places and date."),
      h("table", { id: "voided" },
        h("thead", {}, h("tr", {}, h("th", { class: "minor" }, "Game"), h("th", { class: "left" }, "Result"), h("th", { class: "when" }, "Date"), h("th", { class: "act" }, ""))),
        h("tbody", {}, voided.map((v) => h("tr", { "data-match": v.match },
          h("td", { class: "minor" }, v.match), h("td", { class: "left result" }, resultLine(v.result.results)), whenCell(v.result.time),
          h("td", { class: "actions" }, restoreButton(v.match, { voided: v.match })))))));
    details.addEventListener("toggle", () => { voidedOpen = details.open; });
    return details;
  }
  function render() {
    const games = [...ledger].reverse();
    // A game just corrected or restored that falls beyond the first games shown (an old
    // one): every game is shown, so that it is seen in its place with its answer.
    const key = note?.scroll ? note.at.after : undefined;
    if (!all && key !== undefined && games.findIndex((g) => g.match === key) >= SHOWN) all = true;
    const drawn = all ? games : games.slice(0, SHOWN);
    const shares = drawn.some((g) => g.results.some(partial)) ? h("p", { class: "muted", id: "games-shares" }, SHARE_NOTE) : "";
    if (!games.length) { box.replaceChildren(h("p", { class: "muted" }, "No game yet."), voidedList()); placeNote(); return; }
    box.replaceChildren(h("div", { class: "scroll" }, h("table", { id: "games" },
      h("thead", {}, h("tr", {}, h("th", { class: "minor" }, "Game"), h("th", { class: "left" }, "Result"), h("th", { class: "when" }, "Date"), h("th", { class: "act" }, ""))),
      h("tbody", {}, drawn.map((g, i) => {
        const tr = h("tr", { "data-match": g.match },
          h("td", { class: "minor" }, g.match), h("td", { class: "left result" }, resultLine(g.results)), whenCell(g.time),
          h("td", { class: "actions" }));
        // Where a voided game's answer goes: where its row was, between its neighbours.
        const gone = { after: drawn[i - 1]?.match, before: drawn[i + 1]?.match };
        const voidButton = h("button", { type: "button", class: "remove void", "aria-label": `Void game ${g.match}`, onclick: async () => {
          if (!voidButton.classList.contains("armed")) {
            voidButton.classList.add("armed");
            voidButton.textContent = "Void it?";
            voidButton.setAttribute("aria-label", `Void game ${g.match}? Press again to void it`);
            return;
          }
          try {
            await api(path(g.match), { method: "DELETE", headers: auth() });
            setToken(id, tokenFor(id));
            tell(true, [`Game ${g.match} voided; the league was rated again without it. `, restoreButton(g.match, gone, "Undo")], gone);
            await onDone();
          } catch (e) {
            tell(false, plain(e), { after: g.match });
            placeNote();
          }
        } }, "Void");
        tr.lastChild.append(h("button", { type: "button", class: "secondary correct", "aria-label": `Correct game ${g.match}`, onclick: () => {
          if (tr.nextSibling?.classList.contains("editing")) return;
          // A new correction: the last answer no longer stands beside it.
          note = null;
          placeNote();
          editor(tr, g);
        } }, "Correct"), voidButton);
        return tr;
      })))),
      shares,
      games.length > SHOWN && !all ? h("button", { type: "button", class: "secondary", id: "all-games", onclick: () => { all = true; render(); } },
        `Show all ${plural(games.length, "game")}`) : "", voidedList());
    placeNote();
  }
  render();
  return { box, update(next, nextVoided) { ledger = next; voided = nextVoided; render(); } };
}

// The ledger as the API exports it (JSON Lines), each game with its results.
async function ledgerOf(id) {
  const res = await fetch(`/api/leagues/${id}/matches`);
  if (!res.ok) {
    let text = `${res.status} ${res.statusText}`;
    try { text = JSON.parse(await res.text()).error || text; } catch (_) { /* not JSON: the status */ }
    throw new ApiError(res.status, text);
  }
  return (await res.text()).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

// The `podium rate` command that rates a league's downloaded games (saved as
// league-ID.jsonl, the name the link gives) as the league does: its
// system, each parameter it sets away from the system's default as `--set NAME=VALUE` (the
// value as the API gives it, which is how the command line reads it: `taus=0,25`), and its
// factor kinds.
function offlineCommand(l, specs, kinds) {
  const spec = specs.find((s) => s.name === l.system);
  const defaults = new Map((spec ? spec.params : []).map((p) => [p.name, p.default]));
  const quoted = (v) => (/^[\w.,+-]+$/.test(v) ? v : `'${v.replace(/'/g, "'\\''")}'`);
  const sets = l.params.filter((p) => p.value !== defaults.get(p.name)).map((p) => ` --set ${p.name}=${quoted(p.value)}`);
  return `podium rate league-${l.id}.jsonl --system ${l.system}${sets.join("")}${kinds.map((k) => ` --factor ${k}`).join("")}`;
}

async function league(id) {
  const board = h("div", { class: "scroll", id: "board" });
  const factors = h("section", { id: "factors-section", hidden: true });
  const title = h("h1");
  const info = h("p", { class: "muted" });
  const data = h("section", { id: "data" });
  // What the system learned from every game (kalman-mmr: the filter it chose), beside the
  // settings it was given.
  const learned = h("div", { id: "learned" });
  let current = null, players = [], list = null;
  const systems = api("/api/systems");
  async function refresh() {
    const [l, rows, everyone, table, ledger, voided, seasons, specs] = await Promise.all([api(`/api/leagues/${id}`), api(`/api/leagues/${id}/leaderboard`),
      api(`/api/leagues/${id}/players`), api(`/api/leagues/${id}/factors`), ledgerOf(id), api(`/api/leagues/${id}/voided`), api(`/api/leagues/${id}/seasons`), systems]);
    current = l;
    // Every player of the league, not only the current season's board: the form's
    // names, the lookalike check, corrections and Tonight know them all.
    players = everyone.map((r) => r.player);
    document.title = `podium — ${l.name}`;
    setCrumbs(h("a", { href: `/leagues/${id}` }, l.name));
    title.textContent = l.name;
    info.textContent = `${l.system} · ${plural(l.players, "player")} · ${plural(l.matches, "game")} · click a column to sort`;
    // The board is the current season's: after a new season starts it is empty while the
    // league's count still holds every game.
    const later = seasons.length > 1;
    board.replaceChildren(rows.length ? leaderboardTable(id, rows, l.has_sigma, provisionalGames(l))
      : h("p", { class: "muted", id: "empty-board" }, later ? "No game yet this season." : "No game yet."));
    factors.hidden = table.length === 0;
    factors.replaceChildren(h("h2", {}, "Factors"),
      h("p", { class: "muted" }, "What a seat, a car or a faction adds to the rating of the player who has it, learned from the results like a player's rating.",
        later ? " Matches and win percentages count this season's games (— for a factor not yet played in it)." : ""),
      h("div", { class: "scroll" }, factorTable(table, l.has_sigma)));
    learned.replaceChildren(...(l.learned.length ? [
      h("p", {}, `Learned by ${l.system} from the ${plural(l.matches, "game")}, not set:`),
      h("ul", { class: "learned" }, l.learned.map((v) => h("li", { "data-name": v.name },
        h("strong", {}, `${v.name} ${Number.isInteger(v.value) ? v.value : fmt(v.value, 3)}`), " — ", v.doc))),
    ] : []));
    const kinds = [...new Set(table.map((f) => f.kind))];
    data.replaceChildren(h("h2", {}, "Data"), h("p", {}, h("a", { id: "download-games", href: `/api/leagues/${id}/matches?download=true`, download: `league-${id}.jsonl` },
      "Download the games (JSON Lines)", h("span", { class: "muted" }, ` as league-${id}.jsonl`)),
      " — rate them offline with ", h("code", { id: "offline-command" }, offlineCommand(l, specs, kinds)),
      seasons.length > 1 ? h("span", { id: "offline-seasons" }, ", which rates every game as one season, without the resets of the league's seasons") : null));
    if (list) list.update(ledger, voided);
    return { ledger, voided, kinds };
  }
  const { ledger, voided, kinds } = await refresh();
  list = gamesList(id, ledger, voided, () => players, refresh);
  const game = h("section", {}, h("h2", {}, "Enter a game"), gameForm(id, () => players, kinds, refresh));
  const games = h("section", { id: "games-section" }, h("h2", {}, "Games"),
    h("p", { class: "muted" }, "Newest first. Correct a game's players, places or date, or void it: the league is rated again as if it had always been so. A voided game can be restored from the list under the games."),
    list.box);
  const settings = h("section", {}, h("h2", {}, "Settings"), learned, await settingsForm(id, () => current, refresh));
  app.replaceChildren(h("section", {}, title, info, board), factors, game, games, settings, data);
  game.before(tonightSection(id, () => players, refresh));
  factors.after(seasonsSection(id, refresh));
}

// ---------- tonight: fair teams of the players present ----------
// The names an option of "Tonight" lists: "Sam, Kate; Tom, Omar" is two groups.
const nameGroups = (text) => text.split(";").map((g) => g.split(",").map((n) => n.trim()).filter(Boolean)).filter((g) => g.length);

// The options of "Tonight" as the page names them, for the API's `apart`, `together`, `fixed`.
const optionNames = { apart: "Keep apart", together: "Keep together", fixed: "Fixed team" };

// A refusal of the balance API said for the page: what is wrong and what to change.
function plainBalance(e) {
  const m = e.message || "";
  let x;
  if ((x = m.match(/^unknown player "(.*)": the league has not rated them/))) {
    return `“${x[1]}” is not among this league's players: add the name above to count them as a new player.`;
  }
  if ((x = m.match(/^(\d+) player\(s\) present, the split needs at least (\d+)/))) {
    return `${plural(Number(x[1]), "player")} ticked, but this format needs at least ${x[2]}: tick more players, or choose fewer teams or smaller tables.`;
  }
  if ((x = m.match(/^no split honours the options: ([\s\S]*)$/))) return `No split can keep to these options (${x[1]}): loosen one of them.`;
  if ((x = m.match(/^(apart|together|fixed): player "(.*)" is not among the players present/))) {
    return `“${x[2]}” is named in “${optionNames[x[1]]}” but is not ticked as here: tick them, or take the name out of the option.`;
  }
  if ((x = m.match(/^fixed: player "(.*)" is fixed to team (\d+) \(1-based\), but there are (\d+)/))) {
    return `“${x[1]}” is fixed to team ${x[2]}, but there are only ${x[3]}.`;
  }
  if ((x = m.match(/^player "(.*)" is named twice/))) return `“${x[1]}” is ticked twice.`;
  if ((x = m.match(/^newcomers\[\d+\]: "(.*)" is rated by the league/))) {
    return `“${x[1]}” has played in this league since the page was loaded: reload the page to count them at their rating.`;
  }
  if ((x = m.match(/^players: (\d+) named, at most (\d+)/))) return `${plural(Number(x[1]), "player")} ticked: at most ${x[2]} can be split at once.`;
  if ((x = m.match(/^the system cannot predict the split: ([\s\S]*)$/))) {
    return `This league's rating system cannot predict such a game (${x[1]}): choose 2 teams.`;
  }
  return plain(e);
}

// Percentage points: 0.0152 → "1.5".
const points = (x) => (100 * x).toFixed(1);

// A team's chance as a bar: an SVG whose second rectangle is as wide as the chance (the
// pages' policy refuses inline styles).
function chanceBar(p) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  for (const [k, v] of Object.entries({ viewBox: "0 0 100 4", preserveAspectRatio: "none", class: "bar", "aria-hidden": "true" })) svg.setAttribute(k, v);
  for (const [cls, width] of [["track", 100], ["fill", Math.min(100, 100 * p).toFixed(1)]]) {
    const r = document.createElementNS(ns, "rect");
    for (const [k, v] of Object.entries({ class: cls, width, height: 4 })) r.setAttribute(k, v);
    svg.append(r);
  }
  return svg;
}

// One proposed split: its teams (each with its chance to win) or tables (each player's
// chance to win the table), and how uneven it is.
function splitCard(split, rank, tables, onRecord) {
  const k = split.groups.length;
  const how = tables
    ? `Unevenness ${points(split.unevenness)} points: at each table, the gap between the likeliest winner's chance and an even one, added over the tables.`
    : `Unevenness ${points(split.unevenness)} points: the furthest any team's chance is from an even ${(100 / k).toFixed(1)}%.`;
  return h("div", { class: "split", "data-rank": rank },
    h("h3", {}, rank === 1 ? "Fairest split" : `Alternative ${rank - 1}`),
    h("p", { class: "muted unevenness" }, how),
    h("div", { class: "groups" }, split.groups.map((g, t) => h("div", { class: "group-card", "data-group": t + 1 },
      h("div", { class: "group-head" }, h("strong", {}, `${tables ? "Table" : "Team"} ${t + 1}`),
        tables ? null : h("span", { class: "chance" }, `${fmt(100 * g.win)}% to win`)),
      tables ? null : chanceBar(g.win),
      h("ul", {}, g.players.map((p, i) => h("li", {}, p, tables ? h("span", { class: "chance" }, ` ${fmt(100 * g.player_win[i])}%`) : null)))))),
    h("div", { class: "row actions" }, tables
      ? split.groups.map((g, t) => h("button", { type: "button", class: "secondary record-table", onclick: () => onRecord(g.players) }, `Record table ${t + 1}`))
      : h("button", { type: "button", class: "record-split", onclick: (ev) => onRecord(split, ev.target) }, "Record this game")));
}

// The game form filled with `players`, places 1, 2, … to be corrected: the result of one
// table is then entered there.
function fillGameForm(players) {
  const form = document.getElementById("game-form");
  const rows = form.querySelector("#game-rows");
  while (rows.children.length > players.length) rows.lastElementChild.remove();
  while (rows.children.length < players.length) form.querySelector("#add-player").click();
  [...rows.children].forEach((row, i) => {
    row.querySelector(".player-input").value = players[i];
    row.querySelector(".place-input").value = i + 1;
  });
  form.querySelector("#game-result").replaceChildren(message(true, "Filled in from the table: set each player's place, then press “Submit game”."));
  form.scrollIntoView({ behavior: "smooth", block: "start" });
  rows.querySelector(".place-input")?.focus({ preventScroll: true });
}

// "Tonight": tick who is here, choose teams or tables, get the fairest splits by the
// league's ratings, and record the game played from one of them. known(): the league's
// players now; onDone(): redraws the league after a game is recorded.
function tonightSection(id, known, onDone) {
  // Beyond this many players, only those added by name are listed.
  const MANY = 40;
  const here = new Set();
  const extra = new Set();
  const list = h("div", { id: "tonight-players", class: "checks" });
  const count = h("span", { id: "tonight-count", class: "muted" });
  const showCount = () => { count.textContent = `${plural(here.size, "player")} ticked`; };
  const everyone = h("button", { type: "button", class: "secondary small", id: "tonight-all", onclick: () => { known().forEach((p) => here.add(p)); extra.forEach((p) => here.add(p)); draw(); } }, "All");
  function draw() {
    const all = [...new Set([...known(), ...extra])].sort((a, b) => a.localeCompare(b));
    const many = all.length > MANY;
    const names = many ? all.filter((p) => here.has(p) || extra.has(p)) : all;
    everyone.hidden = many;
    list.replaceChildren(...names.map((p) => h("label", { class: "check", "data-player": p },
      h("input", { type: "checkbox", value: p, checked: here.has(p), onchange: (ev) => {
        if (ev.target.checked) here.add(p); else here.delete(p);
        showCount();
      } }), p)));
    if (many) list.append(h("span", { class: "muted", id: "tonight-many" }, `${plural(all.length, "player")} in the league: add those here by name below.`));
    else if (!names.length) list.append(h("span", { class: "muted" }, "No player yet: teams are made from the league's ratings, so enter a first game below."));
    showCount();
  }
  const add = h("input", { id: "tonight-add", list: "known-players", placeholder: "a name", autocomplete: "off", "aria-label": "add a player" });
  const check = h("div", { id: "tonight-name-check" });
  function take() {
    const name = add.value.trim();
    if (!name) return;
    if (!known().includes(name)) extra.add(name);
    here.add(name);
    add.value = "";
    check.replaceChildren();
    draw();
  }
  // Adds the name typed, once a name like a player's is settled (the known one, or a new
  // player); then goes on with `then` (Make teams, pressed with a name still typed).
  function addName(then = () => {}) {
    if (!add.value.trim()) { check.replaceChildren(); then(); return; }
    const go = () => { take(); then(); };
    if (!nameCheck(check, [add], known(), go, { confirm: ["It is a new player: add them", "They are new players: add them"] })) go();
  }
  add.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); addName(); } });
  // A name flagged, then changed or taken away: the warning about it no longer stands.
  add.addEventListener("input", () => check.replaceChildren());
  const format = h("select", { id: "tonight-format" },
    [2, 3, 4].map((k) => h("option", { value: `teams:${k}` }, `${k} teams`)),
    [3, 4, 5, 6].map((n) => h("option", { value: `tables:${n}` }, `tables of at most ${n}, each a free-for-all`)));
  const apart = h("input", { id: "tonight-apart", placeholder: "Sam, Kate", autocomplete: "off" });
  const together = h("input", { id: "tonight-together", placeholder: "Tom, Omar", autocomplete: "off" });
  const fixed = h("input", { id: "tonight-fixed", placeholder: "Sam=1, Tom=2", autocomplete: "off" });
  const out = h("div", { id: "tonight-result" });
  const recorded = h("div", { id: "tonight-recorded" });
  let tables = false;

  // The teams of `split` with a place each, a date (today unless changed), then the game.
  function recordForm(split, button) {
    const old = button.closest(".split").querySelector(".record-form");
    if (old) { old.remove(); return; }
    const k = split.groups.length;
    const places = split.groups.map((g, t) => h("input", { type: "number", min: 1, max: k, step: 1, class: "place-input team-place",
      "aria-label": `place of team ${t + 1}` }));
    const date = playedDay({ class: "tonight-date", value: today(), "aria-label": "date" });
    const said = h("div");
    const form = h("form", { class: "record-form" },
      h("p", { class: "muted" }, "Each team's place (1 = winner; the same place for a draw), then record: the board is rated again at once."),
      split.groups.map((g, t) => h("div", { class: "row team-row" }, places[t], h("span", {}, h("strong", {}, `Team ${t + 1}`), `: ${g.players.join(", ")}`))),
      h("label", {}, "Date"), date, said,
      h("div", { class: "row actions" }, h("button", { type: "submit", class: "save-split" }, "Record the game"),
        h("button", { type: "button", class: "secondary", onclick: () => form.remove() }, "Cancel")));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const ranks = places.map((p) => Number(p.value));
      if (ranks.some((r) => !Number.isInteger(r) || r < 1)) {
        said.replaceChildren(message(false, "Give every team its place: 1 for the winner, 2 for the next, the same place for a draw."));
        return;
      }
      const results = split.groups.flatMap((g, t) => g.players.map((player) => ({ player, team: `Team ${t + 1}`, rank: ranks[t] })));
      const body = { results };
      if (date.value) body.time = date.value;
      try {
        const r = await api(`/api/leagues/${id}/matches`, { method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${tokenFor(id)}` }, body: JSON.stringify(body) });
        setToken(id, tokenFor(id));
        out.replaceChildren();
        recorded.replaceChildren(message(true, `Game ${r.match} recorded. Rating changes:`), ...changeTables(r));
        await onDone();
        draw();
      } catch (e) { said.replaceChildren(message(false, plain(e, { done: "The game was not recorded" }))); }
    });
    sayRefusedDates(form, (m) => said.replaceChildren(m), () => said.replaceChildren());
    button.closest(".split").append(form);
  }

  async function propose() {
    recorded.replaceChildren();
    const players = [...here];
    if (players.length < 2) { out.replaceChildren(message(false, "Tick at least two players who are here.")); return; }
    const [kind, n] = format.value.split(":");
    const body = { players, top: 3, [kind]: Number(n) };
    // Names added by hand that the league has not rated: a first game, balanced at the
    // rating the system gives a newcomer.
    const newcomers = players.filter((p) => !known().includes(p));
    if (newcomers.length) body.newcomers = newcomers;
    const groups = { apart: nameGroups(apart.value), together: nameGroups(together.value) };
    for (const [key, value] of Object.entries(groups)) {
      if (value.some((g) => g.length < 2)) {
        out.replaceChildren(message(false, `“${optionNames[key]}” needs two names or more in a group, separated by commas (groups by semicolons).`));
        return;
      }
      if (value.length) body[key] = value;
    }
    const pins = {};
    for (const part of fixed.value.split(",").map((s) => s.trim()).filter(Boolean)) {
      const m = part.match(/^(.+?)\s*=\s*(\d+)$/);
      if (!m || Number(m[2]) < 1) {
        out.replaceChildren(message(false, `“${part}” in “${optionNames.fixed}”: write a name, “=” and a team or table from 1, as in Sam=1.`));
        return;
      }
      pins[m[1]] = Number(m[2]);
    }
    if (Object.keys(pins).length) body.fixed = pins;
    try {
      const r = await api(`/api/leagues/${id}/balance`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      tables = kind === "tables";
      const rest = r.splits.length - 1;
      const after = rest === 0 ? "" : rest === 1 ? "; the next-best below" : `; the ${rest} next-best below`;
      out.replaceChildren(
        h("p", { class: "muted", id: "tonight-how" }, r.exact
          ? `The fairest of all ${r.examined.toLocaleString("en")} splits, by the league's ratings${after}.`
          : `The fairest of ${r.examined.toLocaleString("en")} splits examined, by the league's ratings${after}.`),
        newcomers.length ? h("p", { class: "muted", id: "tonight-newcomers" },
          `${newcomers.join(", ")} ${newcomers.length === 1 ? "plays a first game and is" : "play a first game and are"} counted at a new player's rating.`) : "",
        ...r.splits.map((s, i) => splitCard(s, i + 1, tables, tables ? fillGameForm : recordForm)));
    } catch (e) { out.replaceChildren(message(false, plainBalance(e))); }
  }

  const form = h("form", { id: "tonight-form" },
    h("p", { class: "muted" }, "Tick who is here, choose the format, and get the fairest split by the league's ratings: each team's chance to win as close to even as can be."),
    h("div", { class: "row tonight-head" }, h("strong", {}, "Who is here"), count,
      everyone,
      h("button", { type: "button", class: "secondary small", id: "tonight-none", onclick: () => { here.clear(); draw(); } }, "None")),
    list,
    h("div", { class: "row" }, add, h("button", { type: "button", class: "secondary", id: "tonight-add-button", onclick: addName }, "+ Add")),
    check,
    h("label", { for: "tonight-format" }, "Format"), format,
    h("details", { id: "tonight-options" }, h("summary", {}, "Options: keep apart, keep together, fixed teams"),
      h("label", { for: "tonight-apart" }, optionNames.apart, " ", h("span", { class: "doc" }, "no two of them on one team; names by commas, groups by semicolons")), apart,
      h("label", { for: "tonight-together" }, optionNames.together, " ", h("span", { class: "doc" }, "all of them on one team")), together,
      h("label", { for: "tonight-fixed" }, optionNames.fixed, " ", h("span", { class: "doc" }, "a player's team or table, numbered from 1")), fixed),
    h("div", { class: "row actions" }, h("button", { type: "submit", id: "make-teams" }, "Make teams")));
  // A name still typed in the field is added first (and asked about, if it looks like a
  // player's): the split is made once it is settled.
  form.addEventListener("submit", (ev) => { ev.preventDefault(); out.replaceChildren(); addName(propose); });
  draw();
  // The board is drawn again whenever the league changes (a game entered, corrected or
  // voided): the players to tick follow it.
  const board = document.getElementById("board");
  if (board) new MutationObserver(draw).observe(board, { childList: true });
  return h("section", { id: "tonight" }, h("h2", {}, "Tonight"), form, out, recorded);
}

// ---------- player page ----------
// The player's games and the seasons started since their first, in the order they
// happened: {game} or {season, before} (before: the rating the reset started from).
function timeline(history, seasons) {
  const items = [];
  const starting = (n) => seasons.filter((s) => s.games_before === n)
    .forEach((s) => items.push({ season: s, before: n > 0 ? history[n - 1].after : history[0].before }));
  history.forEach((g, n) => { starting(n); items.push({ game: g }); });
  starting(history.length);
  return items;
}

// A season's start as the page says it: "season 2 (Spring) began after game 3: soft
// reset, 1597.00 → 1547.00 ± 169.00".
const resetLine = (s, before) => `season ${s.number} (${s.name}) began after game ${s.games_before}: ${s.reset.kind} reset, ` +
  `${fmt(before, 2)} → ${fmt(s.rating, 2)}${s.sigma !== undefined ? ` ± ${fmt(s.sigma, 2)}` : ""}`;

// The rating after each game, and at each season's start a dashed marker with the
// season's label and the reset as a point of the line (a step: the rating holds until
// the season starts, then jumps to the reset), so the line ends at the rating now.
function chart(items) {
  // About as wide in units as the page gives it in pixels, so that the labels keep their
  // size instead of shrinking with the drawing on a phone or growing on a wide screen.
  const W = Math.round(Math.min(1040, Math.max(300, window.innerWidth - 48)));
  const H = Math.round(Math.min(390, Math.max(220, W * 0.375)));
  const L = 48, R = 12, T = 22, B = 28;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  const el = (tag, attrs, text, parent = svg) => {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    parent.append(e);
    return e;
  };
  const games = items.filter((it) => it.game).length;
  const resets = items.filter((it) => it.season);
  svg.setAttribute("aria-label", `rating over ${plural(games, "game")}` +
    (resets.length ? `; ${resets.map((it) => resetLine(it.season, it.before)).join("; ")}` : ""));
  if (!games) return svg;
  const first = items.find((it) => it.game).game.before;
  const values = [first, ...items.map((it) => (it.game ? it.game.after : it.season.rating))];
  let lo = Math.min(...values), hi = Math.max(...values);
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
  const x = (i) => L + (i * (W - L - R)) / Math.max(1, items.length);
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    el("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) });
    el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(0));
  }
  el("text", { x: L, y: H - 8 }, "start");
  el("text", { x: W - R, y: H - 8, "text-anchor": "end" }, items[items.length - 1].game ? `after game ${games}` : "now");
  const line = [[x(0), y(first)]];
  const dots = [];
  let now = first;
  items.forEach((it, k) => {
    const at = x(k + 1);
    if (it.game) {
      now = it.game.after;
      line.push([at, y(now)]);
      dots.push({ cx: at, cy: y(now), value: now, title: `${it.game.match}: ${now.toFixed(2)}` });
    } else {
      const s = it.season;
      const mark = el("g", { class: "season-mark", "data-season": s.number });
      el("title", {}, resetLine(s, it.before), mark);
      el("line", { class: "season-line", x1: at, x2: at, y1: T - 4, y2: H - B }, undefined, mark);
      const anchor = at > W - R - 40 ? "end" : at < L + 40 ? "start" : "middle";
      el("text", { class: "season-label", x: at, y: T - 8, "text-anchor": anchor }, `season ${s.number}`, mark);
      line.push([at, y(now)], [at, y(s.rating)]);
      now = s.rating;
      dots.push({ cx: at, cy: y(now), value: now, title: resetLine(s, it.before), season: s.number });
    }
  });
  el("polyline", { class: "line", points: line.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ") });
  for (const d of dots) {
    const dot = el("circle", { class: d.season ? "dot reset" : "dot", cx: d.cx, cy: d.cy, r: d.season ? 4 : 3, "data-rating": d.value,
      ...(d.season ? { "data-season": d.season } : {}) });
    el("title", {}, d.title, dot);
  }
  return svg;
}

async function player(id, name) {
  const [l, p, rows, everyone] = await Promise.all([api(`/api/leagues/${id}`), api(`/api/leagues/${id}/players/${encodeURIComponent(name)}`),
    api(`/api/leagues/${id}/leaderboard`), api(`/api/leagues/${id}/players`)]);
  // The place the league page shows: among the players whose ratings count.
  const position = rows.filter((r) => !r.provisional && (r.rating > p.rating || (r.rating === p.rating && r.player < p.player))).length + 1;
  document.title = `podium — ${name}`;
  setCrumbs(h("a", { href: `/leagues/${id}` }, l.name), h("span", {}, name));
  const left = Math.max(1, provisionalGames(l) - p.games);
  // A player who has not played since the season started is not on its board (games
  // and wins count from the season's start): no place, no season figures.
  const summary = p.in_season === false
    ? h("p", { id: "player-summary" }, `not played this season · rating ${fmt(p.rating, 2)}`, p.sigma !== undefined ? ` ± ${fmt(p.sigma, 2)}` : "")
    : h("p", { id: "player-summary" }, p.provisional ? `new player · rating so far ≈${fmt(p.rating, 2)}` : `#${position} · rating ${fmt(p.rating, 2)}`,
      p.sigma !== undefined ? ` ± ${fmt(p.sigma, 2)}` : "",
      ` · ${plural(p.games, "game")} · won ${fmt(p.win_pct)}% (an average player: ${fmt(p.expected_win_pct)}%)`,
      p.provisional ? h("span", { class: "badge", title: "provisional: too few games for the system to be sure" }, `${plural(left, "more game")} to count`) : null);
  const items = timeline(p.history, p.seasons || []);
  const games = [...p.history].reverse();
  // The columns the system fills: K for the Elo family, σ for the systems that keep one,
  // the factors (car, seat) when the player's entries carried any.
  const withK = games.some((g) => g.k !== null);
  const withSigma = games.some((g) => g.sigma_after !== undefined);
  const withFactors = games.some((g) => g.factors);
  // Performances sit on the rating scale (whole points); scores run from 0 to 1.
  const score = (x) => fmt(x, l.performances ? 0 : 3);
  const table = h("table", { id: "history" },
    h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", { class: "minor" }, "When"), h("th", {}, "Place"),
      withFactors ? h("th", { class: "left minor" }, "Factors") : null, h("th", { class: "minor" }, "Before"),
      h("th", { class: "minor" }, "Expected"), h("th", { class: "minor" }, "Actual"), withK ? h("th", { class: "minor" }, "K") : null, h("th", {}, "Change"),
      h("th", {}, "After"), withSigma ? h("th", { class: "minor" }, "σ after") : null)),
    h("tbody", {}, [...items].reverse().map(({ game: g, season, before }) => g ? h("tr", {},
      h("td", {}, g.match), whenCell(g.time, "left minor"), h("td", {}, `${g.place} of ${g.entries}`,
        partial(g) ? h("span", { class: "share" }, ` played ${share(g.weight)}`) : null),
      withFactors ? h("td", { class: "left factors minor" }, (g.factors || []).map((f) => `${f.kind}=${f.value} (${signed(f.before)})`).join(", ")) : null,
      h("td", { class: "minor" }, fmt(g.before)), h("td", { class: "minor" }, score(g.expected)), h("td", { class: "minor" }, score(g.actual)),
      withK ? h("td", { class: "minor" }, g.k === null ? "—" : fmt(g.k, 1)) : null, deltaCell(g.delta), h("td", {}, fmt(g.after)),
      withSigma ? h("td", { class: "minor" }, fmt(g.sigma_after)) : null)
      // A season's start: the reset, from the rating before it to the one after.
      : h("tr", { class: "reset", "data-season": season.number, title: resetLine(season, before) },
        h("td", {}, `Season ${season.number}: ${season.name}`), whenCell(season.start_time, "left minor"),
        h("td", {}, `${season.reset.kind} reset`), withFactors ? h("td", { class: "minor" }, "") : null,
        h("td", { class: "minor" }, fmt(before)), h("td", { class: "minor" }, ""), h("td", { class: "minor" }, ""),
        withK ? h("td", { class: "minor" }, "") : null, deltaCell(season.rating - before), h("td", {}, fmt(season.rating)),
        withSigma ? h("td", { class: "minor" }, season.sigma === undefined ? "" : fmt(season.sigma)) : null))));
  const resets = items.filter((it) => it.season);
  app.replaceChildren(
    h("section", {}, h("h1", {}, name), summary, chart(items),
      resets.length ? h("p", { class: "muted", id: "chart-resets" }, "Dashed lines: a new season began and the ratings were reset — ",
        resets.map((it) => resetLine(it.season, it.before)).join("; "), ".") : null),
    h("section", {}, h("h2", {}, "Games"), h("p", { class: "muted", id: "history-how" }, howItMoves(withK, l.performances, withFactors),
      !withK && games.some(partial) ? ` ${SHARE_NOTE}` : ""),
      h("div", { class: "scroll" }, table)));
  app.firstChild.after(rivalsSection(id, name, everyone.map((r) => r.player).sort((a, b) => a.localeCompare(b))));
}

// What the player page's columns mean, in the terms of the league's system.
function howItMoves(withK, performances, withFactors) {
  const factors = withFactors ? " Factors: what the entry's car, seat or faction added to its strength before the game." : "";
  if (withK) return "Change = K × (actual − expected), scaled by the share of the game played: a result better than expected raises the rating." + factors;
  if (performances) return "Expected: the performance the rating" + (withFactors ? " and the entry's factors" : "") +
    " predicted; actual: the performance the place shows, both on the rating scale. The rating moves towards the actual performance, the more the less sure the system is (σ): a result better than expected raises it." + factors;
  return "Expected: the score the ratings predicted, from 0 (behind everyone) to 1 (ahead of everyone); actual: the score the place gave. The rating moves by how far the result beat or missed the expectation, the more the wider its σ." + factors;
}

// What "played ½" means, where a list shows it.
const SHARE_NOTE = "“Played ½”: the player played that share of the game, which counts for their rating as that share of a game.";

// ---------- head-to-head on the player's page ----------
const pct = (x) => `${fmt(100 * x)}%`;

// How many meetings more or fewer than the ratings expected a player finished ahead in.
const beyond = (surplus) => `${fmt(Math.abs(surplus), 1)} ${Math.abs(surplus) === 1 ? "meeting" : "meetings"} ${surplus >= 0 ? "more" : "fewer"} than expected`;

// One opponent's record as a sentence: "Lena — ahead in 3 of 12 meetings: a share of
// 25.0% where the ratings expected 50.7%: 3.1 meetings fewer than expected".
const rivalLine = (v) => `${v.opponent} — ahead in ${v.ahead} of ${plural(v.meetings, "meeting")}${v.ties ? ` (${plural(v.ties, "tie")})` : ""}: ` +
  `a share of ${pct(v.actual_share)} where the ratings expected ${pct(v.expected_share)}: ${beyond(v.surplus)}.`;

// Two players' meetings side by side: finishes ahead, ties, shares, today's chance.
function versusView(a, b, r) {
  const v = r.versus;
  const rows = [];
  if (v.meetings > 0) {
    rows.push(["Finished ahead", v.ahead, v.behind], ["Share of the meetings (ties count half)", pct(v.actual_share), pct(1 - v.actual_share)],
      ["Share the ratings expected at the time", pct(v.expected_share), pct(1 - v.expected_share)]);
  }
  rows.push(["Chance to finish ahead today", pct(r.today), pct(1 - r.today)]);
  const said = v.meetings > 0
    ? `${plural(v.meetings, "meeting")} (games with both, on different sides)${v.ties ? `, ${plural(v.ties, "tie")}` : ""}${v.together ? `; ${plural(v.together, "more game")} on one team` : ""}. ` +
      `${a} finished ahead in ${beyond(v.surplus)}.`
    : `${a} and ${b} have not yet played on different sides${v.together ? ` (${plural(v.together, "game")} on one team)` : ""}.`;
  return h("div", { id: "versus-result" }, h("h3", {}, `${a} vs ${b}`), h("p", { id: "versus-said" }, said),
    h("div", { class: "scroll" }, h("table", { id: "versus-table" },
      h("thead", {}, h("tr", {}, h("th", { class: "left" }, ""), h("th", {}, a), h("th", {}, b))),
      h("tbody", {}, rows.map(([label, x, y]) => h("tr", {}, h("td", { class: "left label" }, label), h("td", {}, x), h("td", {}, y)))))));
}

// The player's rivals (nemesis, favourite opponent, most frequent opponents) and the
// head-to-head with any other player of the league, picked from a list.
function rivalsSection(id, name, others) {
  const MIN = 3;
  const box = h("div", { id: "rivals" }, h("p", { class: "muted" }, "Loading…"));
  const pick = h("select", { id: "versus-opponent", "aria-label": "opponent" },
    h("option", { value: "" }, "another player…"), others.filter((p) => p !== name).map((p) => h("option", { value: p }, p)));
  const out = h("div", { id: "versus" });
  async function compare(opponent) {
    if (!opponent) { out.replaceChildren(message(false, "Pick a player to compare with.")); return; }
    pick.value = opponent;
    try {
      const r = await api(`/api/leagues/${id}/versus?a=${encodeURIComponent(name)}&b=${encodeURIComponent(opponent)}`);
      out.replaceChildren(versusView(name, opponent, r));
    } catch (e) { out.replaceChildren(message(false, plain(e))); }
  }
  api(`/api/leagues/${id}/players/${encodeURIComponent(name)}/rivals?min_meetings=${MIN}&frequent=5`).then((r) => {
    const special = [["Nemesis", r.nemesis, "the opponent who finished ahead of them most beyond what the ratings expected"],
      ["Favourite opponent", r.favourite, "the one they finished ahead of most beyond it"]];
    box.replaceChildren(
      h("ul", { class: "rivals" }, special.map(([label, v, doc]) => h("li", { "data-rival": label.toLowerCase().split(" ")[0] },
        h("strong", {}, `${label}: `), v ? rivalLine(v) : `none yet — ${doc}, among opponents met ${MIN} times or more.`))),
      r.frequent.length ? h("div", { class: "scroll" }, h("table", { id: "rivals-table" },
        h("thead", {}, h("tr", {}, h("th", { class: "left" }, "Most met"), h("th", { title: "meetings" }, "Met"), h("th", {}, "Ahead"), h("th", { class: "minor" }, "Behind"),
          h("th", { class: "minor" }, "Tied"), h("th", {}, "Share"), h("th", { title: "expected" }, h("span", { class: "full" }, "Expected"), h("span", { class: "short" }, "Exp.")), h("th", {}, ""))),
        h("tbody", {}, r.frequent.map((v) => h("tr", { "data-opponent": v.opponent },
          h("td", { class: "left" }, h("a", { href: playerHref(id, v.opponent) }, v.opponent)), h("td", {}, v.meetings), h("td", {}, v.ahead),
          h("td", { class: "minor" }, v.behind), h("td", { class: "minor" }, v.ties), h("td", {}, pct(v.actual_share)), h("td", {}, pct(v.expected_share)),
          h("td", { class: "actions" }, h("button", { type: "button", class: "secondary vs", "aria-label": `Compare with ${v.opponent}`, onclick: () => compare(v.opponent) }, "vs")))))))
        : h("p", { class: "muted" }, `No opponent met ${MIN} times or more yet.`));
  }).catch((e) => box.replaceChildren(message(false, plain(e))));
  return h("section", { id: "rivals-section" }, h("h2", {}, "Rivals"),
    h("p", { class: "muted" }, `A meeting: a game both played, on different sides. Share: the meetings in which ${name} finished ahead (ties count half), beside the share the ratings expected at the time of each.`),
    box,
    h("h3", {}, "Head-to-head"),
    h("form", { id: "versus-form", class: "row", onsubmit: (ev) => { ev.preventDefault(); compare(pick.value); } },
      pick, h("button", { type: "submit", id: "versus-go" }, "Compare")),
    out);
}

async function route() {
  const path = location.pathname;
  let m;
  try {
    if (path === "/" || path === "") await home();
    else if ((m = path.match(/^\/leagues\/(\d+)\/?$/))) await league(m[1]);
    else if ((m = path.match(/^\/leagues\/(\d+)\/players\/(.+)$/))) await player(m[1], decodeURIComponent(m[2]));
    else app.replaceChildren(message(false, "No such page."), h("p", {}, h("a", { href: "/" }, "← All leagues")));
  } catch (e) {
    // A league or a player that is not there (a mistyped address, an old link): said in
    // plain words, with the way back.
    const inLeague = path.match(/^\/leagues\/(\d+)\/players\//);
    const back = inLeague && !/^no league/.test(e.message)
      ? h("a", { href: `/leagues/${inLeague[1]}` }, "← Back to the league") : h("a", { href: "/" }, "← All leagues");
    app.replaceChildren(message(false, e instanceof ApiError ? plain(e) : e.message), h("p", { id: "way-back" }, back));
  }
}

// ---------- seasons ----------
// The league page's seasons: the current season's name, a form to start a new one
// (name, reset, admin token) and the past seasons, each opening its final board.

// What each reset does, as the form says it.
const RESETS = {
  soft: "pulled towards the average",
  hard: "everyone starts again",
  none: "ratings carry on",
};

// A season's heading: "Spring · 12 games · since 2025-03-01".
function seasonLine(s) {
  const since = s.start_time ? ` · since ${s.start_time.slice(0, 10)}` : "";
  const reset = s.reset ? ` · ${s.reset.kind} reset` : "";
  return `${plural(s.matches, "game")}${since}${reset}`;
}

// The section; `onStarted` redraws the rest of the league page (the board becomes the
// new season's). It reloads its list whenever the league's board is drawn again.
function seasonsSection(id, onStarted) {
  const section = h("section", { id: "seasons-section" }, h("h2", {}, "Seasons"));
  const now = h("p", { id: "current-season" });
  const past = h("div", { id: "past-seasons" });
  const out = h("div", { id: "season-result" });
  const name = h("input", { id: "season-name", required: true, placeholder: "e.g. Spring 2025", autocomplete: "off" });
  const kind = h("select", { id: "season-reset" }, Object.entries(RESETS).map(([k, doc]) => h("option", { value: k }, `${k} — ${doc}`)));
  const pull = h("input", { id: "season-pull", type: "number", min: 0, max: 1, step: 0.05, value: 0.5 });
  const widen = h("input", { id: "season-widen", type: "number", min: 0, step: 0.05, value: 0.25 });
  const soft = h("div", { id: "season-soft", class: "params" },
    h("label", { for: "season-pull" }, "Pull ", h("span", { class: "doc" }, "0 keeps the ratings, 1 puts everyone at the average")), pull,
    h("label", { for: "season-widen" }, "Widen ", h("span", { class: "doc" }, "how much less sure ratings become, as a share of a new player's uncertainty (systems with σ)")), widen);
  const showSoft = () => { soft.hidden = kind.value !== "soft"; };
  kind.addEventListener("change", showSoft);
  showSoft();
  const token = h("input", { id: "season-token", type: "password", value: getToken(id), placeholder: "admin token", autocomplete: "off", "data-league-token": id });
  const form = h("form", { id: "season-form" },
    h("label", { for: "season-name" }, "New season"), name,
    h("label", { for: "season-reset" }, "Start from"), kind, soft,
    h("label", { for: "season-token" }, "League admin token"), token,
    h("div", { class: "row actions" }, h("button", { type: "submit", id: "start-season" }, "Start the new season")), out);
  const details = h("details", { id: "season-new" }, h("summary", {}, "Start a new season"),
    h("p", { class: "muted" }, "The current board is kept as it stands and stays viewable below; games entered afterwards count for the new season."), form);
  section.append(now, past, details);

  async function load() {
    const seasons = await api(`/api/leagues/${id}/seasons`);
    const cur = seasons.find((s) => s.current) || seasons[seasons.length - 1];
    now.replaceChildren(h("strong", {}, cur.name), ` — current season · ${seasonLine(cur)}`);
    const closed = seasons.filter((s) => !s.current).reverse();
    past.replaceChildren(...(closed.length ? [h("ul", { class: "seasons" }, closed.map((s) => {
      const box = h("div", { class: "scroll season-board" });
      const item = h("details", { class: "season", "data-season": s.number }, h("summary", {}, h("strong", {}, s.name), ` · ${seasonLine(s)}`), box);
      item.addEventListener("toggle", async () => {
        if (!item.open || box.childElementCount) return;
        try {
          const [l, rows] = await Promise.all([api(`/api/leagues/${id}`), api(`/api/leagues/${id}/seasons/${s.number}/board`)]);
          box.replaceChildren(rows.length ? leaderboardTable(id, rows, l.has_sigma, provisionalGames(l)) : h("p", { class: "muted" }, "No game in this season."));
          const table = box.querySelector("table");
          if (table) table.id = `season-${s.number}-board`;
        } catch (e) { box.replaceChildren(message(false, plain(e))); }
      });
      return h("li", {}, item);
    }))] : [h("p", { class: "muted" }, "No past season yet.")]));
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const reset = { kind: kind.value };
    if (kind.value === "soft") { reset.pull = Number(pull.value); reset.widen = Number(widen.value); }
    out.replaceChildren();
    try {
      const s = await api(`/api/leagues/${id}/seasons`, { method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token.value.trim()}` },
        body: JSON.stringify({ name: name.value.trim(), reset }) });
      setToken(id, token.value.trim());
      out.replaceChildren(message(true, `${s.name} started; the last season's board is kept below.`));
      name.value = "";
      await onStarted();
      await load();
    } catch (e) { out.replaceChildren(message(false, plain(e))); }
  });

  // The board is drawn again after every game, correction or void: the match counts
  // are read again then.
  queueMicrotask(() => {
    const board = document.getElementById("board");
    if (board) new MutationObserver(() => load().catch(() => {})).observe(board, { childList: true });
  });
  load().catch((e) => now.replaceChildren(message(false, plain(e))));
  return section;
}

route();
