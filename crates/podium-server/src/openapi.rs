//! The OpenAPI 3.1 document served at `/api/openapi.json`. A test checks that its paths
//! and methods are exactly the router's ([`crate::api_routes`]).

use serde_json::{json, Value};

fn param(name: &str, doc: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}, "description": doc})
}

fn query(name: &str, ty: &str, doc: &str) -> Value {
    query_of(name, json!({"type": ty}), doc)
}

fn query_of(name: &str, schema: Value, doc: &str) -> Value {
    json!({"name": name, "in": "query", "required": false, "schema": schema, "description": doc})
}

/// A query parameter that must be given.
fn required_query(name: &str, ty: &str, doc: &str) -> Value {
    json!({"name": name, "in": "query", "required": true, "schema": {"type": ty}, "description": doc})
}

/// A whole number ≥ 0 as a query parameter.
fn count(name: &str, doc: &str) -> Value {
    query_of(name, json!({"type": "integer", "minimum": 0}), doc)
}

fn error(doc: &str) -> Value {
    json!({"description": doc, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

fn ok(doc: &str, schema: Value) -> Value {
    json!({"description": doc, "content": {"application/json": {"schema": schema}}})
}

fn unavailable() -> Value {
    json!({"description": "The league is being loaded from its ledger (after a start); try again after Retry-After seconds",
        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

fn body(schema: &str) -> Value {
    json!({"required": true, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}})
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

const BEARER: &str = "bearer";

/// What a league's system learned from every match.
fn learned() -> Value {
    json!({"type": "array", "description": "What the system learned from every match rather than of one player (kalman-mmr: the filter in use, the calibration, the newcomer prior); empty for the other systems and while the league is loaded",
        "items": {"type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "number"}, "doc": {"type": "string"}}}})
}

/// A player's standing (the leaderboard's row `standing`, its position null off the
/// current season's board), every rated match of theirs and the seasons started since
/// their first.
fn player(standing: &Value) -> Value {
    let game = json!({"type": "object", "properties": {
        "match": {"type": "string"}, "seq": {"type": "integer"}, "time": {"type": ["string", "null"]},
        "entries": {"type": "integer"},
        "factors": {"type": "array", "items": schema_ref("FactorChange"),
            "description": "The factors the player's entry carried, each with its change in that match; absent when it carried none"}}});
    let season = json!({"type": "object", "required": ["number", "name", "start_seq", "reset", "games_before", "rating"], "properties": {
        "number": {"type": "integer"}, "name": {"type": "string"},
        "start_seq": {"type": "integer", "description": "The ledger position the season starts at"},
        "start_time": {"type": ["string", "null"], "description": "When it started, in a league of dated matches"},
        "reset": {"type": "object", "description": "How the ratings started it, as the season lists it"},
        "games_before": {"type": "integer", "description": "How many of the player's matches (of `history`) come before it"},
        "rating": {"type": "number", "description": "The player's rating just after the season's reset"},
        "sigma": {"type": "number", "description": "Its σ, for systems that keep one"}}});
    let mut schema = standing.clone();
    let props = &mut schema["properties"];
    props["position"] = json!({"type": ["integer", "null"], "description": "The player's place on the current season's board; null when they have not played in it (in_season false)"});
    props["in_season"] = json!({"type": "boolean", "description": "Whether the player has played in the league's current season, so is on its board (games, wins and percentages count from the season's start); false after a new season until their first game in it"});
    props["history"] = json!({"type": "array", "items": {"allOf": [schema_ref("Change"), game]}});
    props["seasons"] = json!({"type": "array", "items": season,
        "description": "Each season that started after the player's first match, in order: where it falls among their matches and their rating just after its reset"});
    schema["required"] = json!([
        "player",
        "rating",
        "games",
        "position",
        "in_season",
        "history",
        "seasons"
    ]);
    schema
}

/// The OpenAPI document.
#[must_use]
pub fn document() -> Value {
    let id = param("id", "League id");
    let m = param("match", "Match id");
    let p = param("player", "Player id");
    let auth = json!([{ BEARER: [] }]);
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "podium league server",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A match ledger for multiplayer games with ratings derived from it. Writes need the league's admin token as `Authorization: Bearer <token>` and a JSON body with `Content-Type: application/json` (415 otherwise); creating a league needs the server's admin token when the server has one. Errors are `{\"error\": \"...\"}`, except those the HTTP layer answers before a request reaches the API, with an empty body, no Content-Type and the connection closed: 414 for a URI over 65,534 bytes, 431 for a request head over about 400 KB, 400 for a request line or header that is not HTTP. A league still being loaded answers 503 with Retry-After."
        },
        "paths": {
            "/healthz": {"get": {"summary": "Whether the process runs (for a liveness probe)",
                "responses": {"200": ok("`{status: \"ok\", instance}`", json!({"type": "object"}))}}},
            "/readyz": {"get": {"summary": "Whether this server serves every league: its database answers and every league is loaded (for a load balancer)",
                "responses": {"200": ok("`{ready: true, instance, database: \"ok\", loading: []}`", json!({"type": "object"})),
                    "503": {"description": "Not ready: `database` says why, `loading` lists the leagues still being loaded; Retry-After"}}}},
            "/api/openapi.json": {"get": {"summary": "This document", "responses": {"200": ok("The OpenAPI document", json!({"type": "object"}))}}},
            "/api/systems": {"get": {"summary": "Every rating system with its parameters and defaults",
                "responses": {"200": ok("Systems", json!({"type": "array", "items": {"type": "object"}}))}}},
            "/api/leagues": {
                "get": {"summary": "Every league", "responses": {"200": ok("Leagues", json!({"type": "array", "items": schema_ref("League")}))}},
                "post": {"summary": "Create a league", "description": "Needs the server's admin token when it was started with one; otherwise anyone may, a bounded number of times per hour.",
                    "security": [{ BEARER: [] }, {}], "requestBody": body("NewLeague"),
                    "responses": {"201": ok("Created: the id and the admin token (shown only now)", schema_ref("Created")),
                                  "401": error("The server's admin token is needed"), "409": error("Another league has the name (around spaces and letter case aside); the message names it"), "413": error("Body too large"),
                                  "415": error("Not a JSON body"), "422": error("Unknown system or bad parameter"),
                                  "429": error("Too many leagues created in the last hour without a credential (Retry-After says when to try again)")}}
            },
            "/api/leagues/{id}": {
                "get": {"summary": "A league with its system and parameters in force", "parameters": [id],
                    "responses": {"200": ok("The league (`ready` false while it is being loaded)", schema_ref("League")), "404": error("No such league")}},
                "patch": {"summary": "Change name, system or config; recomputes every rating from the ledger",
                    "parameters": [id], "security": auth, "requestBody": body("LeaguePatch"),
                    "responses": {"200": ok("The league as now configured", schema_ref("League")),
                        "401": error("Missing or wrong token"), "403": error("Another league's token"), "404": error("No such league"),
                        "409": error("Another league has the name (around spaces and letter case aside); the message names it"),
                        "415": error("Not a JSON body"), "422": error("Unknown system, bad parameter, or a ledger the system cannot rate"), "503": unavailable()}}
            },
            "/api/leagues/{id}/leaderboard": {"get": {"summary": "The leaderboard, best first, ratings at full precision",
                "description": "Without limit and offset, the whole board: sent zstd- or gzip-encoded when Accept-Encoding allows (Vary: Accept-Encoding), with an ETag; If-None-Match with it gets a 304 while the board is unchanged.",
                "parameters": [id, count("limit", "At most this many rows (default: all)"), count("offset", "Skip this many rows first"),
                    query_of("order", json!({"enum": ["established", "rating"], "default": "established"}), "established (default): players whose rating is not provisional first, by rating descending then name, then provisional players in the same order; rating: every player by rating descending then name"),
                    {"name": "If-None-Match", "in": "header", "required": false, "schema": {"type": "string"}, "description": "The ETag of a whole board the client has"}],
                "responses": {"200": ok("Rows; header X-Total-Count gives the number of players", json!({"type": "array", "items": schema_ref("Standing")})),
                    "304": {"description": "The whole board is still the one If-None-Match named"},
                    "400": error("limit or offset not a whole number ≥ 0, or order neither established nor rating (the message names the parameter)"), "404": error("No such league"), "503": unavailable()}}},
            "/api/leagues/{id}/factors": {"get": {"summary": "The factors' table: each car, seat or faction the league's matches carried, with its rating (what it adds to an entry's strength), by kind, best rated first",
                "parameters": [id], "responses": {"200": ok("Rows; empty for a league without factors", json!({"type": "array", "items": schema_ref("FactorStanding")})),
                    "404": error("No such league"), "503": unavailable()}}},
            "/api/leagues/{id}/players": {"get": {"summary": "Every player of the league, whatever season they last played in (the leaderboard lists the current season's only), by name in code-point order",
                "parameters": [id], "responses": {"200": ok("The players; empty for a league without a game", json!({"type": "array", "items": {"type": "object", "required": ["player", "rating", "in_season"], "properties": {
                    "player": {"type": "string"}, "rating": {"type": "number", "description": "The rating now, as the leaderboard gives it"},
                    "in_season": {"type": "boolean", "description": "Whether the player has played in the current season, so is on its board"}}}})),
                    "404": error("No such league"), "503": unavailable()}}},
            "/api/leagues/{id}/players/{player}": {"get": {"summary": "A player's standing and every rated match with its breakdown",
                "parameters": [id, p], "responses": {"200": ok("The player", schema_ref("Player")), "404": error("No such league or player"), "503": unavailable()}}},
            "/api/leagues/{id}/players/{player}/rivals": {"get": {"summary": "A player's nemesis (the opponent who beats them most beyond what the ratings expected at the time), favourite opponent (the one they beat most beyond it) and most frequent opponents",
                "parameters": [id, p, count("min_meetings", "The fewest meetings an opponent needs to count (default 3)"), count("frequent", "How many of the most met opponents to list (default 5, at most 100 are listed)")],
                "responses": {"200": ok("The rivals", json!({"type": "object"})), "400": error("min_meetings or frequent not a whole number ≥ 0, or a query parameter the operation does not take (the message names it)"), "404": error("No such league or player"), "503": unavailable()}}},
            "/api/leagues/{id}/versus": {"get": {"summary": "Two players' meetings: who finished ahead how often (ties apart), the share the ratings expected at the time, and today's chance",
                "parameters": [id, required_query("a", "string", "The player"), required_query("b", "string", "The opponent")],
                "responses": {"200": ok("The record, from a's side", json!({"type": "object"})), "400": error("a or b missing, or a query parameter the operation does not take (the message names it)"), "404": error("No such league or player"), "422": error("a and b are the same player"), "503": unavailable()}}},
            "/api/leagues/{id}/balance": {"post": {"summary": "The fairest split of the players present into teams (`teams`, optional `sizes`) or free-for-all tables (`tables`: seats per table), by the league's predictions; options `apart`, `together` (lists of players), `fixed` (player → team from 1), `newcomers` (players present the league has not rated, balanced at a newcomer's rating; any other unknown player is a 404), `top`",
                "parameters": [id],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["players"],
                    "properties": {"players": {"type": "array", "items": {"type": "string"}}, "teams": {"type": "integer"}, "sizes": {"type": "array", "items": {"type": "integer"}},
                        "tables": {"type": "integer"}, "apart": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
                        "together": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}, "fixed": {"type": "object", "additionalProperties": {"type": "integer"}}, "newcomers": {"type": "array", "items": {"type": "string"}}, "top": {"type": "integer"}}}}}},
                "responses": {"200": ok("The splits, fairest first, with `exact` (every split examined) and `examined`", json!({"type": "object"})),
                    "404": error("No such league, or a player it has not rated"), "415": error("Not a JSON body"),
                    "422": error("A name no split could use, its field named: `players[k]` not a valid player id, `apart[k]` or `together[k]` a group of fewer than two, `newcomers[k]` not among the players or rated by the league; or a format the players cannot fill, a duplicate player, or options no split honours (the message says why)"), "503": unavailable()}}},
            "/api/leagues/{id}/matches": {
                "get": {"summary": "The ledger in rating order as JSON Lines (what `podium rate` reads); voided matches left out. Each factor is a field of its row (`\"car\": \"ferrari\"`, read by `podium rate --factor car`)",
                    "parameters": [id, query("download", "boolean", "true: sent as a file to save, with Content-Disposition: attachment; filename=\"league-{id}.jsonl\"")],
                    "responses": {"200": {"description": "One match per line", "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
                        "400": error("download neither true nor false"), "404": error("No such league")}},
                "post": {"summary": "Enter a match, or an array of matches. A retry with the same id and content stores nothing (200); the same id with other content is 409",
                    "description": "A body that is an array enters each match in order and answers 200 with an array of the same length: each item is a Submitted with `code` 201 or 200, or `{code, error}`. The server bounds the players per match and the matches per request.",
                    "parameters": [id], "security": auth,
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [schema_ref("Match"), {"type": "array", "items": schema_ref("Match")}]}}}},
                    "responses": {"201": ok("Stored, with each player's rating change; Location gives the match's address (its id percent-encoded)", schema_ref("Submitted")),
                        "200": ok("A retry: already stored, nothing changed; or the answers to an array of matches", json!({"oneOf": [schema_ref("Submitted"), {"type": "array", "items": {"type": "object"}}]})),
                        "401": error("Missing or wrong token"), "403": error("Another league's token"),
                        "404": error("No such league"), "409": error("Same id, other content"), "413": error("Body too large, or too many matches in one request"),
                        "415": error("Not a JSON body"), "422": error("Invalid match (the message names the field, e.g. `results[2].factors.car`), too many players, or one the system cannot rate (factors in a league whose system does not rate them)"), "503": unavailable(),
                        "507": error("The database's disk is full: nothing was stored; send it again later (Retry-After)")}}
            },
            "/api/leagues/{id}/matches/{match}": {
                "get": {"summary": "One match of the ledger with its rating changes", "parameters": [id, m],
                    "responses": {"200": ok("The match", schema_ref("Submitted")), "404": error("No such league or match"), "503": unavailable()}},
                "put": {"summary": "Correct a match (keeps its place in the ledger); recomputes, unless the content is the match's already (status unchanged)",
                    "parameters": [id, m, query("allow_new_players", "boolean", "Allow players who have never played in the league")],
                    "security": auth, "requestBody": body("Match"),
                    "responses": {"200": ok("Corrected", schema_ref("Submitted")), "400": error("allow_new_players neither true nor false"),
                        "401": error("Missing or wrong token"), "403": error("Another league's token"), "404": error("No such league or match"),
                        "415": error("Not a JSON body"), "422": error("Invalid match, too many players, unknown player, or a ledger the system cannot rate"), "503": unavailable()}},
                "delete": {"summary": "Void a match (kept in the ledger, no longer rated); recomputes", "parameters": [id, m], "security": auth,
                    "responses": {"200": ok("Voided", json!({"type": "object"})), "401": error("Missing or wrong token"),
                        "403": error("Another league's token"), "404": error("No such league or match"), "503": unavailable()}}
            },
            "/api/leagues/{id}/matches/{match}/restore": {
                "post": {"summary": "Restore a voided match as it was voided (its results, factors and time, as the ledger keeps them) and recompute; a match that is rated is left as it is (`recomputed` false). No body",
                    "parameters": [id, m], "security": auth,
                    "responses": {"200": ok("The match, rated, with its rating changes", schema_ref("Submitted")), "401": error("Missing or wrong token"),
                        "403": error("Another league's token"), "404": error("No such league or match"),
                        "422": error("A ledger the system cannot rate with the match (e.g. factors in a league switched to a system that does not rate them)"), "503": unavailable()}}
            },
            "/api/leagues/{id}/voided": {
                "get": {"summary": "The voided matches (kept in the ledger, not rated), the last voided first, each with its content as it was voided",
                    "parameters": [id],
                    "responses": {"200": ok("The voided matches; empty when none is", json!({"type": "array", "items": {"type": "object", "required": ["match", "seq", "voided", "result"],
                        "properties": {"match": {"type": "string"}, "seq": {"type": "integer"}, "voided": {"const": true}, "result": schema_ref("Match")}}})),
                        "404": error("No such league")}}
            }
        },
        "components": {
            "securitySchemes": {BEARER: {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
                "NewLeague": {"type": "object", "required": ["name"], "properties": {
                    "name": league_name(), "system": {"type": "string", "default": podium::DEFAULT_SYSTEM},
                    "config": {"oneOf": [{"type": "object", "additionalProperties": {"type": ["number", "string", "boolean"]}},
                                         {"type": "array", "items": {"oneOf": [{"type": "string", "description": "key=value"}, config_pair()]},
                                          "description": "Settings \"key=value\", or pairs [key, value] as League.config gives them (what GET answers can be sent back)"}]}}},
                "LeaguePatch": {"type": "object", "properties": {"name": league_name(), "system": {"type": "string"},
                    "config": {"description": "As in NewLeague; a new system without config starts from its defaults"}}},
                "Created": {"type": "object", "required": ["id", "admin_token"], "properties": {
                    "id": {"type": "integer"}, "admin_token": {"type": "string"}, "league": schema_ref("League")}},
                "League": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "system": {"type": "string"},
                    "config": {"type": "array", "items": config_pair(), "description": "The parameters set for the league, in the order given, each [name, value] with the value as text (those left out are at the system's defaults; `params` lists every one in force). Accepted back as NewLeague's and LeaguePatch's config"},
                    "params": {"type": "array"}, "has_sigma": {"type": "boolean"},
                    "learned": learned(),
                    "performances": {"type": "boolean", "description": "Whether a change's `expected` and `actual` are performances on the rating scale (the Elo-MMR family and the default) rather than scores, whose range depends on the system: 0 to 1 for elo, whitewhale and the Bayesian systems; 0 to 2 for sme (the entries just above and below); 0 to N - 1 for pairwise; a chance of winning for mes and proportional; shares summing to 1 for shares"},
                    "matches": {"type": "integer"}, "players": {"type": "integer"},
                    "ready": {"type": "boolean", "description": "false while the league is being loaded (counts are 0 then, or those of the ratings it was restored from while its whole ledger is rated: its board is served meanwhile)"}}},
                "Result": {"type": "object", "required": ["player"], "additionalProperties": false,
                    "description": "One player's result: a rank or a score, exactly one of them (a field given as null counts as not given); every row of a match gives ranks, or every row scores",
                    "oneOf": [given("rank", "score"), given("score", "rank")],
                    "properties": {
                    "player": {"type": "string", "minLength": 1, "maxLength": podium_store::MAX_ID_LEN, "description": "The player's id: without surrounding spaces or control characters"},
                    "rank": {"type": ["number", "null"], "description": "The place, 1 = best; equal ranks are ties"},
                    "score": {"type": ["number", "null"], "description": "The score, higher = better"},
                    "team": {"type": ["string", "null"], "minLength": 1, "maxLength": podium_store::MAX_ID_LEN, "description": "The team's name, by the rules of a player id"},
                    "weight": {"type": ["number", "null"], "minimum": podium::model::MIN_WEIGHT, "maximum": 1, "description": "The share of the match played (default 1)"},
                    "factors": {"type": "object", "maxProperties": podium_store::MAX_FACTORS,
                        "description": "What else than the players decides the entry's result: kind → value, e.g. {\"car\": \"ferrari\", \"seat\": 1}. Rows of one team may each give some and must agree on a kind they both give. Kinds and values are non-empty without surrounding spaces or control characters; a kind has no '=' and is none of the fields of a match or a row nor a column of the CSV format, in any case (match, id, time, results, player, rank, score, team, weight, factors: `RANK` is refused too). Kinds are compared without regard to the case of A to Z, as the file readers find a factor's field, and kept in lower case (`Car` is stored, answered and exported as `car`); a row that gives one kind in two spellings (`Car` and `car`) is refused. A value given as a number is a whole number within 64 bits. Only for leagues whose system rates factors (every system but proportional and ttt); a retry with other factors is other content (409)",
                        "propertyNames": {"minLength": 1, "maxLength": podium_store::MAX_FACTOR_KIND, "not": {"pattern": in_any_case(&podium_store::RESERVED_KINDS)}},
                        "additionalProperties": {"oneOf": [{"type": "string", "minLength": 1, "maxLength": podium_store::MAX_FACTOR_VALUE}, {"type": "integer", "minimum": i64::MIN, "maximum": u64::MAX}]}}}},
                "Match": {"type": "object", "required": ["results"], "additionalProperties": false, "properties": {
                    "match": {"type": ["string", "null"], "description": "The match id, as files carry it; assigned by the server when neither it nor `id` is given"},
                    "id": {"type": ["string", "null"], "description": "The client's id of the match (for retries); if `match` is given too they must agree"},
                    "time": {"type": ["string", "null"], "description": "RFC 3339 or YYYY-MM-DD; at most a day after the server's clock (a result is recorded once played)"},
                    "results": {"type": "array", "minItems": 2, "items": schema_ref("Result")}}},
                "Change": {"type": "object", "properties": {"player": {"type": "string"}, "place": {"type": "integer"},
                    "before": {"type": "number"}, "after": {"type": "number"}, "delta": {"type": "number"},
                    "expected": {"type": "number"}, "actual": {"type": "number"}, "k": {"type": ["number", "null"]},
                    "weight": {"type": "number"}, "games": {"type": "integer"},
                    "sigma_before": {"type": "number"}, "sigma_after": {"type": "number"}}},
                "Submitted": {"type": "object", "properties": {"match": {"type": "string"}, "seq": {"type": "integer"},
                    "status": {"enum": ["created", "duplicate", "corrected", "unchanged"], "description": "unchanged: a correction with the content the match had (nothing stored, not rated again, `recomputed` false)"}, "voided": {"type": "boolean"},
                    "recomputed": {"type": "boolean"}, "result": schema_ref("Match"),
                    "changes": {"type": "array", "items": schema_ref("Change")},
                    "factor_changes": {"type": "array", "items": schema_ref("FactorChange"), "description": "Each factor's change, for the factors that told entries apart"}}},
                "FactorChange": {"type": "object", "properties": {"kind": {"type": "string"}, "value": {"type": "string"},
                    "before": {"type": "number"}, "after": {"type": "number"}, "delta": {"type": "number"},
                    "sigma_before": {"type": "number"}, "sigma_after": {"type": "number"}}},
                "FactorStanding": {"type": "object", "required": ["kind", "value", "rating", "matches"], "properties": {
                    "kind": {"type": "string"}, "value": {"type": "string"},
                    "rating": {"type": "number", "description": "What the factor adds to the strength of an entry that carries it (0 at the start)"},
                    "sigma": {"type": "number", "description": "For systems with uncertainty"},
                    "matches": {"type": "integer", "description": "Rated matches where it told entries apart"},
                    "wins": {"type": "number", "description": "Those won by an entry that carries it (a tie for first among k counts 1/k)"},
                    "win_pct": {"type": "number"}, "expected_win_pct": {"type": "number", "description": "An average entry's win percentage in the same matches"}}},
                "Standing": {"type": "object", "required": ["player", "rating", "games"], "properties": {
                    "position": {"type": "integer"}, "player": {"type": "string"}, "rating": {"type": "number"},
                    "sigma": {"type": "number"}, "games": {"type": "integer"}, "wins": {"type": "number"},
                    "avg_size": {"type": "number"}, "win_pct": {"type": "number"}, "expected_win_pct": {"type": "number"},
                    "net_pct": {"type": "number"}, "last_played": {"type": ["string", "null"], "description": "The time of the player's last dated match; null when they have played none"}, "provisional": {"type": "boolean"}}}
            }
        }
    });
    doc["components"]["schemas"]["Player"] = player(&doc["components"]["schemas"]["Standing"]);
    crate::seasons::document(&mut doc);
    common_answers(&mut doc);
    doc
}

