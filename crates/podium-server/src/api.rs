//! The JSON API handlers and the table of routes the router is built from (which the
//! OpenAPI document must match).

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post, put, MethodRouter};
use axum::{Json, Router};
use podium_store::{
    ChangeAction, ChangeRow, FactorChange, Head, LeagueId, Leagues, LedgerEntry, NewLeague,
    StoreError, Submission, SubmitStatus,
};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

use crate::board::Coding;
use crate::error::{quote, ApiError};
use crate::extract::{
    flag, whole, AppJson, AppQuery, Bearer, League, LeagueAdmin, MatchKey, PlayerName,
};
use crate::AppState;

/// A method of a route and its handler.
type Handler = (Method, MethodRouter<AppState>);

/// The API: each path with its methods, each method with its handler. The router is
/// built from this table and the OpenAPI document is checked against it.
fn table() -> Vec<(&'static str, Vec<Handler>)> {
    vec![
        ("/healthz", vec![(Method::GET, get(healthz))]),
        ("/readyz", vec![(Method::GET, get(readyz))]),
        ("/api/openapi.json", vec![(Method::GET, get(openapi))]),
        ("/api/systems", vec![(Method::GET, get(systems))]),
        (
            "/api/leagues",
            vec![
                (Method::GET, get(list_leagues)),
                (Method::POST, post(create_league)),
            ],
        ),
        (
            "/api/leagues/{id}",
            vec![
                (Method::GET, get(get_league)),
                (Method::PATCH, patch(patch_league)),
            ],
        ),
        (
            "/api/leagues/{id}/leaderboard",
            vec![(Method::GET, get(leaderboard))],
        ),
        (
            "/api/leagues/{id}/factors",
            vec![(Method::GET, get(factors))],
        ),
        (
            "/api/leagues/{id}/players",
            vec![(Method::GET, get(players))],
        ),
        (
            "/api/leagues/{id}/players/{player}",
            vec![(Method::GET, get(player))],
        ),
        (
            "/api/leagues/{id}/players/{player}/rivals",
            vec![(Method::GET, get(crate::groups::rivals))],
        ),
        (
            "/api/leagues/{id}/versus",
            vec![(Method::GET, get(crate::groups::versus))],
        ),
        (
            "/api/leagues/{id}/balance",
            vec![(Method::POST, post(crate::groups::balance))],
        ),
        (
            "/api/leagues/{id}/matches",
            vec![
                (Method::GET, get(export_matches)),
                (Method::POST, post(submit_match)),
            ],
        ),
        (
            "/api/leagues/{id}/seasons",
            vec![
                (Method::GET, get(crate::seasons::seasons)),
                (Method::POST, post(crate::seasons::start_season)),
            ],
        ),
        (
            "/api/leagues/{id}/seasons/{n}/board",
            vec![(Method::GET, get(crate::seasons::season_board))],
        ),
        (
            "/api/leagues/{id}/matches/{match}",
            vec![
                (Method::GET, get(get_match)),
                (Method::PUT, put(correct_match)),
                (Method::DELETE, delete(void_match)),
            ],
        ),
        (
            "/api/leagues/{id}/matches/{match}/restore",
            vec![(Method::POST, post(restore_match))],
        ),
        (
            "/api/leagues/{id}/voided",
            vec![(Method::GET, get(voided_matches))],
        ),
    ]
}

/// Every API route: its path and methods, as the router serves them.
#[must_use]
pub fn api_routes() -> Vec<(&'static str, Vec<Method>)> {
    table()
        .into_iter()
        .map(|(path, methods)| (path, methods.into_iter().map(|(m, _)| m).collect()))
        .collect()
}

/// The API routes of the router.
pub(crate) fn routes() -> Router<AppState> {
    table()
        .into_iter()
        .fold(Router::new(), |router, (path, methods)| {
            let handlers = methods
                .into_iter()
                .fold(MethodRouter::new(), |all, (_, one)| all.merge(one));
            router.route(path, handlers)
        })
}

