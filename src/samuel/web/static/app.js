// Samuel's page: draws the board, lets a person move by clicking, and asks the server's engine
// to move. Everything the game knows comes from the JSON API (docs/web.md); this file only
// draws it and sends what was clicked.
"use strict";

const FILES = "abcde";
const SIZE = 5;
const MARGIN = 70; // board coordinates: the SVG's viewBox is 560 x 560
const STEP = 105;
const CUSTOM = "__custom";
const SVG = "http://www.w3.org/2000/svg";
const WATCH_DELAY_MS = 350; // between engine moves when nobody plays, so they can be followed
const MESSAGE_MS = 8000;

const app = {
  game: null,
  players: [],
  flipped: false,
  selected: null, // the point of the piece picked up, e.g. "a1"
  thinking: false,
  sending: false, // a person's move is on its way to the server
  generation: 0, // bumped by every new game, so late answers for an old game are ignored
  messageTimer: null,
};

const el = (id) => document.getElementById(id);

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

function humanSides() {
  const you = document.querySelector('input[name="you"]:checked').value;
  return { sheep: ["sheep", "both"], tigers: ["tigers", "both"], both: ["sheep", "tigers"],
    none: [] }[you];
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

function saveSettings() {
  const settings = {
    you: document.querySelector('input[name="you"]:checked').value,
    opponent: el("opponent").value,
    spec: el("spec").value,
    strength: el("strength").value,
    flipped: app.flipped,
  };
  try {
    localStorage.setItem("samuel.settings", JSON.stringify(settings));
  } catch (error) {
    // private browsing: settings are simply not kept
  }
}

function loadSettings() {
  try {
    return JSON.parse(localStorage.getItem("samuel.settings") || "{}") || {};
  } catch (error) {
    return {};
  }
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

// ---------------------------------------------------------------- games

async function newGame(start) {
  const sides = humanSides();
  const opponent = opponentSpec();
  const players = {
    tigers: sides.includes("tigers") ? "human" : opponent,
    sheep: sides.includes("sheep") ? "human" : opponent,
  };
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
    setGame(await api("GET", `/api/games/${encodeURIComponent(id)}`));
    return true;
  } catch (error) {
    return false; // the server forgot it (restarted, say): start afresh
  }
}

function setGame(game) {
  app.game = game;
  app.selected = null;
  render();
  maybeEngineMove();
}

async function maybeEngineMove() {
  const game = app.game;
  if (!game || game.outcome || app.thinking || isHuman(game.side_to_move)) return;
  const generation = app.generation;
  const watching = !isHuman("sheep") && !isHuman("tigers");
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
  app.selected = null;
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
  if (!game || game.ply === 0 || app.thinking) return;
  // Take back to the last position where a person is to move: the engine's reply and your move.
  let plies = 1;
  while (plies < game.ply && !isHuman(game.moves[game.ply - plies].side)) plies += 1;
  if (!isHuman(game.moves[game.ply - plies].side)) plies = 1;
  try {
    const next = await api("POST", `/api/games/${game.id}/undo`, { plies });
    hideMessage();
    app.game = next;
    app.selected = null;
    render();
  } catch (error) {
    showMessage(error.message);
  }
}

// ---------------------------------------------------------------- moves by clicking

function parseMove(text) {
  const match = /^([a-e][1-5])(?:([-x])([a-e][1-5]))?$/.exec(text);
  if (!match) return null;
  if (!match[2]) return { text, origin: null, target: match[1], jump: false };
  return { text, origin: match[1], target: match[3], jump: match[2] === "x" };
}

function legalMoves() {
  const game = app.game;
  if (!game || game.outcome || app.thinking || app.sending || !isHuman(game.side_to_move)) {
    return [];
  }
  return game.legal_moves.map(parseMove).filter(Boolean);
}

function clickPoint(point) {
  const moves = legalMoves();
  if (moves.length === 0) return;
  if (app.selected) {
    const move = moves.find((m) => m.origin === app.selected && m.target === point);
    if (move) return sendMove(move.text);
  }
  const placement = moves.find((m) => m.origin === null && m.target === point);
  if (placement) return sendMove(placement.text);
  if (moves.some((m) => m.origin === point)) {
    app.selected = app.selected === point ? null : point;
  } else {
    app.selected = null;
    const own = app.game.side_to_move === "tigers" ? app.game.tigers : app.game.sheep;
    if (own.includes(point)) {
      showMessage(`That ${app.game.side_to_move === "tigers" ? "tiger" : "sheep"} cannot move.`);
    }
  }
  render();
}

// ---------------------------------------------------------------- drawing

function coordinates(point) {
  const x = FILES.indexOf(point[0]);
  const y = Number(point[1]) - 1;
  const sx = app.flipped ? SIZE - 1 - x : x;
  const sy = app.flipped ? y : SIZE - 1 - y;
  return [MARGIN + STEP * sx, MARGIN + STEP * sy];
}

function make(tag, attributes, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  if (parent) parent.append(node);
  return node;
}

function drawLines(svg) {
  const lines = make("g", { class: "lines" }, svg);
  const pointName = (x, y) => FILES[x] + (y + 1);
  const join = (a, b) => {
    const [x1, y1] = coordinates(a);
    const [x2, y2] = coordinates(b);
    make("line", { x1, y1, x2, y2 }, lines);
  };
  for (let i = 0; i < SIZE; i++) {
    join(pointName(0, i), pointName(SIZE - 1, i));
    join(pointName(i, 0), pointName(i, SIZE - 1));
  }
  join("a1", "e5");
  join("a5", "e1");
  join("a3", "c5");
  join("c5", "e3");
  join("e3", "c1");
  join("c1", "a3");
  const labels = make("g", { class: "labels" }, svg);
  for (let i = 0; i < SIZE; i++) {
    const [fx] = coordinates(pointName(i, 0));
    const file = make("text", { x: fx, y: 548, "text-anchor": "middle" }, labels);
    file.textContent = FILES[i];
    const [, ry] = coordinates(pointName(0, i));
    const rank = make("text", { x: 16, y: ry + 6, "text-anchor": "middle" }, labels);
    rank.textContent = String(i + 1);
  }
}

function drawTiger(group, x, y) {
  const piece = make("g", { class: "piece tiger", transform: `translate(${x} ${y})` }, group);
  make("circle", { r: 33, class: "tiger-body" }, piece);
  for (const d of [
    "M -24 -14 q 9 3 13 11", "M 24 -14 q -9 3 -13 11",
    "M -27 6 q 10 -1 15 5", "M 27 6 q -10 -1 -15 5",
    "M -6 -31 q 6 6 0 13", "M 6 -31 q -6 6 0 13",
  ]) {
    make("path", { d, class: "tiger-stripe" }, piece);
  }
  make("circle", { r: 4.2, cx: -10, cy: -2, class: "tiger-eye" }, piece);
  make("circle", { r: 4.2, cx: 10, cy: -2, class: "tiger-eye" }, piece);
  make("path", { d: "M -6 12 l 6 5 l 6 -5 z", class: "tiger-nose" }, piece);
}

function drawSheep(group, x, y) {
  const piece = make("g", { class: "piece sheep", transform: `translate(${x} ${y})` }, group);
  for (let i = 0; i < 10; i++) {
    const angle = (i / 10) * 2 * Math.PI;
    make("circle", { r: 9, cx: 22 * Math.cos(angle), cy: 22 * Math.sin(angle),
      class: "sheep-wool" }, piece);
  }
  make("circle", { r: 24, class: "sheep-wool" }, piece);
  make("ellipse", { rx: 11, ry: 13, cy: 2, class: "sheep-face" }, piece);
  make("circle", { r: 2.6, cx: -4.5, cy: -1, class: "sheep-eye" }, piece);
  make("circle", { r: 2.6, cx: 4.5, cy: -1, class: "sheep-eye" }, piece);
}

function lastMove() {
  const game = app.game;
  return game && game.moves.length ? parseMove(game.moves[game.moves.length - 1].move) : null;
}

function drawBoard() {
  const svg = el("board");
  svg.replaceChildren();
  make("rect", { x: 0, y: 0, width: 560, height: 560, rx: 18, class: "board-bg" }, svg);
  drawLines(svg);
  const game = app.game;
  if (!game) return;
  const moves = legalMoves();
  const targets = new Map();
  for (const move of moves) {
    if (move.origin === null || move.origin === app.selected) targets.set(move.target, move);
  }
  const movable = new Set(moves.filter((m) => m.origin !== null).map((m) => m.origin));
  const last = lastMove();
  const captured = last && last.jump ? midpoint(last.origin, last.target) : null;
  const points = make("g", { class: "points" }, svg);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const point = FILES[x] + (y + 1);
      const [cx, cy] = coordinates(point);
      const classes = ["point"];
      if (targets.has(point)) classes.push("target");
      if (targets.has(point) && targets.get(point).jump) classes.push("jump-target");
      if (movable.has(point)) classes.push("movable");
      if (point === app.selected) classes.push("selected");
      if (last && (point === last.target || point === last.origin)) classes.push("last");
      const group = make("g", { class: classes.join(" "), "data-point": point }, points);
      if (targets.has(point) || movable.has(point)) {
        group.setAttribute("tabindex", "0");
        group.setAttribute("role", "button");
        const verb = targets.has(point) ? "move to" : "pick up the piece on";
        group.setAttribute("aria-label", `${verb} ${point}`);
      }
      make("circle", { cx, cy, r: 50, class: "hit" }, group);
      make("circle", { cx, cy, r: 6, class: "dot" }, group);
      if (classes.includes("last")) make("circle", { cx, cy, r: 42, class: "last-ring" }, group);
      if (game.tigers.includes(point)) drawTiger(group, cx, cy);
      else if (game.sheep.includes(point)) drawSheep(group, cx, cy);
      if (point === app.selected) make("circle", { cx, cy, r: 41, class: "selected-ring" }, group);
      if (targets.has(point)) make("circle", { cx, cy, r: 15, class: "target-dot" }, group);
      if (point === captured) {
        make("path", { d: `M ${cx - 12} ${cy - 12} l 24 24 m 0 -24 l -24 24`,
          class: "captured-mark" }, group);
      }
    }
  }
}

