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

async function api(path, options) {
  const res = await fetch(path, options);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = text; }
  if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
  return data;
}

const tokenKey = (id) => `podium-token-${id}`;
const getToken = (id) => localStorage.getItem(tokenKey(id)) || "";
// Remembers a token that worked, and fills it into the page's other token fields.
const setToken = (id, t) => {
  if (!t) return;
  localStorage.setItem(tokenKey(id), t);
  document.querySelectorAll("input[type=password]").forEach((i) => { if (!i.value) i.value = t; });
};

const fmt = (x, d = 1) => (typeof x === "number" ? x.toFixed(d) : x ?? "");
const signed = (x, d = 1) => (x > 0 ? "+" : "") + x.toFixed(d);
const deltaCell = (x) => h("td", { class: x > 0 ? "up" : x < 0 ? "down" : "" }, signed(x));
const message = (ok, text) => h("div", { class: `message ${ok ? "ok" : "err"}`, role: "status" }, text);
const playerHref = (id, p) => `/leagues/${id}/players/${encodeURIComponent(p)}`;

function setCrumbs(...parts) {
  crumbs.replaceChildren(...parts.flatMap((p) => [" / ", p]));
}

// ---------- league list ----------
async function home() {
  document.title = "podium — leagues";
  setCrumbs();
  const [leagues, systems] = await Promise.all([api("/api/leagues"), api("/api/systems")]);
  const list = h("section", {}, h("h1", {}, "Leagues"));
  if (leagues.length === 0) list.append(h("p", { class: "muted" }, "No league yet: create one below."));
  else {
    list.append(h("div", { class: "scroll" }, h("table", { id: "leagues" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "League"), h("th", {}, "System"), h("th", {}, "Players"), h("th", {}, "Matches"))),
      h("tbody", {}, leagues.map((l) => h("tr", {},
        h("td", {}, l.id), h("td", {}, h("a", { href: `/leagues/${l.id}` }, l.name)),
        h("td", {}, l.system), h("td", {}, l.ready ? l.players : "loading…"), h("td", {}, l.ready ? l.matches : "")))))));
  }
  const out = h("div");
  const name = h("input", { id: "league-name", required: true, placeholder: "Thursday board games" });
  const system = h("select", { id: "league-system" }, systems.map((s) => h("option", { value: s.name, selected: s.name === "sme" }, `${s.name} — ${s.summary}`)));
  const serverToken = h("input", { id: "server-token", type: "password", autocomplete: "off", placeholder: "only if this server asks for one" });
  const form = h("form", { id: "create-league" },
    h("label", { for: "league-name" }, "Name"), name,
    h("label", { for: "league-system" }, "Rating system"), system,
    h("label", { for: "server-token" }, "Server admin token"), serverToken,
    h("div", { class: "row actions" }, h("button", { type: "submit" }, "Create league")), out);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const headers = { "content-type": "application/json" };
      if (serverToken.value) headers.authorization = `Bearer ${serverToken.value}`;
      const r = await api("/api/leagues", { method: "POST", headers,
        body: JSON.stringify({ name: name.value, system: system.value }) });
      setToken(r.id, r.admin_token);
      out.replaceChildren(message(true, "League created. Its admin token (kept in this browser; copy it for the others at the table — it is shown only once):"),
        h("p", { class: "token", id: "new-token" }, r.admin_token), h("p", {}, h("a", { href: `/leagues/${r.id}` }, "Open the league →")));
    } catch (e) { out.replaceChildren(message(false, e.message)); }
  });
  app.replaceChildren(list, h("section", {}, h("h2", {}, "New league"), form));
}

// ---------- league page ----------
const columns = [
  ["position", "#"], ["player", "Player"], ["rating", "Rating"], ["sigma", "σ"], ["games", "Games"],
  ["win_pct", "Win %"], ["expected_win_pct", "Exp. win %"], ["net_pct", "Net"], ["avg_size", "Avg size"], ["last_played", "Last played"],
];

// Rows drawn at first, and added by each press of "Show more": a league of thousands
// of players stays quick to draw and to sort.
const BOARD_ROWS = 500;