/// The league a path's `{id}` names: a number in canonical decimal (`[1-9][0-9]*`)
/// only, so that a league has one address (`+1`, `01`, `1.0` name none).
pub(crate) fn league_id(raw: &str) -> Option<LeagueId> {
    let digits = raw.as_bytes();
    let canonical = digits.first().is_some_and(|d| (b'1'..=b'9').contains(d))
        && digits.iter().all(u8::is_ascii_digit);
    canonical.then(|| raw.parse().ok()).flatten()
}

pub(crate) async fn no_route(method: Method, uri: Uri) -> ApiError {
    ApiError::not_found(format!("no route for {method} {}", quote(uri.path())))
}

pub(crate) async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} is not allowed on {}", quote(uri.path())),
    )
}

/// A league's config as a body gives it: an object `{"k": 24}`, settings `["k=24"]`, or
/// the pairs `[["k", "24"]]` that `GET /api/leagues/{id}` answers (so what it answers
/// can be sent back); in a list, settings and pairs may be mixed.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
struct ConfigBody(Value);

/// What a config may be, for the messages.
const CONFIG_FORMS: &str = r#"an object {"k": 24}, a list of settings ["k=24"], or a list of pairs [["k", "24"]] as GET /api/leagues/{id} gives it"#;

impl ConfigBody {
    fn settings(self) -> Result<podium::Settings, ApiError> {
        let refused = |message: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message);
        let value = |at: &str, v: Value| match v {
            Value::String(s) => Ok(s),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            other => Err(refused(format!(
                "{at}: {other} is not a number, boolean or string"
            ))),
        };
        match self.0 {
            Value::Object(m) => m
                .into_iter()
                .map(|(k, v)| {
                    if k.trim().is_empty() {
                        return Err(refused(format!(
                            r#"config: {} is not a parameter's name, expected a non-empty key, as in {{"k": 24}}"#,
                            quote(&k)
                        )));
                    }
                    let v = value(&format!("config {k:?}"), v)?;
                    Ok((k, v))
                })
                .collect(),
            Value::Array(items) => {
                let mut settings = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(s) => {
                            if !s.split_once('=').is_some_and(|(k, _)| !k.trim().is_empty()) {
                                return Err(refused(format!(
                                    r#"config[{i}]: {} is not a setting, expected key=value with a non-empty key, as in "k=24""#,
                                    quote(&s)
                                )));
                            }
                            settings.push(s);
                        }
                        Value::Array(pair) if pair.len() == 2 => {
                            let mut pair = pair.into_iter();
                            let (k, v) = (pair.next(), pair.next());
                            let Some(Value::String(k)) = k else {
                                return Err(refused(format!(
                                    "config[{i}]: a pair's first item is the parameter's name, a string"
                                )));
                            };
                            if k.trim().is_empty() || k.contains('=') {
                                return Err(refused(format!(
                                    r#"config[{i}]: {} is not a parameter's name, expected a non-empty key without "=", as in ["k", "24"]"#,
                                    quote(&k)
                                )));
                            }
                            let v = value(&format!("config[{i}] ({k:?})"), v.unwrap_or_default())?;
                            settings.push(format!("{k}={v}"));
                        }
                        other => {
                            return Err(refused(format!(
                                "config[{i}]: {} is neither a setting \"k=24\" nor a pair [\"k\", \"24\"]",
                                crate::error::quote(&other.to_string())
                            )))
                        }
                    }
                }
                podium::Settings::parse(&settings).map_err(|e| refused(e.to_string()))
            }
            other => Err(refused(format!(
                "config: {} is not a config; give {CONFIG_FORMS}",
                crate::error::quote(&other.to_string())
            ))),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateLeague {
    name: String,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    config: Option<ConfigBody>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PatchLeague {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    config: Option<ConfigBody>,
}

#[derive(Debug, Deserialize)]
struct Page {
    #[serde(default, deserialize_with = "whole")]
    limit: Option<usize>,
    #[serde(default, deserialize_with = "whole")]
    offset: Option<usize>,
    /// `established` (the default) or `rating`.
    #[serde(default)]
    order: podium::Order,
}

#[derive(Debug, Deserialize)]
struct CorrectQuery {
    #[serde(default, deserialize_with = "flag")]
    allow_new_players: bool,
}

/// The process runs and answers.
async fn healthz(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "status": "ok", "instance": state.instance() }))
}

