// The table's page: live state over Server-Sent Events, the board drawn in SVG, actions by POST.
"use strict";

const NS = "http://www.w3.org/2000/svg";
const COLORS = { blue: "#1f5fd1", yellow: "#f2c500", green: "#1e9e4a", red: "#d62828" };
// a shape per colour, so that no one needs to tell the colours apart
const SHAPES = { blue: "circle", yellow: "square", green: "triangle", red: "diamond" };
const page = { board: null, dots: new Map(), state: null, history: [], spinSeq: null, paired: false };
window.bermuda = page;  // for the browser tests and the latency benchmark
page.updates = [];

function $(id) { return document.getElementById(id); }

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function shipShape(color, number, parent) {
  const fill = COLORS[color] || color;
  const shape = SHAPES[color] || "circle";
  let body;
  if (shape === "square") body = el("rect", { x: -8, y: -8, width: 16, height: 16, rx: 2 }, parent);
  else if (shape === "triangle") body = el("polygon", { points: "0,-10 9.5,7.5 -9.5,7.5" }, parent);
  else if (shape === "diamond") body = el("polygon", { points: "0,-10.5 10.5,0 0,10.5 -10.5,0" }, parent);
  else body = el("circle", { r: 8.5 }, parent);
  body.setAttribute("class", "body");
  body.setAttribute("fill", fill);
  const text = el("text", { y: shape === "triangle" ? 2 : 0 }, parent);
  text.textContent = String(number);
}

// --- the spinner -------------------------------------------------------------------------

function arc(r0, r1, a0, a1) {
  const p = (r, a) => [r * Math.sin(a * Math.PI / 180), -r * Math.cos(a * Math.PI / 180)];
  const [x0, y0] = p(r1, a0), [x1, y1] = p(r1, a1), [x2, y2] = p(r0, a1), [x3, y3] = p(r0, a0);
  const large = a1 - a0 > 180 ? 1 : 0;
  return `M${x0},${y0} A${r1},${r1} 0 ${large} 1 ${x1},${y1} L${x2},${y2} A${r0},${r0} 0 ${large} 0 ${x3},${y3} Z`;
}

function drawSpinner(spinner) {
  const svg = $("spinner");
  clear(svg);
  // as on the game's spinner: the letters inside, the numbers around them, the directions outside
  const rings = [["letters", 16, 44, ["#f9e79f", "#fdebd0"]],
                 ["numbers", 44, 68, ["#d6eaf8", "#ebf5fb"]],
                 ["directions", 68, 106, ["#d5f5e3", "#eafaf1"]]];
  for (const [key, r0, r1, fills] of rings) {
    const sectors = spinner[key];
    const step = 360 / sectors.length;
    sectors.forEach((label, i) => {
      el("path", { d: arc(r0, r1, i * step, (i + 1) * step), fill: fills[i % 2], class: "ring-sector" }, svg);
      const deg = (i + 0.5) * step, mid = deg * Math.PI / 180, r = (r0 + r1) / 2;
      const word = String(label).length > 2;  // a full word: run to the last dot
      const x = r * Math.sin(mid), y = -r * Math.cos(mid);
      const t = el("text", { x, y, class: word ? "ring-text ring-word" : "ring-text" }, svg);
      // a word reads along the radius (outward on the right half, inward on the left)
      if (word) t.setAttribute("transform", `rotate(${deg <= 180 ? deg - 90 : deg + 90} ${x} ${y})`);
      t.textContent = String(label);
    });
  }
  const pointer = el("g", { id: "pointer", "data-angle": "0" }, svg);
  el("polygon", { points: "0,-100 5,0 0,8 -5,0" }, pointer);
  el("circle", { r: 6 }, svg);
}

function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function animateSpin(spin) {
  const pointer = $("pointer");
  const from = Number(pointer.getAttribute("data-angle")) || 0;
  const to = 720 + spin.angle_deg;
  pointer.setAttribute("data-angle", String(spin.angle_deg));
  pointer.setAttribute("data-spin", spin.text);
  const run = pointer.animate(
    [{ transform: `rotate(${from}deg)` }, { transform: `rotate(${to}deg)` }],
    { duration: reducedMotion() ? 1 : 1600, easing: "cubic-bezier(.15,.7,.25,1)", fill: "forwards" });
  pointer.classList.add("spinning");
  run.finished.then(() => pointer.classList.remove("spinning"), () => {});
}