function leaderboardTable(id, rows, hasSigma) {
  const cols = columns.filter(([k]) => hasSigma || k !== "sigma");
  let sortKey = "position", dir = 1, shown = BOARD_ROWS;
  const tbody = h("tbody");
  const more = h("button", { type: "button", id: "show-more", onclick: () => { shown += BOARD_ROWS; render(); } });
  const heads = cols.map(([k, label]) => h("th", { class: "sortable", "data-key": k, onclick: () => {
    dir = sortKey === k ? -dir : (k === "player" || k === "position" ? 1 : -1);
    sortKey = k; render();
  } }, label));
  function render() {
    const sorted = [...rows].sort((a, b) => {
      const x = a[sortKey], y = b[sortKey];
      return (typeof x === "string" ? x.localeCompare(y) : (x ?? 0) - (y ?? 0)) * dir;
    });
    heads.forEach((th) => th.classList.remove("asc", "desc"));
    const active = heads.find((th) => th.dataset.key === sortKey);
    if (active) active.classList.add(dir > 0 ? "asc" : "desc");
    const hidden = sorted.length - shown;
    more.hidden = hidden <= 0;
    more.textContent = `Show ${Math.min(BOARD_ROWS, hidden)} more (${hidden} not shown)`;
    tbody.replaceChildren(...sorted.slice(0, shown).map((r) => h("tr", { class: r.provisional ? "provisional" : "", "data-player": r.player },
      cols.map(([k]) => {
        if (k === "player") return h("td", {}, h("a", { href: playerHref(id, r.player) }, r.player),
          r.provisional ? h("span", { class: "badge", title: "provisional: too few games to be sure" }, "provisional") : null);
        if (k === "rating" || k === "sigma") return h("td", { title: String(r[k]) }, fmt(r[k], 1));
        if (k === "net_pct") return deltaCell(r[k]);
        // Percentages and the mean size always with one decimal, so that a column reads
        // alike whether or not a value happens to be whole (12.0 beside 35.7).
        if (k === "win_pct" || k === "expected_win_pct" || k === "avg_size") return h("td", {}, fmt(r[k], 1));
        return h("td", {}, r[k]);
      }))));
  }
  render();
  return h("div", {}, h("table", { id: "leaderboard" }, h("thead", {}, h("tr", {}, heads)), tbody), more);
}

// The factors' table: what a car, a seat or a faction adds to an entry's strength, with
// its σ for the systems that keep one (an advantage within a σ of 0 may be chance).
function factorTable(rows, hasSigma) {
  return h("table", { id: "factors" },
    h("thead", {}, h("tr", {}, h("th", { class: "left" }, "Kind"), h("th", {}, "Value"), h("th", {}, "Rating"),
      hasSigma ? h("th", {}, "σ") : null, h("th", {}, "Matches"), h("th", {}, "Win %"), h("th", {}, "Exp. win %"))),
    h("tbody", {}, rows.map((f) => h("tr", { "data-factor": `${f.kind}=${f.value}` },
      h("td", { class: "left" }, f.kind), h("td", {}, f.value), h("td", { title: String(f.rating) }, fmt(f.rating, 1)),
      hasSigma ? h("td", { class: "sigma", title: String(f.sigma) }, fmt(f.sigma, 1)) : null,
      h("td", {}, f.matches), h("td", {}, fmt(f.win_pct)), h("td", {}, fmt(f.expected_win_pct))))));
}