/// Ready to serve every league: the database answers and every league is loaded.
async fn readyz(State(state): State<AppState>) -> Response {
    let checked = state
        .with_leagues(|l| {
            let answered = l.store().ping().map_err(|e| e.to_string());
            Ok((answered, l.loading()))
        })
        .await;
    let (database, loading) = match checked {
        Ok((Ok(()), loading)) => (Ok(()), loading),
        Ok((Err(e), loading)) => (Err(e), loading),
        Err(e) => (Err(e.message), Vec::new()),
    };
    let ready = database.is_ok() && loading.is_empty();
    let body = Json(json!({
        "ready": ready,
        "instance": state.instance(),
        "database": database.err().unwrap_or_else(|| "ok".into()),
        "loading": loading,
    }));
    if ready {
        body.into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, HeaderValue::from_static("1"))],
            body,
        )
            .into_response()
    }
}

async fn openapi() -> Json<Value> {
    Json(crate::openapi::document())
}

async fn systems() -> Json<Value> {
    let list: Vec<Value> = podium::systems()
        .iter()
        .map(|s| {
            let sys = (s.build)(&podium::Settings::new()).ok();
            json!({
                "name": s.name,
                "summary": s.summary,
                "source": s.source,
                "default": s.name == podium::DEFAULT_SYSTEM,
                "has_sigma": sys.as_ref().is_some_and(|s| s.capabilities().has_uncertainty),
                "performances": sys.as_ref().is_some_and(|s| s.capabilities().expects_performances),
                "params": (s.defaults)().iter().map(|p| json!({
                    "name": p.name, "default": p.value.to_string(), "doc": p.doc,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    Json(Value::Array(list))
}

async fn list_leagues(State(state): State<AppState>) -> Result<Response, ApiError> {
    let list = state.with_leagues(|l| Ok(l.leagues())).await?;
    Ok(Json(list).into_response())
}

async fn create_league(
    State(state): State<AppState>,
    Bearer(token): Bearer,
    AppJson(req): AppJson<CreateLeague>,
) -> Result<Response, ApiError> {
    let counted = state.may_create(token.as_deref())?;
    let created = async {
        let config = match req.config {
            Some(c) => c.settings()?,
            None => podium::Settings::new(),
        };
        let new = NewLeague {
            name: req.name,
            system: req.system.unwrap_or_else(|| podium::DEFAULT_SYSTEM.into()),
            config,
        };
        state
            .with_leagues(move |l| match name_taken(l, &new.name, None) {
                Some(taken) => Ok(Err(taken)),
                None => l.create_league(&new).map(Ok),
            })
            .await?
    }
    .await;
    // Only a league created counts against the hourly quota.
    if let (Err(_), Some(at)) = (&created, counted) {
        state.uncount(at);
    }
    let (info, token) = created?;
    tracing::info!(league = info.id, system = %info.system, "league created");
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/api/leagues/{}", info.id))],
        Json(json!({ "id": info.id, "admin_token": token, "league": info })),
    )
        .into_response())
}

/// A 409 when a league other than `except` is named `name` already, as the list of
/// leagues would show it (around spaces and letter case aside): two rows of one name
/// could not be told apart. The store refuses such a name too (against requests made at
/// once, here or on another server), with the same answer; this look at the leagues
/// served also catches leagues of an older ledger that were named alike before names
/// were unique there.
fn name_taken(l: &Leagues, name: &str, except: Option<LeagueId>) -> Option<ApiError> {
    let wanted = podium_store::name_key(name);
    let other = l
        .leagues()
        .into_iter()
        .find(|info| Some(info.id) != except && podium_store::name_key(&info.name) == wanted)?;
    Some(ApiError::from(StoreError::NameTaken {
        name: other.name,
        league: Some(other.id),
    }))
}

async fn get_league(
    State(state): State<AppState>,
    League(id): League,
) -> Result<Response, ApiError> {
    let info = state.with_leagues(move |l| l.league(id)).await?;
    Ok(Json(info).into_response())
}

async fn patch_league(
    State(state): State<AppState>,
    LeagueAdmin(id): LeagueAdmin,
    AppJson(req): AppJson<PatchLeague>,
) -> Result<Response, ApiError> {
    let config = req.config.map(ConfigBody::settings).transpose()?;
    let info = state
        .with_leagues(
            move |l| match req.name.as_deref().and_then(|n| name_taken(l, n, Some(id))) {
                Some(taken) => Ok(Err(taken)),
                None => l.configure(id, req.name, req.system, config).map(Ok),
            },
        )
        .await??;
    tracing::info!(league = id, system = %info.system, "league reconfigured and recomputed");
    Ok(Json(info).into_response())
}

async fn leaderboard(
    State(state): State<AppState>,
    League(id): League,
    AppQuery(page): AppQuery<Page>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let order = page.order;
    if page.limit.is_none() && page.offset.unwrap_or(0) == 0 {
        return full_leaderboard(&state, id, order, &headers).await;
    }
    let offset = page.offset.unwrap_or(0);
    let limit = page.limit.unwrap_or(usize::MAX);
    let (total, rows) = state
        .with_leagues(move |l| l.leaderboard_page_in(id, order, offset, limit))
        .await?;
    let body = serde_json::to_vec(&rows).map_err(ApiError::internal)?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (X_TOTAL_COUNT, total.to_string()),
        ],
        body,
    )
        .into_response())
}

const X_TOTAL_COUNT: header::HeaderName = header::HeaderName::from_static("x-total-count");

/// The whole board: serialised once per change of the league and kept, so a read is
/// one write of cached bytes. Compressed copies (zstd, gzip) are made on first demand
/// and kept beside it; `If-None-Match` with the current tag gets a 304.
async fn full_leaderboard(
    state: &AppState,
    id: LeagueId,
    order: podium::Order,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let board = state
        .with_leagues(move |l| l.leaderboard_json_in(id, order))
        .await?;
    let cached = {
        let mut cache = crate::lock(&state.inner.board_json);
        match cache.get(&(id, order)) {
            Some(c) if c.version == board.version => c.clone(),
            _ => {
                let c = std::sync::Arc::new(crate::board::BoardBody::new(board));
                cache.insert((id, order), c.clone());
                c
            }
        }
    };
    let total = cached.rows;
    let coding = Coding::negotiate(headers);
    let etag = crate::board::etag(cached.tag(), coding);
    let mut res = if crate::board::not_modified(headers, cached.tag()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let body = match cached.encoded_ready(coding) {
            Some(body) => body,
            None => off_async(&cached, move |c| c.encoded(coding)).await?,
        };
        let mut res = ([(header::CONTENT_TYPE, "application/json")], body).into_response();
        if let Some(enc) = coding.content_encoding() {
            res.headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static(enc));
        }
        res
    };
    let h = res.headers_mut();
    h.insert(X_TOTAL_COUNT, HeaderValue::from(total));
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::ETAG,
        HeaderValue::from_str(&etag).map_err(ApiError::internal)?,
    );
    Ok(res)
}