// --- the board ---------------------------------------------------------------------------

function place(id) {
  const b = page.board;
  const port = b.ports.find((p) => p.id === id);
  if (port) return [port.x_mm, port.y_mm];
  const s = b.spaces.find((p) => p.id === id);
  return s ? [s.x_mm, s.y_mm] : null;
}

const LABELS_FROM = 12.5 / 9;  // CSS px per board unit from which space labels fit beside spaces

function fitBoard() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  if (!(k > 0)) return;
  $("board").style.setProperty("--u", String(1 / k));
  $("board").classList.toggle("compact", k < LABELS_FROM);
}

function nameOnTap(event) {
  document.querySelectorAll("#board .selected").forEach((n) => n.classList.remove("selected"));
  const ship = event.target.closest(".ship");
  const where = event.target.closest(".place");
  const caption = $("board-caption");
  if (ship) {
    ship.classList.add("selected");
    const id = ship.getAttribute("data-ship"), at = ship.getAttribute("data-location");
    caption.textContent = at === "cloud" ? `${id}: in the cloud`
      : ship.classList.contains("missing") ? `${id}: to be set at ${at}` : `${id} at ${at}`;
  } else if (where) {
    where.classList.add("selected");
    const id = where.getAttribute("data-place");
    const here = page.state && page.state.game
      ? page.state.game.ships.filter((s) => s.location === id).map((s) => s.id) : [];
    caption.textContent = `${where.classList.contains("port") ? "port" : "space"} ${id}` +
      (here.length ? `: ${here.join(", ")}` : ": empty");
  } else {
    caption.textContent = "Tap a ship or a place to name it.";
  }
}

function drawFix(status) {
  const layer = $("layer-fix");
  clear(layer);
  document.querySelectorAll(".place.fix").forEach((n) => n.classList.remove("fix"));
  const fix = status.fix;
  if (!fix) return;
  for (const kind of ["missing", "extra"]) {
    for (const [color, where] of fix[kind] || []) {
      if (!where) continue;
      const at = place(where);
      if (!at) continue;
      const mark = el("circle", { cx: at[0], cy: at[1], r: 20, class: `fix-mark ${kind}`,
                                  "data-place": where, "data-color": color }, layer);
      el("title", {}, mark).textContent = `${kind === "missing" ? "missing" : "should not be here"}: ${color} at ${where}`;
      const node = document.getElementById(`place-${where}`);
      if (node) node.classList.add("fix");
    }
  }
}

function drawSuggestion(status) {
  // a computer seat's move: its path from start to end, and a ring where it stops
  const chosen = status && status.suggestion;
  // shown while its move is awaited: not while the table asks a question or is in a fault
  if (!chosen || !["ready", "fix"].includes(status.mode)) return;
  const layer = $("layer-fix");
  const points = chosen.path.map(place).filter((p) => p);
  if (points.length < 2) return;
  const line = el("polyline", { points: points.map((p) => p.join(",")).join(" "), class: "suggested-path",
                                "data-ship": chosen.ship, "data-start": chosen.start, "data-end": chosen.end }, layer);
  el("title", {}, line).textContent = chosen.text;
  const end = points[points.length - 1];
  el("circle", { cx: end[0], cy: end[1], r: 22, class: "suggested-end" }, layer);
}

