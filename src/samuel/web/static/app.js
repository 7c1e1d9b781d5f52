// Samuel's page: draws the board of the game the server plays (GET /api/game), lets a person
// move by clicking, and asks the server's engine to move. Everything the game knows comes from
// the JSON API (docs/web.md): the pieces on their squares, and each legal move with its path;
// this file only draws them and sends what was clicked. The board itself is drawn by the game's
// drawing, from its own folder: /game/drawing.js, loaded after this file, hands it to
// useDrawing.
"use strict";

const CUSTOM = "__custom";
const SVG = "http://www.w3.org/2000/svg";
const VIEW = 560; // board coordinates: the SVG's viewBox is 560 x 560
const WATCH_DELAY_MS = 350; // between engine moves when nobody plays, so they can be followed
const MESSAGE_MS = 8000;

const app = {
  info: null, // GET /api/game: the game, its sides and words
  drawing: null, // the game's drawing (useDrawing)
  game: null,
  players: [],
  flipped: false,
  selected: null, // the square of the piece picked up, e.g. "a1" or "11"
  via: [], // the landing squares clicked since, for a capture of several jumps
  partial: [], // a game with dice: the steps clicked so far this turn (dice.js)
  analysisFor: null, // the position the analysis panel shows (dice.js)
  choices: null, // the moves the chooser offers, when a click fits several
  thinking: false,
  sending: false, // a person's move is on its way to the server
  generation: 0, // bumped by every new game, so late answers for an old game are ignored
  messageTimer: null,
};

const el = (id) => document.getElementById(id);
const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// ---------------------------------------------------------------- the API

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new Error("The server cannot be reached. Is `samuel serve` still running?");
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : response.statusText;
    const failure = new Error(detail || `error ${response.status}`);
    failure.status = response.status;
    throw failure;
  }
  return data;
}

// ---------------------------------------------------------------- settings

// The sides in the order a game is played: the one to move first from the start, then the other.
function sidesInTurn() {
  const { sides, first_to_move: first } = app.info;
  return [first, ...sides.filter((side) => side !== first)];
}

function sideName(side) {
  return capitalised(app.info.side_phrases[app.info.sides.indexOf(side)].replace(/^the /, ""));
}

function humanSides() {
  const you = document.querySelector('input[name="you"]:checked').value;
  if (you === "both") return [...app.info.sides];
  if (you === "none") return [];
  return [you];
}

function isHuman(side) {
  return app.game !== null && app.game.players[side] === "human";
}

function opponentSpec() {
  const choice = el("opponent").value;
  if (choice === CUSTOM) return el("spec").value.trim() || "classic";
  const level = app.players.find((player) => player.spec === choice);
  const strength = el("strength").value;
  if (!level) return choice;
  if (!strength || !level.engine) return level.spec;
  return level.engine + (level.engine.includes(":") ? "," : ":") + strength;
}

function settingsKey() {
  return `samuel.settings.${app.info.name}`;
}

function saveSettings() {
  const settings = {
    you: document.querySelector('input[name="you"]:checked').value,
    opponent: el("opponent").value,
    spec: el("spec").value,
    strength: el("strength").value,
    flipped: app.flipped,
  };
  try {
    localStorage.setItem(settingsKey(), JSON.stringify(settings));
  } catch (error) {
    // private browsing: settings are simply not kept
  }
}

function loadSettings() {
  try {
    return JSON.parse(localStorage.getItem(settingsKey()) || "{}") || {};
  } catch (error) {
    return {};
  }
}