/// Runs the blocking part of making a board body (serialising, compressing) on a
/// blocking thread.
async fn off_async<T: Send + 'static>(
    cached: &std::sync::Arc<crate::board::BoardBody>,
    f: impl FnOnce(&crate::board::BoardBody) -> Result<T, String> + Send + 'static,
) -> Result<T, ApiError> {
    let cached = cached.clone();
    tokio::task::spawn_blocking(move || f(&cached))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)
}

/// Every player of the league, whatever the season they last played in, by name (in
/// code-point order): `player`, `rating` (as the board gives it) and `in_season` (on the
/// current season's board).
async fn players(State(state): State<AppState>, League(id): League) -> Result<Response, ApiError> {
    let list = state
        .with_leagues(move |l| {
            l.read(id, |d| {
                let league = d.league();
                let mut rows: Vec<(&str, f64, bool)> = league
                    .players()
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.name.as_str(), league.current(i).value, p.stats.games > 0))
                    .collect();
                rows.sort_unstable_by(|a, b| a.0.cmp(b.0));
                Ok(rows
                    .into_iter()
                    .map(|(player, rating, in_season)| {
                        json!({ "player": player, "rating": rating, "in_season": in_season })
                    })
                    .collect::<Vec<Value>>())
            })
        })
        .await?;
    Ok(Json(list).into_response())
}

