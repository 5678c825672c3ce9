// The page of snail-serve. It shows what the server sends and sends what the person does:
// the rules, the bots and every check live on the server (snail_envs.apps.serve).
"use strict";

const $ = (id) => document.getElementById(id);
const MAX_LOG = 400;
const DEFAULT_BOT = "heuristic";
const DEFAULT_BOT_DELAY = 2;

const state = {
  session: null,
  personSeat: 0, // the seat the person chose (null: nobody, watching); only the person changes it
  welcome: null,
  games: {},
  table: null,
  over: false,
  lastFlips: -1,
  flipShownAt: null,
  replayIndex: 0,
  replayCount: 0,
};
let socket = null;

// ------------------------------------------------------------------ the connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => setConnection("connected");
  socket.onclose = () => setConnection("disconnected: reload the page to play again");
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const handler = HANDLERS[message.type];
    if (handler) handler(message);
  };
}

function send(type, fields = {}) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    showError("not connected to the server: reload the page");
    return;
  }
  socket.send(JSON.stringify({ type, session: state.session, ...fields }));
}

function setConnection(text) {
  $("connection").textContent = text;
}

function showError(text) {
  $("error-text").textContent = text;
  $("error").hidden = false;
}

function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  return made;
}

// ------------------------------------------------------------------ setting a table

function welcome(message) {
  state.session = message.session;
  state.welcome = message;
  for (const game of message.games) state.games[game.name] = game;
  const select = $("game");
  select.replaceChildren(...message.games.map((game) => {
    const option = element("option", `${game.title} (${game.name})`);
    option.value = game.name;
    return option;
  }));
  $("agent-list").replaceChildren(...message.agents.suggestions.map((spec) => {
    const option = element("option");
    option.value = spec;
    option.label = agentAbout(spec) || "";
    return option;
  }));
  $("pace").value = message.pace_ms;
  showPace($("pace"), $("pace-out"));
  showReplays(message.replays);
  chooseGame();
}

function currentGame() {
  return state.games[$("game").value];
}

function chooseGame() {
  const game = currentGame();
  $("preset").replaceChildren(element("option", "rule defaults"), ...game.presets.map((preset) => {
    const option = element("option", preset.name);
    option.value = preset.name;
    return option;
  }));
  $("preset").firstChild.value = "";
  const players = $("players");
  players.min = game.min_players;
  players.max = game.max_players;
  players.value = Math.min(Math.max(Number(players.value) || 2, game.min_players), game.max_players);
  document.body.classList.toggle("realtime-game", game.realtime);
  $("realtime-about").textContent = game.realtime
    ? `You play in real time, a tick every ${state.welcome.tick_ms} ms. A seat with reaction ` +
      `delay d calls from tick d + 1 of a window on, as a press d×${state.welcome.tick_ms} to ` +
      `(d + 1)×${state.welcome.tick_ms} ms after the flip would.`
    : "";
  drawOptions(game);
  drawSeats();
  showRules($("rules"), game.rules);
  $("preset-about").textContent = "";
}

// The rules are text from the server (the docs' "How to play"), set as text, never as HTML.
function showRules(container, rules) {
  container.replaceChildren(element("p", rules.title, "about"), ...rules.sections.flatMap(
    (section) => [element("h4", section.heading), element("pre", section.text)],
  ));
}

function agentAbout(spec) {
  return state.welcome.agents.kinds[spec.trim().split(":")[0]];
}

function drawOptions(game) {
  $("options").tBodies[0].replaceChildren(...game.options.map((option) => {
    const row = element("tr");
    const input = element("input");
    input.id = `option-${option.name}`;
    input.value = option.default;
    input.dataset.default = option.default;
    const label = element("label", option.name);
    label.htmlFor = input.id;
    const name = element("td");
    name.append(label);
    const value = element("td");
    value.append(input);
    row.append(name, value);
    return row;
  }));
}

// The number of players the box holds, or null while it holds no valid number (a person
// typing: "" after a backspace): the seats then stay as they are.
function playerCount() {
  const game = currentGame();
  const text = $("players").value;
  const count = Number(text);
  const valid = text !== "" && Number.isInteger(count) &&
    count >= game.min_players && count <= game.max_players;
  return valid ? count : null;
}

