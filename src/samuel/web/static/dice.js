// The page's games with dice (backgammon, long nardy): a board of 24 points with its bar and
// trays, the dice and the cube, moves clicked a step at a time, the cube's buttons and the
// analysis panel. Loaded after app.js, whose helpers it uses (make, VIEW, app, api, sideName,
// render, sendMove, showMessage); a game's drawing.js hands useDrawing a diceBoard(layout).
// Every rule comes from the server: the legal plays with their steps (legal_move_paths), and
// why a click is refused (POST /api/games/{id}/why-not).
"use strict";

const DICE_BOARD = { margin: 10, column: 38, bar: 34, tray: 44, height: 200, radius: 16 };
const ANALYSIS_PLAYS = 8; // plays listed in the analysis panel
const EQUITY_RANGE = 3; // the equity bar runs from -3 to +3 points (a backgammon either way)

// ---------------------------------------------------------------- the partial play

const sameStep = (a, b) => a.from === b.from && a.to === b.to;

// A play's steps not yet clicked (by from and to), or null if the clicked ones are not all in it.
function stepsLeft(play) {
  const left = [...play.steps];
  for (const step of app.partial) {
    const at = left.findIndex((s) => sameStep(s, step));
    if (at < 0) return null;
    left.splice(at, 1);
  }
  return left;
}

// The legal plays that hold the steps clicked so far.
function fittingPlays() {
  return legalMoves().filter((play) => stepsLeft(play) !== null);
}

// The shortest chain of ``steps`` taking one checker from ``origin`` to ``target``, or null.
function chainTo(steps, origin, target) {
  const direct = steps.find((s) => s.from === origin && s.to === target);
  if (direct) return [direct];
  for (const step of steps.filter((s) => s.from === origin)) {
    const rest = steps.filter((s) => s !== step);
    const chain = chainTo(rest, step.to, target);
    if (chain) return [step, ...chain];
  }
  return null;
}

// The squares with a checker of the side to play that a step left of some play starts from.
function movableSquares(plays) {
  const stacks = stacksShown(app.game);
  const mine = (square) => {
    const stack = stacks.get(square);
    return stack && stack.count > 0 && stack.side === app.game.side_to_move;
  };
  return new Set(plays.flatMap((play) => stepsLeft(play).map((s) => s.from)).filter(mine));
}

function targetSquares(plays, origin) {
  const targets = new Set();
  for (const play of plays) {
    const left = stepsLeft(play);
    const reach = (from, steps) => {
      for (const step of steps.filter((s) => s.from === from)) {
        targets.add(step.to);
        reach(step.to, steps.filter((s) => s !== step));
      }
    };
    reach(origin, left);
  }
  return targets;
}

// Ask the server why a click is refused, and say it.
async function explainRefusal(origin, target) {
  const game = app.game;
  const body = { steps: app.partial.map((s) => ({ from: s.from, to: s.to })), from: origin, to: target };
  try {
    const answer = await api("POST", `/api/games/${game.id}/why-not`, body);
    if (app.game === game) showMessage(answer.reason);
  } catch (error) {
    showMessage(error.message);
  }
}

function diceClick(square) {
  const plays = fittingPlays();
  app.choices = null;
  if (plays.length === 0) return render();
  const movable = movableSquares(plays);
  if (app.selected === null) {
    if (movable.has(square)) {
      app.selected = square;
      return render();
    }
    const mine = app.game.board.some((p) => p.square === square && p.side === app.game.side_to_move);
    if (mine && !square.startsWith("off-")) explainRefusal(square, null);
    return render();
  }
  const origin = app.selected;
  if (square === origin) {
    app.selected = null;
    return render();
  }
  // The plays that move the checker picked up to the square clicked, by a step or a chain.
  const chains = plays.map((play) => [play, chainTo(stepsLeft(play), origin, square)])
    .filter(([, chain]) => chain !== null);
  if (chains.length === 0) {
    if (movable.has(square)) { // another checker: pick that one up instead
      app.selected = square;
      return render();
    }
    app.selected = null;
    render();
    return explainRefusal(origin, square);
  }
  if (chains.length === 1) return sendMove(chains[0][0].move); // the only play that does it
  chains.sort((a, b) => a[1].length - b[1].length);
  app.partial.push(...chains[0][1]);
  app.selected = null;
  const whole = plays.filter((play) => stepsLeft(play) !== null && stepsLeft(play).length === 0);
  if (whole.length === 1) return sendMove(whole[0].move);
  if (whole.length > 1) app.choices = whole; // the same steps, hitting or not: pick one
  render();
  if (app.choices) el("chooser-moves").firstChild.focus();
}

// Take back the last step clicked; whether there was one.
function undoStep() {
  if (app.partial.length === 0) return false;
  app.partial.pop();
  app.selected = null;
  app.choices = null;
  render();
  return true;
}