function drawShips(state) {
  const layer = $("layer-ships"), cloudLayer = $("layer-cloud"), heat = $("layer-heat");
  clear(layer); clear(cloudLayer); clear(heat);
  const game = state.game;
  if (!game) return;
  const danger = (state.danger && state.danger.ships) || {};
  const dot = page.dots.get(`${game.cloud.col},${game.cloud.row}`);
  const cloud = el("g", { id: "cloud", "data-col": game.cloud.col, "data-row": game.cloud.row,
                          "data-letter": game.cloud.letter,
                          transform: `translate(${dot[0]} ${dot[1]})` }, cloudLayer);
  el("circle", { r: page.board.cloud.footprint_radius_mm, class: "cloud-body" }, cloud);
  el("polygon", { points: "-5,-" + (page.board.cloud.footprint_radius_mm + 1) + " 5,-" +
                  (page.board.cloud.footprint_radius_mm + 1) + " 0,-" + (page.board.cloud.footprint_radius_mm - 8),
                  fill: "#34495e" }, cloud);
  const letter = el("text", { y: -page.board.cloud.footprint_radius_mm + 24, class: "cloud-letter" }, cloud);
  letter.textContent = game.cloud.letter;
  // a ship the table asks to be set on its place is drawn as an outline there, not as if it stood
  const toSet = new Map();
  for (const [color, where] of (state.status.fix && state.status.fix.missing) || []) {
    const key = `${color}@${where}`;
    toSet.set(key, (toSet.get(key) || 0) + 1);
  }
  let inCloud = 0;
  for (const ship of game.ships) {
    const [color, number] = ship.id.split("-");
    if (ship.status === "in-cloud") {
      const g = el("g", { class: "ship in-cloud", "data-ship": ship.id, "data-location": "cloud",
                          transform: `translate(${-24 + (inCloud % 4) * 16} ${10 + Math.floor(inCloud / 4) * 16}) scale(.75)` }, cloud);
      shipShape(color, number, g);
      inCloud += 1;
      continue;
    }
    const at = state.positions[ship.id];
    if (!at || !ship.location) continue;
    const p = danger[ship.id] ? danger[ship.id].p : 0;
    if (p > 0) {
      el("circle", { cx: at[0], cy: at[1], r: 15, class: "heat", "data-ship": ship.id, "data-p": p.toFixed(4),
                     "stroke-width": (2 + 8 * p).toFixed(2), "stroke-opacity": (0.35 + 0.65 * p).toFixed(2) }, heat);
    }
    const key = `${color}@${ship.location}`, missing = (toSet.get(key) || 0) > 0;
    if (missing) toSet.set(key, toSet.get(key) - 1);
    const g = el("g", { class: missing ? "ship missing" : "ship", "data-ship": ship.id,
                        "data-location": ship.location,
                        transform: `translate(${at[0]} ${at[1]})` }, layer);
    el("title", {}, g).textContent = missing ? `${ship.id}: to be set at ${ship.location}`
                                             : `${ship.id} at ${ship.location}`;
    shipShape(color, number, g);
  }
}

function drawSpinPath(spin) {
  const layer = $("layer-path");
  clear(layer);
  if (!spin || spin.dots.length < 2) return;
  el("polyline", { points: spin.dots.map((d) => d.join(",")).join(" "), class: "cloud-path",
                   "data-spin": spin.text }, layer);
}

// --- the panels --------------------------------------------------------------------------

function usd(n) { return "$" + n.toLocaleString("en-US"); }

// the modes in which the controller takes no action, and what the page says then
const BUSY = { starting: "The rig is homing", moving: "The cloud is moving" };

// a number typed in the form, NaN for anything else: with `decimal`, a decimal point or
// comma ("0,5" as well as "0.5"); else a whole number, its thousands grouped or not as
// the page writes amounts ("350,000", "350.000", "350 000", "350000")
function typed(value, decimal) {
  const text = String(value).trim();
  if (decimal) return /^(\d+([.,]\d*)?|[.,]\d+)$/.test(text) ? Number(text.replace(",", ".")) : NaN;
  if (/^\d{1,3}([,. ]\d{3})+$/.test(text)) return Number(text.replace(/[,. ]/g, ""));
  return /^\d+$/.test(text) ? Number(text) : NaN;
}

function show(id, text) {
  const node = $(id);
  node.hidden = !text;
  node.textContent = text || "";
}