// kinds: the factor kinds the league has seen, each offered as a column of the form.
function gameForm(id, players, kinds, onDone) {
  const rows = h("div", { id: "game-rows" });
  const datalist = h("datalist", { id: "known-players" }, players.map((p) => h("option", { value: p })));
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
      h("input", { class: "player-input", list: "known-players", placeholder: "player", "aria-label": "player", required: true }),
      h("input", { class: "place-input", type: "number", min: 1, step: 1, value: place, "aria-label": "place", required: true }),
      ...[...kindInputs.children].map(() => factorInput()),
      h("button", { type: "button", class: "remove", onclick: () => row.remove(), "aria-label": "remove" }, "✕"));
    rows.append(row);
    showFactors();
  }
  for (const k of kinds.length ? kinds : [""]) addKind(k);
  for (let i = 1; i <= 3; i++) addRow(i);
  const token = h("input", { id: "token", type: "password", value: getToken(id), placeholder: "admin token", autocomplete: "off" });
  const out = h("div", { id: "game-result" });
  const form = h("form", { id: "game-form" }, datalist, kindList,
    h("p", { class: "muted" }, "One line per player with their place (1 = winner). Give tied players the same place."),
    h("label", { for: "factor-kind" }, "Factors (optional) ", h("span", { class: "doc" },
      "what else decides a result — the seat, the car, the faction — rated beside the players; one kind per column, each player's on their line")),
    h("div", { class: "row" }, kindInputs, h("button", { type: "button", class: "secondary", id: "add-kind",
      onclick: () => addKind("") }, "+ Add factor")),
    rows,
    h("div", { class: "row" }, h("button", { type: "button", class: "secondary", id: "add-player",
      onclick: () => addRow(rows.children.length + 1) }, "+ Add player")),
    h("label", { for: "token" }, "League admin token"), token,
    h("div", { class: "row actions" }, h("button", { type: "submit", id: "submit-game" }, "Submit game")),
    out);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const named = [...kindInputs.children].map((_, i) => kindOf(i));
    const twice = named.find((k, i) => k && named.indexOf(k) !== i);
    if (twice) {
      out.replaceChildren(message(false, `The factor kind "${twice}" is given twice: give each kind once.`));
      return;
    }
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
      const r = await api(`/api/leagues/${id}/matches`, { method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token.value.trim()}` },
        body: JSON.stringify({ results }) });
      setToken(id, token.value.trim());
      out.replaceChildren(message(true, `Game ${r.match} recorded. Rating changes:`),
        h("div", { class: "scroll" }, h("table", { id: "changes" },
          h("thead", {}, h("tr", {}, h("th", {}, "Place"), h("th", {}, "Player"), h("th", {}, "Before"), h("th", {}, "After"), h("th", {}, "Change"))),
          h("tbody", {}, r.changes.map((c) => h("tr", {}, h("td", {}, c.place), h("td", {}, c.player),
            h("td", {}, fmt(c.before)), h("td", {}, fmt(c.after)), deltaCell(c.delta)))))),
        r.factor_changes.length ? h("div", { class: "scroll" }, h("table", { id: "factor-changes" },
          h("thead", {}, h("tr", {}, h("th", { class: "left" }, "Factor"), h("th", {}, "Value"), h("th", {}, "Before"), h("th", {}, "After"), h("th", {}, "Change"))),
          h("tbody", {}, r.factor_changes.map((c) => h("tr", {}, h("td", { class: "left" }, c.kind), h("td", {}, c.value),
            h("td", {}, fmt(c.before)), h("td", {}, fmt(c.after)), deltaCell(c.delta)))))) : null);
      rows.querySelectorAll(".player-input, .factor-input").forEach((i) => { i.value = ""; });
      onDone();
    } catch (e) { out.replaceChildren(message(false, e.message)); }
  });
  return form;
}

async function settingsForm(id, league, onDone) {
  const systems = await api("/api/systems");
  const system = h("select", { id: "settings-system" }, systems.map((s) => h("option", { value: s.name, selected: s.name === league.system }, s.name)));
  const params = h("div", { class: "params" });
  function showParams() {
    const spec = systems.find((s) => s.name === system.value);
    const current = system.value === league.system ? Object.fromEntries(league.params.map((p) => [p.name, p.value])) : {};
    params.replaceChildren(...spec.params.flatMap((p) => [
      h("label", { for: `param-${p.name}` }, p.name, " ", h("span", { class: "doc" }, `${p.doc} (default ${p.default})`)),
      h("input", { id: `param-${p.name}`, "data-param": p.name, "data-default": p.default, value: current[p.name] ?? p.default }),
    ]));
  }
  system.addEventListener("change", showParams);
  showParams();
  const token = h("input", { id: "settings-token", type: "password", value: getToken(id), placeholder: "admin token", autocomplete: "off" });
  const out = h("div");
  const form = h("form", { id: "settings-form" },
    h("label", { for: "settings-system" }, "Rating system"), system, params,
    h("label", { for: "settings-token" }, "League admin token"), token,
    h("div", { class: "row actions" }, h("button", { type: "submit" }, "Save and recompute")), out);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const config = {};
    params.querySelectorAll("input").forEach((i) => { if (i.value.trim() !== i.dataset.default) config[i.dataset.param] = i.value.trim(); });
    try {
      const r = await api(`/api/leagues/${id}`, { method: "PATCH",
        headers: { "content-type": "application/json", authorization: `Bearer ${token.value.trim()}` },
        body: JSON.stringify({ system: system.value, config }) });
      setToken(id, token.value.trim());
      out.replaceChildren(message(true, `Now rated by ${r.system}; ${r.matches} matches recomputed.`));
      onDone();
    } catch (e) { out.replaceChildren(message(false, e.message)); }
  });
  return form;
}

async function league(id) {
  const board = h("div", { class: "scroll", id: "board" });
  const factors = h("section", { id: "factors-section", hidden: true });
  const title = h("h1");
  const info = h("p", { class: "muted" });
  // What the system learned from every game (kalman-mmr: the filter it chose), beside the
  // settings it was given.
  const learned = h("div", { id: "learned" });
  let current = null;
  async function refresh() {
    const [l, rows, table] = await Promise.all([api(`/api/leagues/${id}`), api(`/api/leagues/${id}/leaderboard`),
      api(`/api/leagues/${id}/factors`)]);
    current = l;
    document.title = `podium — ${l.name}`;
    setCrumbs(h("a", { href: `/leagues/${id}` }, l.name));
    title.textContent = l.name;
    info.textContent = `${l.system} · ${l.players} players · ${l.matches} matches · click a column to sort`;
    board.replaceChildren(rows.length ? leaderboardTable(id, rows, l.has_sigma) : h("p", { class: "muted", id: "empty-board" }, "No game yet."));
    factors.hidden = table.length === 0;
    factors.replaceChildren(h("h2", {}, "Factors"),
      h("p", { class: "muted" }, "What a seat, a car or a faction adds to the rating of the player who has it, learned from the results like a player's rating."),
      h("div", { class: "scroll" }, factorTable(table, l.has_sigma)));
    learned.replaceChildren(...(l.learned.length ? [
      h("p", {}, `Learned by ${l.system} from the ${l.matches} games, not set:`),
      h("ul", { class: "learned" }, l.learned.map((v) => h("li", { "data-name": v.name },
        h("strong", {}, `${v.name} ${Number.isInteger(v.value) ? v.value : fmt(v.value, 3)}`), " — ", v.doc))),
    ] : []));
    return { rows, kinds: [...new Set(table.map((f) => f.kind))] };
  }
  const { rows, kinds } = await refresh();
  const game = h("section", {}, h("h2", {}, "Enter a game"), gameForm(id, rows.map((r) => r.player), kinds, refresh));
  const settings = h("section", {}, h("h2", {}, "Settings"), learned, await settingsForm(id, current, refresh));
  app.replaceChildren(h("section", {}, title, info, board), factors, game, settings,
    h("section", {}, h("h2", {}, "Data"), h("p", {}, h("a", { href: `/api/leagues/${id}/matches` }, "Download the ledger (JSON Lines)"),
      " — rate it offline with ", h("code", {}, `podium rate ledger.jsonl --system ${current.system}${kinds.map((k) => ` --factor ${k}`).join("")}`))));
}

// ---------- player page ----------
function chart(history) {
  const W = 640, H = 240, L = 48, R = 12, T = 12, B = 28;
  const pts = history.length ? [history[0].before, ...history.map((g) => g.after)] : [];
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "rating over time");
  const el = (tag, attrs, text) => {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  if (pts.length < 2) return svg;
  let lo = Math.min(...pts), hi = Math.max(...pts);
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
  const x = (i) => L + (i * (W - L - R)) / (pts.length - 1);
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    el("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) });
    el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(0));
  }
  el("text", { x: L, y: H - 8 }, "start");
  el("text", { x: W - R, y: H - 8, "text-anchor": "end" }, `after game ${pts.length - 1}`);
  el("polyline", { class: "line", points: pts.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") });
  pts.forEach((v, i) => { if (i > 0) el("circle", { class: "dot", cx: x(i), cy: y(v), r: 3 }, undefined).append(
    Object.assign(document.createElementNS("http://www.w3.org/2000/svg", "title"), { textContent: `${history[i - 1].match}: ${v.toFixed(2)}` })); });
  return svg;
}

async function player(id, name) {
  const [l, p] = await Promise.all([api(`/api/leagues/${id}`), api(`/api/leagues/${id}/players/${encodeURIComponent(name)}`)]);
  document.title = `podium — ${name}`;
  setCrumbs(h("a", { href: `/leagues/${id}` }, l.name), h("span", {}, name));
  const summary = h("p", {}, `#${p.position} · rating ${fmt(p.rating, 2)}`, p.sigma !== undefined ? ` ± ${fmt(p.sigma, 2)}` : "",
    ` · ${p.games} games · win ${fmt(p.win_pct)}% (an average player: ${fmt(p.expected_win_pct)}%)`,
    p.provisional ? h("span", { class: "badge" }, "provisional") : null);
  const games = [...p.history].reverse();
  // The columns the system fills: K for the Elo family, σ for the systems that keep one,
  // the factors (car, seat) when the player's entries carried any.
  const withK = games.some((g) => g.k !== null);
  const withSigma = games.some((g) => g.sigma_after !== undefined);
  const withFactors = games.some((g) => g.factors);
  // Performances sit on the rating scale (whole points); scores run from 0 to 1.
  const score = (x) => fmt(x, l.performances ? 0 : 3);
  const table = h("table", { id: "history" },
    h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "When"), h("th", {}, "Place"),
      withFactors ? h("th", { class: "left" }, "Factors") : null, h("th", {}, "Before"),
      h("th", {}, "Expected"), h("th", {}, "Actual"), withK ? h("th", {}, "K") : null, h("th", {}, "Change"),
      h("th", {}, "After"), withSigma ? h("th", {}, "σ after") : null)),
    h("tbody", {}, games.map((g) => h("tr", {},
      h("td", {}, g.match), h("td", { class: "left" }, g.time || ""), h("td", {}, `${g.place} of ${g.entries}`),
      withFactors ? h("td", { class: "left factors" }, (g.factors || []).map((f) => `${f.kind}=${f.value} (${signed(f.before)})`).join(", ")) : null,
      h("td", {}, fmt(g.before)), h("td", {}, score(g.expected)), h("td", {}, score(g.actual)),
      withK ? h("td", {}, g.k === null ? "—" : fmt(g.k, 1)) : null, deltaCell(g.delta), h("td", {}, fmt(g.after)),
      withSigma ? h("td", {}, fmt(g.sigma_after)) : null))));
  app.replaceChildren(
    h("section", {}, h("h1", {}, name), summary, chart(p.history)),
    h("section", {}, h("h2", {}, "Games"), h("p", { class: "muted", id: "history-how" }, howItMoves(withK, l.performances, withFactors)),
      h("div", { class: "scroll" }, table)));
}