// The "You play" choices: each side (the first to move first), both, or neither.
function fillSides(settings) {
  const group = el("you");
  group.replaceChildren();
  const choices = [...sidesInTurn().map((side) => [side, sideName(side)]),
    ["both", "Both"], ["none", "Watch"]];
  for (const [value, label] of choices) {
    const option = document.createElement("label");
    const input = document.createElement("input");
    Object.assign(input, { type: "radio", name: "you", value });
    const text = document.createElement("span");
    text.textContent = label;
    option.append(input, text);
    group.append(option);
  }
  const wanted = choices.some(([value]) => value === settings.you) ? settings.you
    : sidesInTurn()[0];
  document.querySelector(`input[name="you"][value="${wanted}"]`).checked = true;
}

function fillOpponents(list, settings) {
  const select = el("opponent");
  select.replaceChildren();
  const groups = new Map();
  for (const player of list.players) {
    if (!groups.has(player.group)) {
      const group = document.createElement("optgroup");
      group.label = player.group;
      groups.set(player.group, group);
      select.append(group);
    }
    const option = new Option(player.label, player.spec);
    if (player.spec === list.strongest) option.label = `${player.label} ★`;
    groups.get(player.group).append(option);
  }
  const other = groups.get("Other") || select;
  other.append(new Option("Other: type a player spec…", CUSTOM));
  const wanted = settings.opponent;
  const known = wanted === CUSTOM || list.players.some((player) => player.spec === wanted);
  select.value = known ? wanted : list.default;
  el("spec").value = settings.spec || "";
  if (settings.strength !== undefined) el("strength").value = settings.strength;
  showSpecField();
}

function showSpecField() {
  const custom = el("opponent").value === CUSTOM;
  el("spec-field").hidden = !custom;
  const level = app.players.find((player) => player.spec === el("opponent").value);
  el("strength").disabled = !custom && !(level && level.engine);
}

// The words that depend on the game, from GET /api/game.
function describeGame() {
  const info = app.info;
  document.body.dataset.game = info.name;
  document.title = `Samuel · ${info.title}`;
  el("game-title").textContent = info.title;
  el("evaluation").title = `The engine's evaluation, ${info.view}`;
  el("position").placeholder = info.position_example;
  el("position-help").textContent = `${info.position_help} Setting up starts a new game.`;
  el("board").setAttribute("aria-label", app.drawing.label);
}

// ---------------------------------------------------------------- games

async function newGame(start) {
  const sides = humanSides();
  const opponent = opponentSpec();
  const players = {};
  for (const side of app.info.sides) players[side] = sides.includes(side) ? "human" : opponent;
  const body = { players, start: start || "start" };
  const generation = ++app.generation;
  try {
    const game = await api("POST", "/api/games", body);
    if (generation !== app.generation) return;
    hideMessage();
    app.thinking = false;
    setGame(game);
    try {
      localStorage.setItem("samuel.game", game.id);
    } catch (error) {
      // not kept
    }
    return true;
  } catch (error) {
    showMessage(error.message);
    return false;
  }
}

async function resumeGame() {
  let id = null;
  try {
    id = localStorage.getItem("samuel.game");
  } catch (error) {
    id = null;
  }
  if (!id) return false;
  try {
    const game = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    if (game.game !== app.info.name) return false;
    setGame(game);
    return true;
  } catch (error) {
    return false; // the server forgot it (restarted, say): start afresh
  }
}

function putDown() {
  app.selected = null;
  app.via = [];
  app.choices = null;
  app.partial = [];
}

function setGame(game) {
  app.game = game;
  putDown();
  render();
  maybeEngineMove();
}

async function maybeEngineMove() {
  const game = app.game;
  if (!game || game.outcome || app.thinking || isHuman(game.side_to_move)) return;
  if (game.cube && game.cube.decision) return; // a person must answer the cube first
  const generation = app.generation;
  const watching = app.info.sides.every((side) => !isHuman(side));
  if (watching && game.ply > 0) await new Promise((done) => setTimeout(done, WATCH_DELAY_MS));
  if (generation !== app.generation || app.game !== game) return;
  app.thinking = true;
  render();
  try {
    const next = await api("POST", `/api/games/${game.id}/engine-move`);
    if (generation !== app.generation) return;
    app.thinking = false;
    setGame(next);
  } catch (error) {
    if (generation !== app.generation) return;
    app.thinking = false;
    showMessage(error.message);
    render();
  }
}