// ---------------------------------------------------------------- the board

// The board as the steps clicked so far leave it (for the eye only: the server plays the play).
function stacksShown(game) {
  const stacks = new Map(game.board.map((p) => [p.square, { side: p.side, count: p.count }]));
  const other = app.info.sides.find((side) => side !== game.side_to_move);
  for (const step of app.partial) {
    const from = stacks.get(step.from);
    if (from) from.count -= 1;
    if (step.hit) {
      stacks.delete(step.to);
      const bar = stacks.get(`bar-${other}`) || { side: other, count: 0 };
      bar.count += 1;
      stacks.set(`bar-${other}`, bar);
    }
    const to = stacks.get(step.to) || { side: game.side_to_move, count: 0 };
    to.count += 1;
    stacks.set(step.to, to);
  }
  return stacks;
}

function diceBoard(layout) {
  const { margin, column, bar, tray, height, radius } = DICE_BOARD;
  const right = margin + 12 * column + bar; // where the tray starts
  const top = 20;
  const bottom = VIEW - 20;

  // Where a square is: [x of its column's centre, y of its base, +1 down or -1 up].
  function place(square) {
    let row;
    let col;
    if (square.startsWith("bar-") || square.startsWith("off-")) {
      const upper = square.endsWith(layout.upper);
      row = app.flipped ? !upper : upper;
      const x = square.startsWith("bar-") ? margin + 6 * column + bar / 2 : right + tray / 2;
      return [x, row ? top + 6 : bottom - 6, row ? 1 : -1];
    }
    const p = Number(square);
    row = p >= 13; // the first player's 13-24 along the top, 12-1 along the bottom
    col = p >= 13 ? p - 13 : 12 - p;
    if (app.flipped) {
      row = !row;
      col = 11 - col;
    }
    const x = margin + column * (col + 0.5) + (col >= 6 ? bar : 0);
    return row ? [x, top, 1] : [x, bottom, -1];
  }

  function drawStack(group, stack, square) {
    const [x, base, down] = place(square);
    const tray = square.startsWith("off-");
    const shown = Math.min(stack.count, tray ? 15 : 5);
    for (let k = 0; k < shown; k++) {
      if (tray) { // borne off: thin slices
        make("rect", { x: x - radius, y: base + down * (k * 10) - (down < 0 ? 9 : 0), width: 2 * radius,
          height: 9, rx: 2, class: `checker ${stack.side}` }, group);
        continue;
      }
      const y = base + down * (radius + 2 * radius * k);
      make("circle", { cx: x, cy: y, r: radius - 1, class: `checker ${stack.side}` }, group);
    }
    if (stack.count > 1 && !tray) {
      const y = base + down * (radius + 2 * radius * (shown - 1));
      make("text", { x, y: y + 5, "text-anchor": "middle", class: `count ${stack.side}` }, group)
        .textContent = String(stack.count);
    }
    if (tray && stack.count > 0) {
      const y = base + down * (shown * 10 + 14);
      make("text", { x, y: y + 4, "text-anchor": "middle", class: "tray-count" }, group)
        .textContent = String(stack.count);
    }
  }

  function drawDice(svg, game) {
    if (!game.dice) return;
    const used = app.partial.map((s) => s.die);
    const faces = game.dice[0] === game.dice[1] ? [...game.dice, ...game.dice] : [...game.dice];
    const size = faces.length > 2 ? 26 : 34;
    const left = margin + 6 * column + bar + 3 * column - (faces.length * (size + 8)) / 2;
    const group = make("g", { class: "dice", "aria-label": `dice ${game.dice.join("-")}` }, svg);
    faces.forEach((face, k) => {
      const spent = used.indexOf(face);
      if (spent >= 0) used.splice(spent, 1);
      const x = left + k * (size + 8);
      const y = VIEW / 2 - size / 2;
      const die = make("g", { class: `die${spent >= 0 ? " used" : ""}`, "data-die": face }, group);
      make("rect", { x, y, width: size, height: size, rx: 6, class: "die-face" }, die);
      const pips = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]],
        4: [[0, 0], [0, 2], [2, 0], [2, 2]], 5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]],
        6: [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]] }[face];
      for (const [i, j] of pips) {
        make("circle", { cx: x + size * (0.22 + 0.28 * i), cy: y + size * (0.22 + 0.28 * j),
          r: size / 11, class: "pip" }, die);
      }
    });
  }

  function drawCube(svg, game) {
    const cube = game.cube;
    if (!cube) return;
    const x = margin + 6 * column + bar / 2;
    let y = VIEW / 2; // centred; else on its owner's side (the first player's at the bottom)
    if (cube.owner) y = cube.owner === app.info.sides[app.flipped ? 1 : 0] ? VIEW - 120 : 120;
    const group = make("g", { class: `cube${cube.offered_by ? " offered" : ""}`,
      "aria-label": `the cube: ${cube.value}` }, svg);
    make("rect", { x: x - 15, y: y - 15, width: 30, height: 30, rx: 4, class: "cube-face" }, group);
    make("text", { x, y: y + 6, "text-anchor": "middle", class: "cube-value" }, group)
      .textContent = String(cube.offered_by ? cube.value * 2 : cube.value === 1 ? 64 : cube.value);
  }

  return {
    label: layout.label,
    pointRadius: radius,

    drawBoard(svg) {
      make("rect", { x: 0, y: 0, width: VIEW, height: VIEW, rx: 12, class: "board-frame" }, svg);
      for (const half of [0, 1]) {
        make("rect", { x: margin + half * (6 * column + bar), y: top, width: 6 * column,
          height: bottom - top, class: "board-felt" }, svg);
      }
      make("rect", { x: margin + 6 * column, y: top, width: bar, height: bottom - top,
        class: layout.bar ? "board-bar" : "board-divider" }, svg);
      make("rect", { x: right + 2, y: top, width: tray - 4, height: bottom - top, rx: 4,
        class: "board-tray" }, svg);
      const game = app.game;
      if (!game) return;
      const plays = fittingPlays();
      const movable = movableSquares(plays);
      const targets = app.selected === null ? new Set() : targetSquares(plays, app.selected);
      const last = new Set(game.last_move ? game.last_move.path : []);
      const stacks = stacksShown(game);
      const points = make("g", { class: "points" }, svg);
      for (const square of app.info.squares) {
        const [x, base, down] = place(square);
        const classes = ["point", square.startsWith("off-") ? "tray" : square.startsWith("bar-")
          ? "bar-square" : "spike"];
        if (movable.has(square)) classes.push("movable");
        if (targets.has(square)) classes.push("target");
        if (square === app.selected) classes.push("selected");
        if (last.has(square)) classes.push("last");
        const group = make("g", { class: classes.join(" "), "data-point": square }, points);
        if (movable.has(square) || targets.has(square)) {
          group.setAttribute("tabindex", "0");
          group.setAttribute("role", "button");
          group.setAttribute("aria-label", `${targets.has(square) ? "move to" : "pick up from"} ${square}`);
        }
        if (classes.includes("spike")) {
          const p = Number(square);
          const tip = base + down * height;
          make("path", { d: `M ${x - column / 2} ${base} L ${x} ${tip} L ${x + column / 2} ${base} Z`,
            class: `spike-shape ${p % 2 ? "odd" : "even"}` }, group);
          make("rect", { x: x - column / 2, y: Math.min(base, tip), width: column, height,
            class: "hit" }, group);
          make("text", { x, y: base - down * 6 + (down > 0 ? 0 : 8), "text-anchor": "middle",
            class: "point-number" }, group).textContent = square;
        } else {
          const w = square.startsWith("off-") ? tray - 4 : bar;
          make("rect", { x: x - w / 2, y: down > 0 ? base - 6 : base - 200 + 6, width: w,
            height: 200, class: "hit" }, group);
        }
        const stack = stacks.get(square);
        if (stack && stack.count > 0) drawStack(group, stack, square);
        if (targets.has(square)) {
          const y = base + down * (radius + 2 * radius * Math.min(stack ? stack.count : 0, 4));
          make("circle", { cx: x, cy: y, r: 9, class: "target-dot" }, group);
        }
        if (square === app.selected) {
          const y = base + down * (radius + 2 * radius * (Math.min(stack ? stack.count : 1, 5) - 1));
          make("circle", { cx: x, cy: y, r: radius + 2, class: "selected-ring" }, group);
        }
      }
      drawDice(svg, game);
      drawCube(svg, game);
    },

    click: diceClick,

    tallies(game) {
      return app.info.sides.map((side) => {
        const off = game.board.find((p) => p.square === `off-${side}`);
        const onBar = game.board.find((p) => p.square === `bar-${side}`);
        const pips = pipCount(game, side);
        let count = `${off ? off.count : 0} off, ${pips} pips`;
        if (onBar) count += `, ${onBar.count} on the bar`;
        return { label: sideName(side), count, icons: [`disc ${side}`] };
      });
    },

    turnHint(game, you) {
      const cube = game.cube;
      if (cube && cube.decision === "take") {
        return `${sideName(cube.offered_by)} doubles to ${cube.value * 2}: take or pass?`;
      }
      if (cube && cube.decision === "double") return `${you}: double, or roll the dice`;
      const moves = legalMoves();
      if (moves.length === 1 && moves[0].steps.length === 0) {
        return `${you}: ${game.dice.join("-")} cannot be played; pass`;
      }
      if (app.partial.length > 0) return `${you}: go on with the dice left (Undo step takes one back)`;
      return `${you}: ${game.dice.join("-")}, click a checker, then where it goes`;
    },

    renderExtras(game) {
      renderDiceControls(game);
      refreshAnalysis(game);
    },

    undoStep,
  };
}