// What the player page's columns mean, in the terms of the league's system.
function howItMoves(withK, performances, withFactors) {
  const factors = withFactors ? " Factors: what the entry's car, seat or faction added to its strength before the game." : "";
  if (withK) return "Change = K × (actual − expected), scaled by the share of the game played: a result better than expected raises the rating." + factors;
  if (performances) return "Expected: the performance the rating" + (withFactors ? " and the entry's factors" : "") +
    " predicted; actual: the performance the place shows, both on the rating scale. The rating moves towards the actual performance, the more the less sure the system is (σ): a result better than expected raises it." + factors;
  return "Expected: the score the ratings predicted, from 0 (behind everyone) to 1 (ahead of everyone); actual: the score the place gave. The rating moves by how far the result beat or missed the expectation, the more the wider its σ." + factors;
}

async function route() {
  const path = location.pathname;
  let m;
  try {
    if (path === "/" || path === "") await home();
    else if ((m = path.match(/^\/leagues\/(\d+)\/?$/))) await league(m[1]);
    else if ((m = path.match(/^\/leagues\/(\d+)\/players\/(.+)$/))) await player(m[1], decodeURIComponent(m[2]));
    else app.replaceChildren(message(false, "No such page."));
  } catch (e) {
    app.replaceChildren(message(false, e.message));
  }
}

route();