async function sendMove(text) {
  const game = app.game;
  const generation = app.generation;
  putDown();
  app.sending = true;
  render();
  try {
    const next = await api("POST", `/api/games/${game.id}/moves`, { move: text });
    app.sending = false;
    if (generation !== app.generation) return;
    hideMessage();
    setGame(next);
  } catch (error) {
    app.sending = false;
    showMessage(error.message);
    render();
  }
}

async function undo() {
  const game = app.game;
  if (app.drawing.undoStep && app.drawing.undoStep()) return; // a step of the play clicked
  if (!game || game.ply === 0 || app.thinking) return;
  // Take back to the last position where a person is to move: the engine's reply and your move
  // (and the dice thrown between them, which the server throws again the same).
  let plies = 1;
  const engines = (played) => played.roll || !isHuman(played.side);
  while (plies < game.ply && engines(game.moves[game.ply - plies])) plies += 1;
  if (!isHuman(game.moves[game.ply - plies].side)) plies = 1;
  try {
    const next = await api("POST", `/api/games/${game.id}/undo`, { plies });
    hideMessage();
    app.game = next;
    putDown();
    render();
  } catch (error) {
    showMessage(error.message);
  }
}

// ---------------------------------------------------------------- moves by clicking
//
// A move is clicked as its origin, then its target; a capture of several jumps also by its
// landing squares in turn. As soon as the squares clicked fit one legal move it is played; when
// they fit several that end there (or one ends there and another goes on), a chooser lists them.

function legalMoves() {
  const game = app.game;
  if (!game || game.outcome || app.thinking || app.sending || !isHuman(game.side_to_move)) {
    return [];
  }
  return game.legal_move_paths;
}

// The moves that start on the piece picked up and pass the landing squares clicked so far.
function fittingMoves() {
  if (app.selected === null) return [];
  return legalMoves().filter((move) => move.origin === app.selected
    && app.via.every((square, i) => move.path[i + 1] === square));
}

function clickPoint(square) {
  if (app.drawing.click) return app.drawing.click(square); // a game with dice: dice.js
  const moves = legalMoves();
  app.choices = null;
  if (moves.length === 0) return render();
  if (app.selected !== null) {
    const step = app.via.length + 1;
    const fitting = fittingMoves();
    const ending = fitting.filter((move) => move.target === square);
    // The moves that land on the square further on (usually next: a square may be skipped).
    const landing = (move) => move.path.indexOf(square, step);
    const passing = fitting.filter((move) => move.target !== square && landing(move) > 0);
    const fits = [...ending, ...passing];
    if (fits.length === 1) return sendMove(fits[0].move);
    const ways = new Set(passing.map((move) => move.path.slice(1, landing(move) + 1).join()));
    if (ending.length === 0 && ways.size === 1) { // they go on from here: click on
      app.via = passing[0].path.slice(1, landing(passing[0]) + 1);
      return render();
    }
    if (fits.length > 1) {
      app.choices = fits;
      render();
      el("chooser-moves").firstChild.focus(); // Tab and Enter pick one; Escape puts it down
      return;
    }
  }
  const placement = moves.find((move) => move.origin === null && move.target === square);
  if (placement) return sendMove(placement.move);
  if (moves.some((move) => move.origin === square)) {
    const again = app.selected === square && app.via.length === 0;
    putDown();
    if (!again) app.selected = square;
  } else {
    putDown();
    const piece = app.game.board.find((p) => p.square === square);
    if (piece && piece.side === app.game.side_to_move) {
      const why = app.drawing.whyCannotMove ? app.drawing.whyCannotMove(moves) : "";
      showMessage(`That ${piece.piece} cannot move${why}.`);
    }
  }
  render();
}