// Each side's pips still to go, from the board in the first player's numbering.
function pipCount(game, side) {
  const first = side === app.info.sides[0];
  let pips = 0;
  for (const piece of game.board) {
    if (piece.side !== side || piece.square.startsWith("off-")) continue;
    if (piece.square.startsWith("bar-")) pips += 25 * piece.count;
    else {
      const p = Number(piece.square);
      pips += piece.count * (first ? p : app.info.name === "backgammon" ? 25 - p : (p + 11) % 24 + 1);
    }
  }
  return pips;
}

// ---------------------------------------------------------------- the cube's buttons

function renderDiceControls(game) {
  el("dice-controls").hidden = false;
  const cube = game.cube;
  const human = isHuman(game.side_to_move) || (cube && cube.decider && isHuman(cube.decider));
  const ready = !game.outcome && !app.thinking && !app.sending && human;
  const decision = ready && cube ? cube.decision : null;
  el("roll").hidden = decision !== "double";
  el("double").hidden = decision !== "double";
  if (cube) el("double").textContent = `Double to ${cube.value * 2}`;
  el("take").hidden = decision !== "take";
  el("pass").hidden = decision !== "take";
  const moves = legalMoves();
  el("no-play").hidden = !(moves.length === 1 && moves[0].steps.length === 0);
  el("undo-step").hidden = app.partial.length === 0;
  el("cube-text").textContent = !cube ? ""
    : cube.owner ? `Cube ${cube.value}, ${sideName(cube.owner)}'s` : `Cube centred (${cube.value})`;
}