function render(state) {
  page.state = state;
  const s = state.status, game = state.game;
  $("game-line").textContent = turnLine(state);
  $("game-line").setAttribute("data-active", game && s.phase === "ships" ? s.active || "" : "");
  const q = s.question;
  const message = s.message || s.mode;
  // a question is shown once, in its box, with the table's button presses beneath it
  $("message").hidden = !!q && message.startsWith(q.text || String(q));
  $("message").textContent = message;
  $("message").setAttribute("data-mode", s.mode);
  show("fix", s.fix ? "Fix the board: " + s.fix.text : "");
  show("fault", s.fault ? "Fault: " + s.fault : "");
  $("question").hidden = !q;
  if (q) {
    $("question-text").textContent = q.text || String(q);
    const press = message.startsWith(q.text) ? message.slice(q.text.length).trim() : "";
    $("question-press").textContent = press
      ? `On the table: ${press.replace(/^\(|\)$/g, "")}.` : "";
    const box = $("question-options");
    box.textContent = "";
    for (const option of q.options || []) {
      const b = document.createElement("button");
      b.textContent = option;
      b.disabled = !page.paired;
      b.addEventListener("click", () => act("answer", { option }));
      box.appendChild(b);
    }
  }
  renderDieFor(s);
  const outcome = game && game.outcome;
  show("winner", outcome ? outcome.text || `${outcome.winners.join(" and ")} win${outcome.winners.length > 1 ? "" : "s"}` : "");
  // while the rig homes or the cloud moves the controller takes no action (the server
  // refuses them): the buttons wait, and the line says so
  const busy = BUSY[s.mode] || "";
  show("busy", busy ? `${busy}: the buttons come back when it stops (the emergency stop on the table stops it at once)` : "");
  show("paused", s.paused ? "Motion paused: no spin and no new game until you press Resume motion." : "");
  // spin, or a press the table asks for: a move done after "not yet", ships back unseen
  const asked = !busy && ((s.mode === "spin" && !s.paused) || (s.mode === "ready" && s.unfinished)
    || (s.mode === "fix" && s.back_unseen));
  $("btn-spin").disabled = !asked;
  $("btn-spin").classList.toggle("ready", asked);
  $("btn-pass").disabled = s.mode !== "ready";
  $("btn-pause").hidden = !!s.paused;
  $("btn-resume").hidden = !s.paused;
  $("btn-rehome").hidden = s.mode !== "fault";
  for (const id of ["btn-undo", "btn-pause", "btn-resume", "btn-rehome"]) $(id).disabled = !!busy;
  $("btn-new-game").disabled = !!busy || !!s.paused;
  const spin = state.last_spin;
  if (!page.replay) {  // a replay has the board until it is closed
    drawFix(s);
    drawSuggestion(s);
    drawShips(state);
    drawSpinPath(spin);
  }
  const finishedKey = `${state.game_id}:${outcome ? "over" : "on"}`;
  if (finishedKey !== page.finishedKey) {
    page.finishedKey = finishedKey;
    loadFinished();
  }
  if (spin && spin.seq !== page.spinSeq) {
    if (page.spinSeq !== null || page.history.length) animateSpin(spin);
    page.spinSeq = spin.seq;
    $("last-spin").textContent = `round ${spin.round}: ${spin.text}`;
  } else if (!spin) {
    $("last-spin").textContent = "no spin yet";
    page.spinSeq = null;
  }
  renderScores(state);
  renderDanger(state);
  renderHints(state);
  page.updates.push({ version: state.version, mode: s.mode, seq: state.seq, at: Date.now(),
                     taken: state.taken_unix * 1000 });
  if (page.updates.length > 2000) page.updates.splice(0, 1000);
}

function renderDieFor(s) {
  // a computer seat's turn with the table's die: the die rolled for it is told here
  const box = $("die-for");
  box.hidden = !s.die_for;
  if (!s.die_for) return;
  $("die-for-text").textContent = `${s.die_for} is the table's seat: roll the die for it, ` +
    (page.paired ? "then press the number it shows." : "then press spin on the table once for each pip.");
  const options = $("die-options");
  if (options.childElementCount !== 6) {
    options.textContent = "";
    for (let n = 1; n <= 6; n += 1) {
      const b = document.createElement("button");
      b.textContent = String(n);
      b.setAttribute("aria-label", `the die shows ${n}`);
      b.addEventListener("click", () => act("die", { value: n }));
      options.appendChild(b);
    }
  }
  for (const b of options.querySelectorAll("button")) b.disabled = !page.paired;
}

function seatChoices() {
  // the new-game form: a person or the table (easy or best) for each colour that plays
  const box = $("seats"), form = $("new-game-form");
  const colors = (page.board && page.board.ship_colors) || Object.keys(COLORS);
  const players = Number(form.players.value);
  for (const [i, color] of colors.entries()) {
    let label = box.querySelector(`label[data-color="${color}"]`);
    if (!label) {
      label = document.createElement("label");
      label.setAttribute("data-color", color);
      const select = document.createElement("select");
      select.name = `seat-${color}`;
      for (const [value, text] of [["", "a person"], ["easy", "the table (easy)"], ["best", "the table (best)"]]) {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = text;
        select.appendChild(option);
      }
      label.append(`${color}: `, select);
      box.appendChild(label);
    }
    label.hidden = i >= players;
  }
}