// ---------------------------------------------------------------- drawing

function make(tag, attributes, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  if (parent) parent.append(node);
  return node;
}

// The game's drawing (its drawing.js calls this as it loads): label, pointRadius,
// coordinates(square), background(svg), square(group, square), lastMark(group, x, y),
// piece(group, piece, x, y), tallies(game) (one {label, count, icons} for each of the two
// tallies under the board), turnHint(game, you) and, if it has one, whyCannotMove(moves). A
// game with dice hands dice.js's diceBoard instead, which draws the whole board itself
// (drawBoard), takes the clicks (click) and draws its dice controls and analysis
// (renderExtras).
function useDrawing(drawing) {
  app.drawing = drawing;
}

function drawBoard() {
  const svg = el("board");
  svg.replaceChildren();
  const drawing = app.drawing;
  if (!drawing) return;
  if (drawing.drawBoard) return drawing.drawBoard(svg);
  drawing.background(svg);
  const game = app.game;
  if (!game) return;
  const moves = legalMoves();
  const step = app.via.length + 1;
  // The squares a click may go to now: a placement, or for the piece picked up each fitting
  // move's next landing square and its last.
  const targets = new Map(); // square -> whether the move there captures
  for (const move of moves) {
    if (move.origin === null && app.selected === null) targets.set(move.target, false);
  }
  for (const move of fittingMoves()) {
    const capture = move.captured.length > 0;
    targets.set(move.path[step], capture);
    targets.set(move.target, capture);
  }
  const movable = new Set(moves.filter((m) => m.origin !== null).map((m) => m.origin));
  const last = game.last_move;
  const lastSquares = new Set(last ? last.path : []);
  const taken = new Set(last ? last.captured : []);
  const pieces = new Map(game.board.map((piece) => [piece.square, piece]));
  const points = make("g", { class: "points" }, svg);
  for (const square of app.info.squares) {
    const [cx, cy] = drawing.coordinates(square);
    const classes = ["point"];
    if (targets.has(square)) classes.push("target");
    if (targets.get(square)) classes.push("jump-target");
    if (movable.has(square)) classes.push("movable");
    if (square === app.selected) classes.push("selected");
    if (app.via.includes(square)) classes.push("via");
    if (lastSquares.has(square)) classes.push("last");
    const group = make("g", { class: classes.join(" "), "data-point": square }, points);
    if (targets.has(square) || movable.has(square)) {
      group.setAttribute("tabindex", "0");
      group.setAttribute("role", "button");
      const verb = targets.has(square) ? "move to" : "pick up the piece on";
      group.setAttribute("aria-label", `${verb} ${square}`);
    }
    drawing.square(group, square);
    if (lastSquares.has(square)) drawing.lastMark(group, cx, cy);
    const piece = pieces.get(square);
    if (piece) drawing.piece(group, piece, cx, cy);
    if (square === app.selected || app.via.includes(square)) {
      make("circle", { cx, cy, r: drawing.pointRadius - 9, class: "selected-ring" }, group);
    }
    if (targets.has(square)) make("circle", { cx, cy, r: 15, class: "target-dot" }, group);
    if (taken.has(square)) {
      make("path", { d: `M ${cx - 12} ${cy - 12} l 24 24 m 0 -24 l -24 24`,
        class: "captured-mark" }, group);
    }
  }
}

// When the squares clicked fit several moves, a small list of them to pick from.
function drawChooser() {
  const chooser = el("chooser");
  const list = el("chooser-moves");
  list.replaceChildren();
  chooser.hidden = !app.choices;
  if (!app.choices) return;
  for (const move of app.choices) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    button.textContent = move.move;
    button.addEventListener("click", () => sendMove(move.move));
    list.append(button);
  }
}