function midpoint(a, b) {
  const x = (FILES.indexOf(a[0]) + FILES.indexOf(b[0])) / 2;
  const y = (Number(a[1]) + Number(b[1])) / 2;
  return FILES[x] + y;
}

function icons(container, count, kind) {
  container.replaceChildren();
  for (let i = 0; i < count; i++) {
    const icon = document.createElement("span");
    icon.className = `icon ${kind}`;
    container.append(icon);
  }
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
  const bar = el("bar-tigers");
  el("evaluation").classList.toggle("empty", !search);
  if (!search) {
    bar.style.width = "50%";
    el("score-text").textContent = "No evaluation yet";
    for (const id of ["engine-score", "engine-depth", "engine-nodes", "engine-pv"]) {
      el(id).textContent = "–";
    }
    return;
  }
  // The tigers' share of the bar: a forced result fills it; a sheep captured is worth a lot.
  let share;
  if (search.forced_winner) share = search.forced_winner === "tigers" ? 1 : 0;
  else share = 0.5 + 0.5 * Math.tanh(search.score / 2.5);
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

function drawMoves() {
  const game = app.game;
  const list = el("moves");
  list.replaceChildren();
  el("moves-empty").hidden = game.moves.length > 0;
  let item = null;
  game.moves.forEach((played, index) => {
    if (item === null || played.side === "sheep") {
      item = document.createElement("li");
      list.append(item);
      if (played.side === "tigers") {
        const gap = document.createElement("span");
        gap.className = "gap";
        gap.textContent = "…";
        item.append(gap);
      }
    }
    const ply = document.createElement("span");
    ply.className = `ply ${played.side}`;
    ply.textContent = played.move;
    ply.dataset.ply = String(index + 1);
    if (played.search) ply.title = `${played.search.player}: ${played.search.score_text}`;
    if (index === game.moves.length - 1) ply.classList.add("current");
    item.append(ply);
    if (played.side === "tigers") item = null;
  });
  list.scrollTop = list.scrollHeight; // the latest move in view, without scrolling the page
}

function statusText() {
  const game = app.game;
  if (!game) return ["loading", "Loading…"];
  if (game.outcome) return ["over", `Game over. ${game.outcome.message}`];
  const side = game.side_to_move;
  const name = side === "tigers" ? "Tigers" : "Sheep";
  if (app.thinking) return ["thinking", `${name}: ${game.players[side]} is thinking…`];
  if (app.sending) return ["sending", `${name}: sending your move…`];
  if (!isHuman(side)) return ["waiting", `${name} to move`];
  const you = isHuman("sheep") && isHuman("tigers") ? name : "Your move";
  if (side === "sheep" && game.sheep_in_hand > 0) {
    return ["your-turn", `${you}: place a sheep on an empty point`];
  }
  if (side === "sheep") return ["your-turn", `${you}: move a sheep along a line`];
  return ["your-turn", `${you}: move a tiger, or jump a sheep to capture it`];
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
  if (!game) return;
  el("in-hand").textContent = String(game.sheep_in_hand);
  el("captured").textContent = `${game.captured} of 5`;
  icons(el("in-hand-icons"), game.sheep_in_hand, "sheep");
  icons(el("captured-icons"), game.captured, "sheep taken");
  drawEngine();
  drawTrueValue();
  drawMoves();
  el("undo").disabled = app.thinking || game.ply === 0
    || !game.moves.some((played) => isHuman(played.side));
  el("download").href = game.record;
  el("download").setAttribute("download", `samuel-${game.id}.txt`);
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
  const settings = loadSettings();
  if (settings.you) {
    const radio = document.querySelector(`input[name="you"][value="${settings.you}"]`);
    if (radio) radio.checked = true;
  }
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
      const again = el("board").querySelector(`[data-point="${group.dataset.point}"]`);
      if (again && again.getAttribute("tabindex")) again.focus();
    }
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
  for (const control of [el("spec"), el("strength"), ...document.querySelectorAll('input[name="you"]')]) {
    control.addEventListener("change", saveSettings);
  }
  el("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = el("position").value.trim();
    if (!text) return showMessage("Type a position string first, such as T3T/5/5/5/T3T S 20.");
    if (await newGame(text)) {
      el("position").value = "";
      el("position").blur();
      const top = el("status").getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight / 2) el("status").scrollIntoView({ block: "start" });
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && app.selected) {
      app.selected = null;
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

start();