/// What an operation answers by what it takes, put in each operation of `doc` beside
/// its own answers: for a JSON body, 400 for malformed JSON, 408 for a body that did not
/// arrive in time, 413 for one over the limit and 415 for one that is not JSON; for a
/// path with parameters, 400 for a segment that is not UTF-8 once percent-decoded; for
/// every operation, the answers of the HTTP layer (414, 431) that have no body.
fn common_answers(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, ops) in paths.iter_mut() {
        let Some(ops) = ops.as_object_mut() else {
            continue;
        };
        for op in ops.values_mut() {
            let takes_body = op.get("requestBody").is_some();
            let responses = &mut op["responses"];
            let mut bad: Vec<String> = responses["400"]["description"]
                .as_str()
                .map(|d| vec![d.to_string()])
                .unwrap_or_default();
            if takes_body {
                bad.push("malformed JSON".into());
                for (status, doc) in [
                    ("408", "The body did not arrive within the server's body timeout (--body-timeout); the connection is closed"),
                    ("413", "The body is over the server's limit (--max-body)"),
                    ("415", "Not a JSON body: Content-Type: application/json is needed"),
                ] {
                    if responses.get(status).is_none() {
                        responses[status] = error(doc);
                    }
                }
            }
            if path.contains('{') {
                bad.push(
                    "a path segment that is not UTF-8 once percent-decoded (the message names it)"
                        .into(),
                );
            }
            if !bad.is_empty() {
                let mut said = bad.join("; ");
                if let Some(first) = said.get(..1) {
                    said = first.to_uppercase() + &said[1..];
                }
                responses["400"] = error(&said);
            }
            responses["414"] = json!({"description": "The URI is over 65,534 bytes: answered by the HTTP layer before the API, with an empty body and no Content-Type (not an Error), and the connection closed"});
            responses["431"] = json!({"description": "The request's head is over about 400 KB: answered by the HTTP layer before the API, with an empty body and no Content-Type (not an Error), and the connection closed"});
        }
    }
}