function drawTallies() {
  const tallies = app.drawing.tallies(app.game);
  tallies.forEach((tally, index) => {
    el(`tally-${index}-label`).textContent = tally.label;
    el(`tally-${index}-count`).textContent = tally.count;
    const container = el(`tally-${index}-icons`);
    container.replaceChildren();
    for (const kind of tally.icons) {
      const icon = document.createElement("span");
      icon.className = `icon ${kind}`;
      container.append(icon);
    }
  });
}

function lastSearch() {
  const game = app.game;
  if (!game) return null;
  for (let i = game.moves.length - 1; i >= 0; i--) {
    if (game.moves[i].search) return game.moves[i].search;
  }
  return null;
}

function drawEngine() {
  const search = lastSearch();
  const bar = el("bar-first");
  el("evaluation").classList.toggle("empty", !search);
  if (!search) {
    bar.style.width = "50%";
    el("score-text").textContent = "No evaluation yet";
    for (const id of ["engine-score", "engine-depth", "engine-nodes", "engine-pv"]) {
      el(id).textContent = "–";
    }
    return;
  }
  // The first player's share of the bar: a forced result fills it or empties it.
  let share;
  if (search.forced_winner) share = search.forced_winner === app.info.sides[0] ? 1 : 0;
  // A zero player's value is already an expected result, -1..1.
  else if (search.expected_result != null) share = 0.5 + 0.5 * search.expected_result;
  else share = 0.5 + 0.5 * Math.tanh(search.score / app.info.evaluation_scale);
  bar.style.width = `${(100 * share).toFixed(1)}%`;
  el("score-text").textContent = search.score_text;
  el("engine-score").textContent = search.score_text;
  el("engine-depth").textContent = String(search.depth);
  const seconds = search.seconds < 0.001 ? "under 1 ms"
    : search.seconds < 1 ? `${Math.round(search.seconds * 1000)} ms`
      : `${search.seconds.toFixed(1)} s`;
  el("engine-nodes").textContent = `${search.nodes.toLocaleString("en")}, ${seconds}`;
  el("engine-pv").textContent = search.principal_variation.join(" ");
}

// The tablebase's value, when the server has one and the hand is empty.
function drawTrueValue() {
  const value = app.game.true_value;
  el("true-value-row").hidden = !value;
  el("true-value").textContent = value ? value.text : "–";
}

// Numbered as in the record: a number for each move of the first to move and the reply.
function drawMoves() {
  const game = app.game;
  const first = app.info.first_to_move;
  const list = el("moves");
  list.replaceChildren();
  el("moves-empty").hidden = game.moves.some((played) => !played.roll);
  let item = null;
  let thrown = ""; // a game with dice: the roll, shown with the play that follows it
  game.moves.forEach((played, index) => {
    if (played.roll) {
      thrown = `${played.move}: `;
      return;
    }
    if (item === null || played.side === first) {
      item = document.createElement("li");
      list.append(item);
      if (played.side !== first) {
        const gap = document.createElement("span");
        gap.className = "gap";
        gap.textContent = "…";
        item.append(gap);
      }
    }
    const ply = document.createElement("span");
    ply.className = `ply ${played.side}`;
    ply.textContent = thrown + played.move;
    thrown = "";
    ply.dataset.ply = String(index + 1);
    if (played.search) ply.title = `${played.search.player}: ${played.search.score_text}`;
    if (index === game.moves.length - 1) ply.classList.add("current");
    item.append(ply);
    if (played.side !== first) item = null;
  });
  list.scrollTop = list.scrollHeight; // the latest move in view, without scrolling the page
}