async fn player(
    State(state): State<AppState>,
    League(id): League,
    PlayerName(player): PlayerName,
) -> Result<Response, ApiError> {
    let history = state.with_leagues(move |l| l.player(id, &player)).await?;
    // Games count from the current season's start: without one there, the player is not
    // on the season's board, so has no place on it.
    let in_season = history.standing.games > 0;
    let mut page = serde_json::to_value(&history).map_err(ApiError::internal)?;
    if !in_season {
        page["position"] = Value::Null;
    }
    page["in_season"] = Value::Bool(in_season);
    Ok(Json(page).into_response())
}

/// The league's factors' table: by kind, best rated first.
async fn factors(State(state): State<AppState>, League(id): League) -> Result<Response, ApiError> {
    let table = state.with_leagues(move |l| l.factors(id)).await?;
    Ok(Json(table).into_response())
}

#[derive(Debug, Deserialize)]
struct ExportQuery {
    /// Sent as a file to save (`Content-Disposition: attachment`), named
    /// [`download_name`].
    #[serde(default, deserialize_with = "flag")]
    download: bool,
}

/// The name a league's downloaded ledger is saved under: `league-{id}.jsonl` (the page's
/// link and the `podium rate` command it shows name the same file).
pub(crate) fn download_name(id: LeagueId) -> String {
    format!("league-{id}.jsonl")
}

/// The ledger as JSON Lines, each factor a field of its row (what `podium rate --factor
/// KIND` reads); with `?download=true`, as a file to save.
async fn export_matches(
    State(state): State<AppState>,
    League(id): League,
    AppQuery(query): AppQuery<ExportQuery>,
) -> Result<Response, ApiError> {
    let ledger = state.with_leagues(move |l| l.ledger(id)).await?;
    let mut out = Vec::with_capacity(ledger.len() * 128);
    for e in &ledger {
        serde_json::to_writer(&mut out, &e.json.to_jsonl()).map_err(ApiError::internal)?;
        out.push(b'\n');
    }
    let mut res = ([(header::CONTENT_TYPE, "application/x-ndjson")], out).into_response();
    if query.download {
        let disposition = format!("attachment; filename=\"{}\"", download_name(id));
        res.headers_mut().insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_str(&disposition).map_err(ApiError::internal)?,
        );
    }
    Ok(res)
}

fn appended_json(a: &podium_store::Appended) -> Value {
    json!({
        "match": a.entry.key,
        "seq": a.entry.seq,
        "status": a.status,
        "voided": a.entry.voided,
        "recomputed": a.recomputed,
        "result": a.entry.json,
        "changes": a.changes,
        "factor_changes": a.factor_changes,
    })
}

/// `value` read as a `T`, or a 422 that says `what` was read and names the field at fault
/// as the file readers do (`field `results[0].rank``).
pub(crate) fn from_body<T: serde::de::DeserializeOwned>(
    value: Value,
    what: &str,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let e = crate::extract::in_json_terms(&e.into_inner().to_string());
        let message = match path.as_str() {
            "." => format!("{what}: {e}"),
            path => format!("{what}: field `{path}`: {e}"),
        };
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    })
}

/// A body of one match, or a JSON array of matches.
fn submissions(body: Value, limits: &crate::Limits) -> Result<(Vec<Submission>, bool), ApiError> {
    let (subs, many) = match body {
        Value::Array(items) => {
            if items.len() > limits.max_batch {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "at most {} matches per request, this one has {}; send them in several requests (the server's operator sets the limit with --max-batch)",
                        limits.max_batch,
                        items.len()
                    ),
                ));
            }
            let subs = items
                .into_iter()
                .enumerate()
                .map(|(k, item)| from_body(item, &format!("match {k} of the array")))
                .collect::<Result<Vec<Submission>, _>>()?;
            (subs, true)
        }
        one => (vec![from_body(one, "invalid request body")?], false),
    };
    for (k, sub) in subs.iter().enumerate() {
        let which = if many {
            format!("match {k} of the array")
        } else {
            "the match".into()
        };
        check_players(sub, &which, limits)?;
    }
    Ok((subs, many))
}

/// A match of at most [`crate::Limits::max_players`] players.
fn check_players(sub: &Submission, which: &str, limits: &crate::Limits) -> Result<(), ApiError> {
    if sub.results.len() > limits.max_players {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "{which} has {} players; a match has at most {} on this server (its operator sets the limit with --max-players)",
                sub.results.len(),
                limits.max_players
            ),
        ));
    }
    Ok(())
}