async function cubeAction(action) {
  const game = app.game;
  app.sending = true;
  render();
  try {
    const next = await api("POST", `/api/games/${game.id}/cube`, { action });
    app.sending = false;
    hideMessage();
    setGame(next);
  } catch (error) {
    app.sending = false;
    showMessage(error.message);
    render();
  }
}

// ---------------------------------------------------------------- the analysis panel

async function refreshAnalysis(game) {
  const panel = el("analysis-panel");
  panel.hidden = false;
  if (game.outcome) {
    el("analysis-text").textContent = "The game is over.";
    return;
  }
  if (app.analysisFor === game.position || app.thinking) return;
  app.analysisFor = game.position;
  const body = { position: game.position, ply: 0 };
  const cube = game.cube;
  if (cube && !game.dice) {
    const owner = !cube.owner ? "centred" : cube.owner === game.side_to_move ? "on_roll" : "opponent";
    body.cube = { value: cube.value, owner, jacoby: cube.jacoby };
  }
  let found;
  try {
    found = await api("POST", "/v1/analyse", body);
  } catch (error) {
    el("analysis-text").textContent = `No analysis: ${error.message}`;
    return;
  }
  if (app.game !== game) return;
  const best = found.moves.length ? found.moves[0].value : found.value;
  const share = Math.max(0, Math.min(1, (best + EQUITY_RANGE) / (2 * EQUITY_RANGE)));
  el("equity-bar").style.width = `${(100 * share).toFixed(1)}%`;
  const who = sideName(found.side_to_move);
  el("analysis-text").textContent = found.moves.length
    ? `${who} to play ${game.dice.join("-")}: best ${signed(best)} points (${found.model.player}, 0-ply)`
    : `${who} to roll: ${signed(found.value)} points`;
  el("cube-advice").textContent = found.cube ? `Cube: ${found.cube.decision}` : "";
  const list = el("ranked");
  list.replaceChildren();
  list.dataset.position = game.position; // which position the list ranks
  for (const move of found.moves.slice(0, ANALYSIS_PLAYS)) {
    const item = document.createElement("li");
    const name = document.createElement("span");
    name.className = "ranked-move";
    name.textContent = move.move;
    const value = document.createElement("span");
    value.className = "ranked-value";
    value.textContent = move.error === 0 ? signed(move.value) : `${signed(move.value)} (−${move.error.toFixed(3)})`;
    item.append(name, value);
    list.append(item);
  }
}

const signed = (value) => (value >= 0 ? "+" : "−") + Math.abs(value).toFixed(3);

document.addEventListener("DOMContentLoaded", () => {
  for (const action of ["roll", "double", "take", "pass"]) {
    el(action).addEventListener("click", () => cubeAction(action));
  }
  el("no-play").addEventListener("click", () => sendMove("pass"));
  el("undo-step").addEventListener("click", undoStep);
});