function drawSeats() {
  const game = currentGame();
  const count = playerCount();
  $("players").setCustomValidity(
    count === null ? `${game.title} seats ${game.min_players} to ${game.max_players} players` : "",
  );
  const note = $("seat-note");
  if (count === null) {
    note.textContent = `Players: ${game.min_players} to ${game.max_players}; ` +
      `the table keeps its ${$("seats").tBodies[0].rows.length} seats until then.`;
    note.dataset.waiting = "yes";
    markPerson();
    return;
  }
  if (note.dataset.waiting) {
    note.textContent = "";
    delete note.dataset.waiting;
  }
  const body = $("seats").tBodies[0];
  while (body.rows.length > count) body.deleteRow(-1);
  while (body.rows.length < count) addSeat(body);
  if (state.personSeat !== null && state.personSeat >= count) {
    state.personSeat = count - 1;
    note.textContent = `You now sit at player_${count - 1}: the table has ${count} seats.`;
  }
  markPerson();
}

function addSeat(body) {
  const seat = body.rows.length;
  const row = body.insertRow();
  row.insertCell().textContent = `player_${seat}`;
  const you = element("input");
  you.type = "radio";
  you.name = "you";
  you.value = String(seat);
  you.id = `you-${seat}`;
  you.addEventListener("change", () => choosePerson(seat));
  row.insertCell().append(you);
  const agent = element("input");
  agent.id = `agent-${seat}`;
  agent.setAttribute("list", "agent-list");
  agent.value = DEFAULT_BOT;
  agent.addEventListener("input", () => describeSeat(seat));
  row.insertCell().append(agent);
  const about = element("span", "", "agent-about");
  about.id = `about-${seat}`;
  row.insertCell().append(about);
  const delay = element("input");
  delay.id = `delay-${seat}`;
  delay.type = "number";
  delay.min = "0";
  delay.value = String(DEFAULT_BOT_DELAY);
  const cell = row.insertCell();
  cell.className = "realtime-only";
  cell.append(delay);
}

function choosePerson(seat) {
  state.personSeat = seat;
  $("seat-note").textContent = "";
  markPerson();
}

function personSeat() {
  return state.personSeat;
}

// Show the person's choice (a seat, or nobody) as the radios, the agents' boxes and the Start
// button say it: the choice changes only when the person clicks, never by editing Players.
function markPerson() {
  const person = personSeat();
  $("nobody").checked = person === null;
  for (const row of $("seats").tBodies[0].rows) {
    const seat = row.rowIndex - 1;
    $(`you-${seat}`).checked = seat === person;
    const agent = $(`agent-${seat}`);
    agent.disabled = seat === person;
    agent.placeholder = seat === person ? "you" : "";
    if (seat === person && $(`delay-${seat}`).value === String(DEFAULT_BOT_DELAY)) {
      $(`delay-${seat}`).value = "0";
    }
    describeSeat(seat);
  }
  $("start").textContent = person === null ? "Watch the bots play" : `Play as player_${person}`;
}

function describeSeat(seat) {
  const about = $(`about-${seat}`);
  const spec = $(`agent-${seat}`).value;
  const known = agentAbout(spec);
  about.classList.toggle("unknown", seat !== personSeat() && !known);
  if (seat === personSeat()) {
    about.textContent = "you: your moves show as buttons";
  } else {
    about.textContent = known ||
      `no such agent; agents: ${Object.keys(state.welcome.agents.kinds).join(", ")}`;
  }
}

function choosePreset() {
  const game = currentGame();
  const preset = game.presets.find((each) => each.name === $("preset").value);
  for (const input of $("options").querySelectorAll("input")) input.value = input.dataset.default;
  $("preset-about").textContent = preset ? preset.about : "";
  if (!preset) return;
  for (const [name, text] of Object.entries(preset.options)) {
    const input = $(`option-${name}`);
    if (input) input.value = text;
  }
  if (preset.num_players) {
    $("players").value = preset.num_players;
    drawSeats();
  }
  if (preset.reaction_delay) {
    preset.reaction_delay.forEach((delay, seat) => {
      const input = $(`delay-${seat}`);
      if (input) input.value = delay;
    });
  }
}