/// An error of match `which` (`match "r1"`, `the match`, `match 3 of the array`) at
/// `field`, worded as the store words the errors of a match.
fn invalid_match(which: &str, field: &str, message: impl std::fmt::Display) -> StoreError {
    StoreError::InvalidMatch {
        message: format!("{which}, field `{field}`: {message}"),
    }
}

/// Takes in a match as it came, named `which` in errors: each factor kind in the one
/// spelling the ledger keeps, lower case. Kinds are compared without regard to the case
/// of A to Z, as the file readers find a factor's field or column (`podium rate --factor
/// car` reads a field `Car` as the kind `car`): so the matches of a league agree on a
/// kind however each request spells it, and the export reads back to the same ratings.
/// A kind given twice in one row, in two spellings (`"Car"` and `"car"`), is refused; a
/// kind spelled otherwise than in lower case is checked as given first, so that an
/// error quotes what was sent. The rows of one team, once their kinds are spelled alike,
/// must still agree on a kind they both give (the store checks it). A weight outside
/// `[1e-9, 1]` is refused naming its own field (`results[2].weight`), where the match's
/// rows, checked together, would name only `results`.
fn intake(sub: &mut Submission, which: &str) -> Result<(), StoreError> {
    for (i, row) in sub.results.iter_mut().enumerate() {
        let weights = podium::model::MIN_WEIGHT..=1.0;
        if let Some(weight) = row.weight.filter(|w| !weights.contains(w)) {
            return Err(invalid_match(
                which,
                &format!("results[{i}].weight"),
                podium::MatchError::InvalidWeight {
                    player: row.player.clone(),
                    weight,
                },
            ));
        }
        let spelled_otherwise = |kind: &String| kind.bytes().any(|b| b.is_ascii_uppercase());
        if !row.factors.keys().any(spelled_otherwise) {
            continue;
        }
        let mut first: BTreeMap<String, &str> = BTreeMap::new();
        for (kind, value) in &row.factors {
            if spelled_otherwise(kind) {
                podium::factor::check_kind(kind)
                    .map_err(|e| invalid_match(which, &format!("results[{i}].factors"), e))?;
                podium::factor::check_value(kind, value).map_err(|e| {
                    invalid_match(which, &format!("results[{i}].factors.{kind}"), e)
                })?;
            }
            let canonical = kind.to_ascii_lowercase();
            if let Some(earlier) = first.get(&canonical) {
                return Err(invalid_match(
                    which,
                    &format!("results[{i}].factors.{kind}"),
                    format!(
                        "the factor kind {} is given twice, as {} and as {}; a kind is named in any case (the ledger keeps it as {}): give it once",
                        quote(&canonical),
                        quote(earlier),
                        quote(kind),
                        quote(&canonical)
                    ),
                ));
            }
            first.insert(canonical, kind);
        }
        row.factors = std::mem::take(&mut row.factors)
            .into_iter()
            .map(|(kind, value)| (kind.to_ascii_lowercase(), value))
            .collect();
    }
    Ok(())
}

/// `text` as one segment of a URL's path: every byte but the unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`) percent-encoded, so that a match id with `/`, `#`, `?` or
/// spaces names its match.
fn path_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `e` as an answer; for a match sent without an id (`unnamed`), the id the server gave
/// it (`match "#351"`) is replaced by `which` (`match 3 of the array`), as the client
/// knows it: in every error that names the match, those of its fields
/// (`invalid match: the match, field `results[0].rank`: …`) as well as those of its
/// rating or its date.
fn as_sent(e: StoreError, unnamed: bool, which: &str) -> ApiError {
    let mut answer = ApiError::from(e);
    if unnamed {
        if let Some(at) = server_id(&answer.message) {
            answer.message.replace_range(at, which);
        }
    }
    answer
}