/// What a name holds: no control character (`char::is_control`: C0, DEL, C1).
pub(crate) const NO_CONTROL: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$";

/// A league's name.
fn league_name() -> Value {
    json!({"type": "string", "minLength": 1, "pattern": NO_CONTROL,
        "description": "1 to 200 characters (not bytes) without control characters, spaces around it left out; no other league of the server has it, spaces around it and letter case aside"})
}

/// A result row that gives `field` (a number) and not `other` (absent or null).
fn given(field: &str, other: &str) -> Value {
    json!({"required": [field], "properties": {field: {"type": "number"}},
        "not": {"required": [other], "properties": {other: {"type": "number"}}}})
}

/// A config's `[name, value]` pair, as `League.config` gives it.
fn config_pair() -> Value {
    json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": ["string", "number", "boolean"]}], "minItems": 2, "maxItems": 2})
}

/// A pattern that matches each of `names` whole, in any case of A to Z (`RANK`, `Rank`):
/// `^(?:[Mm][Aa][Tt][Cc][Hh]|…)$` (JSON Schema's patterns have no flag for case).
fn in_any_case(names: &[&str]) -> String {
    let names: Vec<String> = names
        .iter()
        .map(|name| {
            name.chars()
                .map(|c| {
                    if c.is_ascii_alphabetic() {
                        format!("[{}{}]", c.to_ascii_uppercase(), c.to_ascii_lowercase())
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        })
        .collect();
    format!("^(?:{})$", names.join("|"))
}