function statusText() {
  const game = app.game;
  if (!game) return ["loading", "Loading…"];
  if (game.outcome) return ["over", `Game over. ${game.outcome.message}`];
  const side = game.side_to_move;
  const name = sideName(side);
  if (app.thinking) return ["thinking", `${name}: ${game.players[side]} is thinking…`];
  if (app.sending) return ["sending", `${name}: sending your move…`];
  const cube = game.cube;
  if (cube && cube.decision) { // a person's cube decision, before the dice are thrown
    const you = app.info.sides.every(isHuman) ? sideName(cube.decider) : "Your turn";
    return ["your-turn", app.drawing.turnHint(game, you)];
  }
  if (!isHuman(side)) return ["waiting", `${name} to move`];
  const you = app.info.sides.every(isHuman) ? name : "Your move";
  if (app.choices) return ["your-turn", `${you}: pick one of these moves`];
  return ["your-turn", app.drawing.turnHint(game, you)];
}

function render() {
  const game = app.game;
  const [status, text] = statusText();
  document.body.dataset.status = status;
  document.body.dataset.ply = game ? String(game.ply) : "";
  el("status").textContent = text;
  el("status").className = `status ${status}` + (game && game.outcome
    ? ` ${game.outcome.winner || "draw"}` : "");
  drawBoard();
  drawChooser();
  if (!game) return;
  drawTallies();
  drawEngine();
  drawTrueValue();
  drawMoves();
  if (app.drawing.renderExtras) app.drawing.renderExtras(game);
  el("undo").disabled = app.partial.length === 0 && (app.thinking || game.ply === 0
    || !game.moves.some((played) => !played.roll && isHuman(played.side)));
  el("download").href = game.record;
  el("download").setAttribute("download", `samuel-${game.id}${app.info.record_suffix}`);
  el("current-position").textContent = game.position;
}

// ---------------------------------------------------------------- messages

function showMessage(text) {
  const box = el("message");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(app.messageTimer);
  app.messageTimer = setTimeout(hideMessage, MESSAGE_MS);
}

function hideMessage() {
  el("message").hidden = true;
  clearTimeout(app.messageTimer);
}

// ---------------------------------------------------------------- start

async function start() {
  try {
    app.info = await api("GET", "/api/game");
  } catch (error) {
    showMessage(error.message);
    return;
  }
  describeGame();
  const settings = loadSettings();
  fillSides(settings);
  app.flipped = Boolean(settings.flipped);
  el("board").addEventListener("click", (event) => {
    const group = event.target.closest(".point");
    if (group) clickPoint(group.dataset.point);
  });
  el("board").addEventListener("keydown", (event) => {
    const group = event.target.closest(".point");
    if (group && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      clickPoint(group.dataset.point);
      if (app.choices) return; // the chooser has the focus
      const again = el("board").querySelector(`[data-point="${group.dataset.point}"]`);
      if (again && again.getAttribute("tabindex")) again.focus();
    }
  });
  el("chooser-cancel").addEventListener("click", () => {
    putDown();
    render();
  });
  el("message").addEventListener("click", hideMessage);
  el("new-game").addEventListener("click", () => newGame());
  el("undo").addEventListener("click", undo);
  el("flip").addEventListener("click", () => {
    app.flipped = !app.flipped;
    saveSettings();
    render();
  });
  el("opponent").addEventListener("change", () => {
    showSpecField();
    saveSettings();
  });
  el("you").addEventListener("change", saveSettings);
  for (const control of [el("spec"), el("strength")]) {
    control.addEventListener("change", saveSettings);
  }
  el("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = el("position").value.trim();
    if (!text) {
      return showMessage(`Type a position string first, such as ${app.info.position_example}.`);
    }
    if (await newGame(text)) {
      el("position").value = "";
      el("position").blur();
      const top = el("status").getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight / 2) el("status").scrollIntoView({ block: "start" });
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && (app.selected !== null || app.choices)) {
      putDown();
      render();
    }
  });
  render();
  try {
    const list = await api("GET", "/api/players");
    app.players = list.players;
    fillOpponents(list, settings);
  } catch (error) {
    showMessage(error.message);
  }
  if (!(await resumeGame())) await newGame();
}

document.addEventListener("DOMContentLoaded", start); // once the game's drawing has loaded