/// Where `message` first names a match by an id the server gives (`match "#351"`).
fn server_id(message: &str) -> Option<std::ops::Range<usize>> {
    const NAMED: &str = "match \"#";
    let mut from = 0;
    while let Some(found) = message[from..].find(NAMED) {
        let start = from + found;
        let digits_at = start + NAMED.len();
        let digits = message[digits_at..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        let end = digits_at + digits;
        if digits > 0 && message[end..].starts_with('"') {
            return Some(start..end + 1);
        }
        from = digits_at;
    }
    None
}

/// Enters a match (201 stored, 200 a retry), or an array of matches (200, with each
/// match's own status and answer in order).
async fn submit_match(
    State(state): State<AppState>,
    LeagueAdmin(id): LeagueAdmin,
    AppJson(body): AppJson<Value>,
) -> Result<Response, ApiError> {
    let (subs, many) = submissions(body, state.limits())?;
    // The matches sent without an id: an error names them as sent, not by the id the
    // server would have given them.
    let unnamed: Vec<bool> = subs.iter().map(|s| matches!(s.key(), Ok(None))).collect();
    // Each match taken in, or refused as it was sent; the others of an array are entered
    // all the same, each answered in its place.
    let mut refused: Vec<Option<StoreError>> = Vec::with_capacity(subs.len());
    let mut taken: Vec<Submission> = Vec::with_capacity(subs.len());
    for (k, mut sub) in subs.into_iter().enumerate() {
        let which = match sub.key() {
            Ok(Some(key)) => format!("match {}", quote(key)),
            _ if many => format!("match {k} of the array"),
            _ => "the match".to_string(),
        };
        match intake(&mut sub, &which) {
            Ok(()) => {
                taken.push(sub);
                refused.push(None);
            }
            Err(e) => refused.push(Some(e)),
        }
    }
    let mut stored = if taken.is_empty() {
        Vec::new()
    } else {
        state.submit(id, taken).await?
    }
    .into_iter();
    let mut results = Vec::with_capacity(refused.len());
    for refusal in refused {
        results.push(match refusal {
            Some(e) => Err(e),
            None => stored
                .next()
                .ok_or_else(|| ApiError::internal("a submission got no answer"))?,
        });
    }
    if !many {
        let done = results
            .pop()
            .ok_or_else(|| ApiError::internal("a submission got no answer"))?
            .map_err(|e| as_sent(e, unnamed[0], "the match"))?;
        let mut res = Json(appended_json(&done)).into_response();
        if done.status == SubmitStatus::Created {
            *res.status_mut() = StatusCode::CREATED;
            let at = format!(
                "/api/leagues/{id}/matches/{}",
                path_segment(&done.entry.key)
            );
            res.headers_mut().insert(
                header::LOCATION,
                HeaderValue::from_str(&at).map_err(ApiError::internal)?,
            );
        }
        return Ok(res);
    }
    let answers: Vec<Value> = results
        .into_iter()
        .enumerate()
        .map(|(k, r)| match r {
            Ok(done) => {
                let mut v = appended_json(&done);
                let code = if done.status == SubmitStatus::Created {
                    201
                } else {
                    200
                };
                v["code"] = json!(code);
                v
            }
            Err(e) => {
                let e = as_sent(e, unnamed[k], &format!("match {k} of the array"));
                json!({ "code": e.status.as_u16(), "error": e.message })
            }
        })
        .collect();
    Ok(Json(answers).into_response())
}

async fn get_match(
    State(state): State<AppState>,
    League(id): League,
    MatchKey(key): MatchKey,
) -> Result<Response, ApiError> {
    let (entry, changes, factor_changes) =
        state.with_leagues(move |l| l.get_match(id, &key)).await?;
    Ok(Json(json!({
        "match": entry.key,
        "seq": entry.seq,
        "voided": entry.voided,
        "result": entry.json,
        "changes": changes,
        "factor_changes": factor_changes,
    }))
    .into_response())
}

async fn correct_match(
    State(state): State<AppState>,
    LeagueAdmin(id): LeagueAdmin,
    MatchKey(key): MatchKey,
    AppQuery(query): AppQuery<CorrectQuery>,
    AppJson(mut sub): AppJson<Submission>,
) -> Result<Response, ApiError> {
    check_players(&sub, "the match", state.limits())?;
    intake(&mut sub, &format!("match {}", quote(&key)))?;
    let done = state
        .with_leagues(move |l| l.correct(id, &key, sub, query.allow_new_players))
        .await?;
    if done.recomputed {
        tracing::info!(league = id, r#match = %done.entry.key, "match corrected, league recomputed");
    }
    Ok(Json(appended_json(&done)).into_response())
}

async fn void_match(
    State(state): State<AppState>,
    LeagueAdmin(id): LeagueAdmin,
    MatchKey(key): MatchKey,
) -> Result<Response, ApiError> {
    let entry = state.with_leagues(move |l| l.void(id, &key)).await?;
    tracing::info!(league = id, r#match = %entry.key, "match voided, league recomputed");
    Ok(Json(json!({ "match": entry.key, "seq": entry.seq, "voided": true })).into_response())
}

/// Restores a voided match as it was voided — its results, factors and time, from the
/// ledger itself — and rates the league again with it. A match that is rated is left as
/// it is (answered with `recomputed` false), so that a restore sent twice does no harm.
async fn restore_match(
    State(state): State<AppState>,
    LeagueAdmin(id): LeagueAdmin,
    MatchKey(key): MatchKey,
) -> Result<Response, ApiError> {
    let restored = state.with_leagues(move |l| restore(l, id, &key)).await?;
    let (entry, changes, factor_changes, recomputed) = match restored {
        Restored::Now(done) => {
            tracing::info!(league = id, r#match = %done.entry.key, "match restored, league recomputed");
            (done.entry, done.changes, done.factor_changes, true)
        }
        Restored::Already(entry, changes, factor_changes) => {
            (entry, changes, factor_changes, false)
        }
    };
    Ok(Json(json!({
        "match": entry.key,
        "seq": entry.seq,
        "voided": false,
        "recomputed": recomputed,
        "result": entry.json,
        "changes": changes,
        "factor_changes": factor_changes,
    }))
    .into_response())
}

/// What a restore did.
enum Restored {
    /// The match was voided and is rated again.
    Now(podium_store::Appended),
    /// The match was rated already: it, with its changes as rated now.
    Already(LedgerEntry, Vec<ChangeRow>, Vec<FactorChange>),
}

/// Restores match `key` of league `id` if it is voided ([`Leagues::restore_match`]: a
/// correction to the content the ledger keeps of it, checked and made under the league's
/// write lock); else the match as rated now.
fn restore(l: &Leagues, id: LeagueId, key: &str) -> Result<Restored, StoreError> {
    match l.restore_match(id, key)? {
        Some(done) => Ok(Restored::Now(done)),
        None => {
            let (entry, changes, factor_changes) = l.get_match(id, key)?;
            Ok(Restored::Already(entry, changes, factor_changes))
        }
    }
}

/// A league's voided matches, the last voided first, each as `GET` of the match gives it
/// (a voided match has no rating changes).
async fn voided_matches(
    State(state): State<AppState>,
    League(id): League,
) -> Result<Response, ApiError> {
    let entries = state.with_leagues(move |l| voided(l, id)).await?;
    let list: Vec<Value> = entries
        .into_iter()
        .map(|e| json!({ "match": e.key, "seq": e.seq, "voided": true, "result": e.json }))
        .collect();
    Ok(Json(list).into_response())
}

/// The voided matches of league `id`, the last voided first. Found through the league's
/// log of changes (each void names its match), so that the ledger's rated matches are
/// not read.
fn voided(l: &Leagues, id: LeagueId) -> Result<Vec<LedgerEntry>, StoreError> {
    l.league(id)?;
    // Every logged change, and none of the ledger's matches (no position is after the
    // last one).
    let everything_logged = Head {
        last_seq: i64::MAX,
        last_change: 0,
    };
    let log = l.store().since(id, everything_logged)?.changes;
    let mut keys: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for change in log.iter().rev() {
        if let ChangeAction::Void { key } = &change.action {
            // `now` is where the match stands if it is rated: restored since.
            if change.now.is_none() && seen.insert(key.as_str()) {
                keys.push(key);
            }
        }
    }
    let mut found: std::collections::HashMap<String, LedgerEntry> = l
        .store()
        .find(id, &keys)?
        .into_iter()
        .filter(|e| e.voided)
        .map(|e| (e.key.clone(), e))
        .collect();
    Ok(keys.iter().filter_map(|k| found.remove(*k)).collect())
}