function start() {
  const game = currentGame();
  const person = personSeat();
  if (playerCount() === null) {
    showError(`Players: ${game.title} seats ${game.min_players} to ${game.max_players} players`);
    return;
  }
  const seats = [];
  for (let seat = 0; seat < playerCount(); seat += 1) {
    seats.push({
      agent: seat === person ? state.welcome.person : $(`agent-${seat}`).value,
      reaction_delay: game.realtime ? Number($(`delay-${seat}`).value) : null,
    });
  }
  const options = {};
  for (const input of $("options").querySelectorAll("input")) {
    if (input.value !== input.dataset.default) options[input.id.slice("option-".length)] = input.value;
  }
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  send("start", { game: game.name, seats, options, seed, pace_ms: Number($("pace").value) });
  $("start").textContent = "Setting the table…";
}

// ------------------------------------------------------------------ playing

function table(message) {
  state.table = message;
  state.over = false;
  state.lastFlips = -1;
  state.flipShownAt = null;
  markPerson();
  $("setup").hidden = true;
  $("game-view").hidden = false;
  showTitle(message, message.seed);
  showRules($("game-rules"), state.games[message.game].rules);
  $("seat-list").replaceChildren(...message.seats.map((seat) => {
    const delay = seat.reaction_delay;
    let text = `${seat.who} (${seat.id})`;
    if (delay !== null) {
      text += `: calls from tick ${delay + 1} of a window on (reaction delay ${delay})`;
      if (message.realtime && seat.agent !== state.welcome.person) {
        text += `, as a press ${delay * message.tick_ms}–${(delay + 1) * message.tick_ms} ms ` +
          "after the flip would";
      }
    }
    return element("li", text);
  }));
  $("snap-panel").hidden = !message.realtime;
  $("keys").textContent = message.keys.map((key) => `${key.name}: ${key.label}`).join(" · ") +
    (message.keys.length ? ` · a tick every ${message.tick_ms} ms` : "");
  $("reactions").replaceChildren();
  $("late").textContent = "";
  $("live-pace-box").hidden = message.realtime;
  $("live-pace").value = $("pace").value;
  showPace($("live-pace"), $("live-pace-out"));
  $("log").replaceChildren();
  $("result").hidden = true;
  $("save").hidden = true;
  $("saved").textContent = "";
  $("moves").replaceChildren();
}

function showTitle(table, seed) {
  const dealt = seed === null ? "seed drawn (shown at the end)" : `seed ${seed}`;
  $("game-title").textContent = `${table.title}, ${dealt}` + (table.you ? "" : ": watching");
}

function frame(message) {
  const picture = $("picture");
  picture.src = message.picture;
  if (message.flips !== undefined && message.flips > state.lastFlips) {
    state.lastFlips = message.flips;
    picture.decode().then(() => { state.flipShownAt = performance.now(); }, () => {});
  }
  $("status").textContent = message.status;
  if (message.late_ticks) {
    $("late").textContent = `${message.late_ticks} tick${message.late_ticks === 1 ? " was" : "s were"} ` +
      "late: a bot thought for longer than a tick (search agents do), and the clock waited";
  }
  $("view-text").textContent = message.text;
  $("moves").replaceChildren(...message.moves.map((move) => {
    const button = element("button", move.label, "move");
    button.type = "button";
    button.dataset.action = move.action;
    button.addEventListener("click", () => makeMove(move, message.turn));
    return button;
  }));
  const log = $("log");
  for (const line of message.log) log.append(element("li", line));
  while (log.children.length > MAX_LOG) log.firstChild.remove();
  if (message.log.length) log.lastChild.scrollIntoView({ block: "nearest" });
  if (message.over) {
    showTitle(state.table, message.seed);
    finish(message.result);
  }
}

function makeMove(move, turn) {
  if (state.table && state.table.realtime) {
    call(move.action, move.label);
    return;
  }
  for (const button of $("moves").children) button.disabled = true;
  send("act", { action: move.action, turn });
}

function call(action, label) {
  const reaction = state.flipShownAt === null ? null : Math.round(performance.now() - state.flipShownAt);
  send("act", { action });
  const shown = reaction === null ? "before any flip" : `${reaction} ms after the flip`;
  $("reactions").prepend(element("li", `${label}: ${shown}`));
}