function chosenSeats(form) {
  const seats = {};
  for (const label of $("seats").querySelectorAll("label[data-color]")) {
    const level = label.querySelector("select").value;
    if (!label.hidden && level) seats[label.getAttribute("data-color")] = level;
  }
  return seats;
}

function turnLine(state) {
  const s = state.status, game = state.game;
  if (!game) return "no game";
  if (game.outcome || s.phase === "over") return `Game ${state.game_id} · game over`;
  const what = s.phase === "cloud" ? "the cloud's turn: spin and move it"
    : s.active ? `${s.active} to play` : "setting up";
  return `Game ${state.game_id} · round ${s.round} · ${what}`;
}

function renderScoreline(state) {
  const list = $("scoreline");
  list.textContent = "";
  const game = state.game;
  if (!game) return;
  for (const color of game.players) {
    const li = document.createElement("li");
    li.setAttribute("data-player", color);
    li.classList.toggle("active", state.status.phase === "ships" && state.status.active === color);
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = COLORS[color] || color;
    swatch.setAttribute("aria-hidden", "true");
    li.append(swatch, `${color} ${usd(game.totals[color])}`);
    list.appendChild(li);
  }
}

function renderScores(state) {
  renderScoreline(state);
  const body = $("scores").querySelector("tbody");
  body.textContent = "";
  const game = state.game, cards = state.cards;
  if (!game) return;
  for (const color of game.players) {
    const tr = document.createElement("tr");
    tr.setAttribute("data-player", color);
    const hand = (cards.hands[color] || []).map((c) => `${c.product} ${c.usd / 1000}k`).join(", ");
    for (const text of [color, usd(game.totals[color]), hand || "–"]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $("piles").textContent = "Piles: " + Object.entries(cards.piles)
    .map(([p, left]) => `${p} ${left.length}`).join(", ") + `; bonus cards left ${cards.bonus_left}`;
}

function renderHints(state) {
  const toggles = $("hint-toggles"), game = state.game;
  const asked = new Set(state.status.hints || []);
  const players = game ? game.players : [];
  if (toggles.getAttribute("data-players") !== players.join(",")) {
    toggles.textContent = "";
    toggles.setAttribute("data-players", players.join(","));
    for (const color of players) {
      const b = document.createElement("button");
      b.setAttribute("data-color", color);
      b.addEventListener("click", () => act("hints", { color,
        on: b.getAttribute("aria-pressed") !== "true" }));
      toggles.appendChild(b);
    }
  }
  for (const b of toggles.querySelectorAll("button")) {
    const color = b.getAttribute("data-color"), on = asked.has(color);
    b.setAttribute("aria-pressed", on ? "true" : "false");
    b.textContent = `Hints for ${color}: ${on ? "on" : "off"}`;
  }
  const list = $("hints");
  list.textContent = "";
  list.hidden = !state.hints;
  for (const h of state.hints || []) {
    const li = document.createElement("li");
    li.setAttribute("data-move", h.move);
    const card = h.card ? `takes ${h.card === "home" ? "a Home Port bonus" : "a " + h.card} card ` +
      `(${usd(h.card_usd)})` : "no card";
    const bumps = h.bumps.length
      ? `; sends ${h.bumps.map(([s, p]) => `${s} back to ${p}`).join(", ")}` : "";
    const danger = h.danger === null ? "" : `; swept by the next spin ${(100 * h.danger).toFixed(1)} %`;
    li.textContent = `${h.move}: ${card}${bumps}${danger}${h.short ? " (a short move)" : ""}`;
    list.appendChild(li);
  }
}

function renderDanger(state) {
  const body = $("danger").querySelector("tbody");
  body.textContent = "";
  const d = state.danger;
  if (!d) return;
  if (state.game && state.game.outcome) {
    $("danger-note").textContent = "The game is over: there is no next spin.";
    return;
  }
  const rows = Object.entries(d.ships).filter(([, v]) => v.p > 0).sort((a, b) => b[1].p - a[1].p);
  for (const [ship, v] of rows) {
    const tr = document.createElement("tr");
    tr.setAttribute("data-ship", ship);
    for (const text of [ship, (100 * v.p).toFixed(1) + " %", v.exact]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $("danger-note").textContent = `${rows.length ? "" : "No ship is within reach. "}` +
    `The cloud leaves the board with chance ${(100 * d.leaves_board.p).toFixed(1)} %` +
    (d.in_cloud.length ? ` (then ${d.in_cloud.join(", ")} are lost)` : "") +
    `; ${d.outcomes} spinner outcomes enumerated.`;
}

function addHistory(events, reset) {
  const list = $("history");
  if (reset) { list.textContent = ""; page.history = []; }
  for (const item of events) {
    page.history.push(item);
    const li = document.createElement("li");
    li.value = item.seq;
    li.textContent = `round ${item.round}: ${item.text.join("; ")}`;
    list.insertBefore(li, list.firstChild);
  }
}

// --- finished games and their replays -----------------------------------------------------

function dateOf(utc) { return String(utc || "").slice(0, 10); }

async function loadFinished() {
  const response = await fetch("/api/games");
  if (!response.ok) return;
  const data = await response.json();
  page.finished = data;
  const list = $("finished");
  list.textContent = "";
  $("finished-empty").hidden = data.games.length > 0;
  for (const g of data.games) {
    const li = document.createElement("li");
    li.setAttribute("data-game", g.game_id);
    const scores = g.players.map((c) => `${g.names[c] || c} ${usd(g.totals[c])}`).join(", ");
    const text = document.createElement("span");
    text.textContent = `Game ${g.game_id}, ${dateOf(g.finished_utc)}: ` +
      `${g.winners.join(" and ")} won (${scores}); ${g.rounds} rounds`;
    const button = document.createElement("button");
    button.textContent = `Replay game ${g.game_id}`;
    button.setAttribute("data-reads", "");
    button.addEventListener("click", () => startReplay(g.game_id));
    li.append(text, button);
    list.appendChild(li);
  }
  const body = $("totals").querySelector("tbody");
  body.textContent = "";
  $("totals").hidden = !Object.keys(data.by_colour).length;
  for (const [color, t] of Object.entries(data.by_colour)) {
    const tr = document.createElement("tr");
    for (const text of [color, String(t.games), String(t.wins), usd(t.usd)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

function entryText(entry) {
  if (!entry) return "the ships set out in their ports";
  if (entry.move) return `move ${entry.move}`;
  if (entry.roll !== undefined) return `die rolled: ${entry.roll}`;
  if (entry.cloud) return `spin ${entry.cloud}: the cloud moves`;
  if (entry.pass !== undefined) return "a pass";
  return Object.keys(entry).join(", ");
}

async function startReplay(gameId) {
  const response = await fetch(`/api/games/${gameId}`);
  if (!response.ok) return;
  const data = await response.json();
  page.replay = { data, step: 0 };
  const slider = $("replay-slider");
  slider.max = String(data.steps.length - 1);
  $("replay").hidden = false;
  $("replay-title").textContent = `Replay of game ${gameId}: ` +
    `${data.game.winners.join(" and ")} won`;
  showStep(0);
  $("replay").scrollIntoView({ block: "nearest" });
}

function showStep(k) {
  const replay = page.replay;
  if (!replay) return;
  const steps = replay.data.steps;
  replay.step = Math.max(0, Math.min(steps.length - 1, k));
  const step = steps[replay.step];
  $("replay-slider").value = String(replay.step);
  $("replay-step").textContent = `Step ${replay.step} of ${steps.length - 1}, round ` +
    `${step.round}: ${entryText(step.entry)}; ` +
    Object.entries(step.totals).map(([c, v]) => `${c} ${usd(v)}`).join(", ");
  $("replay-prev").disabled = replay.step === 0;
  $("replay-next").disabled = replay.step === steps.length - 1;
  drawFix({ fix: null });
  drawSpinPath(null);
  drawShips({ game: { ships: step.ships, cloud: step.cloud }, positions: step.positions,
              danger: null, status: { fix: null } });
}

function stopReplay() {
  page.replay = null;
  $("replay").hidden = true;
  if (page.state) render(page.state);
}

// --- actions -----------------------------------------------------------------------------

async function act(action, args) {
  const out = $("action-result");
  out.classList.remove("error");
  out.textContent = `${action}…`;
  try {
    const response = await fetch(`/api/actions/${action}`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(args || {}) });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    out.textContent = data.message;
  } catch (err) {
    out.classList.add("error");
    out.textContent = `${action} refused: ${err.message}`;
  }
}

function wire() {
  document.querySelectorAll("button[data-action]").forEach((b) =>
    b.addEventListener("click", () => act(b.getAttribute("data-action"))));
  $("new-game-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = e.target;
    const capture = typed(f.capture_probability.value, true), target = typed(f.target_usd.value);
    const seed = typed(f.seed.value);
    // a field that is not a number is said here, by its label, and nothing is sent
    const wrong = !(capture >= 0 && capture <= 1) ? "Capture chance: a number from 0 to 1"
      : !(Number.isInteger(target) && target > 0) ? "Winning total: a whole number of dollars"
      : f.seed.value.trim() && !(Number.isInteger(seed) && seed >= 0)
        ? "Seed: a whole number, 0 or more (or leave it empty)" : "";
    if (wrong) {
      $("action-result").classList.add("error");
      $("action-result").textContent = `new game not started: ${wrong}`;
      return;
    }
    const state = page.state, game = state && state.game;
    // a game in play is archived, not finished: it is not listed with the finished games
    if (game && !game.outcome && !window.confirm(
      `Archive this game (round ${game.round}) and start a new one? It is kept in the ` +
      "journal, but not listed with the finished games.")) return;
    const args = { players: Number(f.players.value),
                   options: { digital_ledger: f.digital_ledger.checked,
                              capture_probability: capture, target_usd: target,
                              computer: chosenSeats(f) } };
    if (f.seed.value.trim()) args.seed = seed;
    if (f.die.value) args.options.die = f.die.value;
    act("new-game", args);
  });
  $("new-game-form").players.addEventListener("change", seatChoices);
  seatChoices();
  $("replay-prev").addEventListener("click", () => showStep(page.replay.step - 1));
  $("replay-next").addEventListener("click", () => showStep(page.replay.step + 1));
  $("replay-slider").addEventListener("input", (e) => showStep(Number(e.target.value)));
  $("replay-close").addEventListener("click", stopReplay);
  const panel = $("camera-panel"), img = $("camera");
  panel.addEventListener("toggle", () => {
    // frames are encoded only while someone watches
    img.src = panel.open ? "/api/camera.mjpeg" : "";
  });
}

function connect() {
  const source = new EventSource("/api/stream");
  source.addEventListener("open", () => { $("link").textContent = "live"; $("link").classList.add("on"); });
  source.addEventListener("error", () => { $("link").textContent = "reconnecting"; $("link").classList.remove("on"); });
  source.addEventListener("history", async (e) => {
    const h = JSON.parse(e.data);
    if (!h.reset && page.historyGame !== undefined && h.game_id !== page.historyGame) {
      // a new game began while this page slept: its whole history, not the tail
      const all = await fetch("/api/events?since=0").then((r) => r.json());
      page.historyGame = all.game_id;
      addHistory(all.events, true);
      return;
    }
    page.historyGame = h.game_id;
    addHistory(h.events, h.reset);
  });
  source.addEventListener("state", (e) => render(JSON.parse(e.data)));
  page.source = source;
}

async function start() {
  const [board, svg, who] = await Promise.all([
    fetch("/api/board").then((r) => r.json()),
    fetch("/api/board.svg").then((r) => r.text()),
    fetch("/api/whoami").then((r) => r.json())]);
  page.board = board;
  for (const d of board.grid.dots) page.dots.set(`${d.col},${d.row}`, [d.x_mm, d.y_mm]);
  $("board").innerHTML = svg;
  fitBoard();
  new ResizeObserver(fitBoard).observe($("board"));
  $("board").addEventListener("click", nameOnTap);
  drawSpinner(board.spinner);
  page.paired = who.paired;
  $("pairing").textContent = who.paired ? "paired" : (who.public ? "read-only" : "not paired");
  $("pairing").classList.toggle("on", who.paired);
  document.body.classList.toggle("read-only", !who.paired);
  $("pair-hint").hidden = who.paired || !who.public;
  wire();
  if (!who.paired && !who.public) {
    // the table is shown only to paired devices (unless the owner made it public)
    $("game-line").textContent = "not paired";
    $("message").textContent = "This device is not paired: open the pairing link, or scan " +
      "the QR code that `bermuda-hw token` prints on the table's computer.";
    $("link").hidden = true;  // no live connection is opened, and the table is up
    $("finished-panel").hidden = true;  // what this device may not read, it does not guess
    return;
  }
  connect();
}

start();