function onKey(event) {
  const current = state.table;
  if (!current || !current.realtime || state.over || $("game-view").hidden) return;
  if (event.target instanceof HTMLInputElement) return;
  const key = current.keys.find((each) => each.key === event.key.toLowerCase());
  if (!key) return;
  event.preventDefault();
  if (!event.repeat) call(key.action, key.label);
}

function finish(lines) {
  state.over = true;
  const result = $("result");
  result.replaceChildren(element("h3", "Result"), ...lines.map((line) => element("p", line)));
  result.hidden = false;
  $("moves").replaceChildren();
  $("save").hidden = !state.welcome.can_save;
  $("save").disabled = false;
}

function saved(message) {
  $("saved").textContent = `saved as ${message.name}`;
  $("save").disabled = true;
  showReplays(message.replays);
}

function leave() {
  send("stop");
  state.table = null;
  $("game-view").hidden = true;
  $("setup").hidden = false;
}

function showPace(input, output) {
  output.textContent = `${input.value} ms a move`;
}

// ------------------------------------------------------------------ replays

function showReplays(names) {
  $("replays-none").hidden = names.length > 0;
  $("replay-list").replaceChildren(...names.map((name) => {
    const button = element("button", name, "replay-name");
    button.type = "button";
    button.addEventListener("click", () => send("open_replay", { name }));
    const item = element("li");
    item.append(button);
    return item;
  }));
}

function replay(message) {
  state.replayCount = message.count;
  const agents = Object.entries(message.names).map(([seat, name]) => `${name} (${seat})`);
  $("replay-title").textContent =
    `${message.name}: ${message.env}, seed ${message.seed} (${agents.join(", ")})`;
  $("replay-slider").max = message.count - 1;
  $("replay-view").hidden = false;
}

function replayPosition(message) {
  state.replayIndex = message.index;
  $("replay-picture").src = message.picture;
  $("replay-text").textContent = message.text;
  $("replay-slider").value = message.index;
  $("replay-index").textContent = `${message.index + 1} / ${message.count}`;
}

function replayGo(index) {
  const bounded = Math.min(Math.max(index, 0), state.replayCount - 1);
  if (bounded !== state.replayIndex) send("replay_step", { index: bounded });
}

function showTab(replays) {
  $("tab-play").classList.toggle("active", !replays);
  $("tab-replays").classList.toggle("active", replays);
  $("replays").hidden = !replays;
  $("setup").hidden = replays || state.table !== null;
  $("game-view").hidden = replays || state.table === null;
}

const HANDLERS = {
  welcome,
  table,
  frame,
  saved,
  replay,
  replay_position: replayPosition,
  error: (message) => {
    showError(message.message);
    markPerson();
    for (const button of $("moves").children) button.disabled = false;
  },
  dropped: (message) => {
    showError(message.message);
    setConnection("closed");
  },
};

document.addEventListener("DOMContentLoaded", () => {
  $("game").addEventListener("change", chooseGame);
  $("preset").addEventListener("change", choosePreset);
  $("players").addEventListener("input", drawSeats);
  $("players").addEventListener("change", drawSeats);
  $("nobody").addEventListener("change", () => choosePerson(null));
  $("start").addEventListener("click", start);
  $("pace").addEventListener("input", () => showPace($("pace"), $("pace-out")));
  $("live-pace").addEventListener("input", () => {
    showPace($("live-pace"), $("live-pace-out"));
    send("pace", { ms: Number($("live-pace").value) });
  });
  $("save").addEventListener("click", () => send("save"));
  $("leave").addEventListener("click", leave);
  $("error-close").addEventListener("click", () => { $("error").hidden = true; });
  $("tab-play").addEventListener("click", () => showTab(false));
  $("tab-replays").addEventListener("click", () => showTab(true));
  $("replay-first").addEventListener("click", () => replayGo(0));
  $("replay-prev").addEventListener("click", () => replayGo(state.replayIndex - 1));
  $("replay-next").addEventListener("click", () => replayGo(state.replayIndex + 1));
  $("replay-last").addEventListener("click", () => replayGo(state.replayCount - 1));
  $("replay-slider").addEventListener("change", () => replayGo(Number($("replay-slider").value)));
  document.addEventListener("keydown", onKey);
  connect();
});
