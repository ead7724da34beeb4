// longground serve: a thin view over /api. Every ranking, filter and time format is the
// server's; this page asks, shows, plays and sends the chosen hits back.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { library: null, result: null, current: -1, selected: new Set(), ready: -1,
                tracks: new Map(), trackRun: 0 };

async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.detail || response.statusText);
  return body;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

// ---- the library and its indexing ----
async function refreshLibrary() {
  try {
    const library = await getJSON("/api/library");
    state.library = library;
    drawLibrary();
    if (state.result && library.ready !== state.ready) runSearch(false);
    state.ready = library.ready;
  } catch (error) {
    $("status").textContent = `cannot reach the server: ${error.message}`;
  }
  setTimeout(refreshLibrary, state.library && state.library.pending ? 1000 : 4000);
}

function drawLibrary() {
  const { videos, ready, pending, errors } = state.library;
  const counts = new Map((state.result ? state.result.videos : []).map((v) => [v.id, v]));
  const list = $("videos");
  list.replaceChildren();
  for (const video of videos) {
    const found = counts.get(video.id);
    const item = el("li", { "data-video": video.id, "data-state": video.state },
      el("span", { class: "name" }, video.name),
      el("span", { class: `state ${video.state}` },
        video.state === "indexing" ? `indexing ${video.elapsed_s ?? 0} s` : video.state));
    if (found) {
      item.prepend(el("span", { class: `count${found.count ? "" : " zero"}`,
                                title: "moments of this query" }, String(found.count)));
    }
    const error = video.error || (found && found.error);
    if (error) item.append(el("span", { class: "error-line" }, error));
    list.append(item);
  }
  const select = $("filter-video");
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "" }, "all"));
  for (const video of videos.filter((v) => v.state === "ready")) {
    select.append(el("option", { value: video.id }, video.name));
  }
  select.value = chosen;
  $("status").textContent = `${videos.length} videos: ${ready} ready, ${pending} to index` +
    (errors ? `, ${errors} with errors` : "") + (pending ? " (searching the ready ones)" : "");
}

// ---- searching ----
function searchURL() {
  const params = new URLSearchParams({ q: $("query").value });
  if ($("filter-video").value) params.append("video", $("filter-video").value);
  if ($("filter-channel").value) params.set("channel", $("filter-channel").value);
  if ($("filter-score").value !== "") params.set("min_score", $("filter-score").value);
  return `/api/search?${params}`;
}

async function runSearch(fresh = true) {
  if (!$("query").value.trim()) return;
  $("summary").textContent = "searching…";
  try {
    state.result = await getJSON(searchURL());
  } catch (error) {
    $("summary").textContent = error.message;
    return;
  }
  if (fresh) { state.current = -1; state.selected.clear(); }
  state.tracks.clear();
  drawHits();
  if (state.library) drawLibrary();
}

function drawHits() {
  const { hits, total, pending, method } = state.result;
  const shown = hits.length;
  $("summary").textContent = `${shown} of ${total} moments (${method})` +
    (pending ? ` · ${pending} videos still indexing` : "");
  const list = $("hits");
  list.replaceChildren();
  hits.forEach((hit, n) => {
    const box = el("input", { type: "checkbox", checked: state.selected.has(hit.id),
                              title: "select for export (x)" });
    box.addEventListener("click", (event) => { event.stopPropagation(); toggle(hit.id); });
    const card = el("li", { class: "hit", "data-hit": hit.id, tabIndex: 0 },
      el("div", { class: "frame" },
        el("img", { src: hit.thumb_url, alt: `${hit.name} at ${hit.start}`, loading: "lazy" }),
        el("canvas", { class: "boxes" })),
      el("div", { class: "meta" },
        el("label", {}, box),
        el("div", { class: "name" }, el("span", { class: "rank" }, `#${n + 1} `), hit.name),
        el("span", { class: "times" }, `${hit.start}–${hit.end}`), " ",
        el("span", { class: "score" }, hit.score === null ? "" : hit.score.toFixed(3)), " ",
        el("span", { class: "channel" }, hit.channel || "")));
    card.addEventListener("click", () => openHit(n));
    list.append(card);
  });
  markCards();
  loadTracks();
}

// ---- tracks: the server follows the object; the page draws its boxes ----
async function loadTracks() {
  if (!$("show-tracks").checked || !state.result) return;
  const query = state.result.query, run = ++state.trackRun;  // one loop at a time
  for (const hit of state.result.hits) {
    if (run !== state.trackRun) return;
    if (!state.tracks.has(hit.id)) {
      const params = new URLSearchParams({ q: query, hit: hit.id });
      try {
        state.tracks.set(hit.id, await getJSON(`/api/tracks?${params}`));
      } catch (error) {
        state.tracks.set(hit.id, { tracks: [], note: error.message, thumb: null });
      }
      if (!state.result || state.result.query !== query) return;  // a new search began
    }
    drawThumbTracks(hit.id);
    if (state.result.hits[state.current]?.id === hit.id) drawPlayerTracks();
  }
}

function drawThumbTracks(id) {
  const card = document.querySelector(`.hit[data-hit="${CSS.escape(id)}"]`);
  const answer = state.tracks.get(id);
  if (!card || !answer || !answer.thumb) return;
  const img = card.querySelector("img"), canvas = card.querySelector("canvas");
  const draw = () => drawBoxes(canvas, img, img.naturalWidth, img.naturalHeight,
                               answer.thumb.boxes);
  if (img.getAttribute("src") !== answer.thumb.url) {
    img.addEventListener("load", draw, { once: true });
    img.src = answer.thumb.url;
  } else if (img.complete) draw();
  else img.addEventListener("load", draw, { once: true });
  card.dataset.tracks = String(answer.tracks.length);
}

// The box of a track at time t: linear between its samples, none before the first, after
// the last, or across a gap wider than maxGap (Track.boxes_at, on the server, is the same).
function boxAt(track, t, maxGap) {
  const times = track.times_s;
  if (!times.length || t < times[0] || t > times[times.length - 1]) return null;
  let k = times.findIndex((s) => s >= t);
  if (times[k] === t) return track.boxes[k];
  const t0 = times[k - 1], t1 = times[k];
  if (t1 - t0 > maxGap) return null;
  const a = (t - t0) / (t1 - t0);
  return track.boxes[k].map((v, i) => track.boxes[k - 1][i] * (1 - a) + v * a);
}

function drawPlayerTracks() {
  const player = $("player"), canvas = $("player-boxes");
  const hit = state.result && state.result.hits[state.current];
  const answer = hit && $("show-tracks").checked ? state.tracks.get(hit.id) : null;
  $("tracks-note").hidden = !(answer && answer.note);
  $("tracks-note").textContent = answer && answer.note ? `tracks: ${answer.note}` : "";
  const boxes = !answer ? [] : answer.tracks
    .map((track) => ({ track_id: track.track_id, colour: track.colour,
                       box: boxAt(track, player.currentTime, answer.max_gap_s) }))
    .filter((item) => item.box);
  drawBoxes(canvas, player, player.videoWidth, player.videoHeight, boxes);
}

// Boxes (normalised xyxy) over a picture shown with object-fit: contain in `media`.
function drawBoxes(canvas, media, width, height, boxes) {
  const rect = media.getBoundingClientRect();
  canvas.width = Math.round(rect.width);
  canvas.height = Math.round(rect.height);
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!width || !height) return;
  const scale = Math.min(canvas.width / width, canvas.height / height);
  const x = (canvas.width - width * scale) / 2, y = (canvas.height - height * scale) / 2;
  const w = width * scale, h = height * scale;
  ctx.lineWidth = 2;
  ctx.font = "11px system-ui, sans-serif";
  for (const { box, colour, track_id: id } of boxes) {
    const [x0, y0, x1, y1] = box;
    ctx.strokeStyle = colour;
    ctx.strokeRect(x + x0 * w, y + y0 * h, (x1 - x0) * w, (y1 - y0) * h);
    ctx.fillStyle = colour;
    ctx.fillRect(x + x0 * w, Math.max(0, y + y0 * h - 14), 8 + 7 * String(id).length, 14);
    ctx.fillStyle = "#fff";
    ctx.fillText(String(id), x + x0 * w + 3, Math.max(11, y + y0 * h - 3));
  }
}

function markCards() {
  document.querySelectorAll(".hit").forEach((card, n) => {
    card.classList.toggle("current", n === state.current);
    card.classList.toggle("selected", state.selected.has(card.dataset.hit));
    card.querySelector("input").checked = state.selected.has(card.dataset.hit);
  });
  $("selected-count").textContent = `${state.selected.size} selected`;
  $("export").disabled = state.selected.size === 0;
}

function toggle(id) {
  if (state.selected.has(id)) state.selected.delete(id); else state.selected.add(id);
  markCards();
}

// ---- the player ----
function openHit(n) {
  const hits = state.result ? state.result.hits : [];
  if (n < 0 || n >= hits.length) return;
  state.current = n;
  const hit = hits[n];
  const player = $("player");
  $("viewer").hidden = false;
  $("why").hidden = true;
  $("viewer-title").textContent = `#${n + 1} ${hit.name}`;
  $("inout-text").textContent = `In ${hit.start}   Out ${hit.end}` +
    (hit.score === null ? "" : `   score ${hit.score.toFixed(3)}`);
  const seek = () => { player.currentTime = hit.start_s; drawInOut(); };
  if (player.dataset.src !== hit.media_url) {
    player.dataset.src = hit.media_url;
    player.src = hit.media_url;
    player.addEventListener("loadedmetadata", seek, { once: true });
  } else {
    seek();
  }
  player.dataset.in = hit.start_s;
  player.dataset.out = hit.end_s;
  drawPlayerTracks();
  markCards();
  document.querySelector(`.hit[data-hit="${CSS.escape(hit.id)}"]`)?.scrollIntoView({ block: "nearest" });
}

function drawInOut() {
  const player = $("player");
  const duration = player.duration;
  if (!duration || !isFinite(duration)) return;
  const start = Number(player.dataset.in), end = Number(player.dataset.out);
  $("inout-range").style.left = `${(100 * start) / duration}%`;
  $("inout-range").style.width = `${Math.max(0.5, (100 * (end - start)) / duration)}%`;
  $("playhead").style.left = `${(100 * player.currentTime) / duration}%`;
}

function playHit() {
  const player = $("player");
  if (state.current < 0) return;
  if (!player.paused) { player.pause(); return; }
  const start = Number(player.dataset.in), end = Number(player.dataset.out);
  if (player.currentTime < start || player.currentTime >= end) player.currentTime = start;
  player.play();
}

$("player").addEventListener("timeupdate", () => {
  const player = $("player");
  drawInOut();
  drawPlayerTracks();
  if (!player.paused && player.currentTime >= Number(player.dataset.out)) player.pause();
});
for (const event of ["seeked", "loadeddata"]) $("player").addEventListener(event, drawPlayerTracks);
$("player").addEventListener("play", function tick() {  // follow the boxes frame by frame
  drawPlayerTracks();
  if (!$("player").paused) requestAnimationFrame(tick);
});

async function showWhy() {
  const hit = state.result && state.result.hits[state.current];
  if (!hit) return;
  const params = new URLSearchParams({ q: state.result.query, video: hit.video });
  try {
    const why = await getJSON(`/api/explain?${params}`);
    $("why").textContent = `${why.line}\n\n${JSON.stringify(why.trace, null, 1)}`;
  } catch (error) {
    $("why").textContent = error.message;
  }
  $("why").hidden = false;
}

// ---- exporting ----
async function exportSelected() {
  const format = $("export-format").value;
  const status = $("export-status");
  status.className = "";
  status.textContent = "exporting…";
  const response = await fetch("/api/export", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query: state.result.query, format, hits: [...state.selected] }),
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    status.className = "error";
    status.textContent = body.detail || response.statusText;
    return;
  }
  const name = (response.headers.get("Content-Disposition") || "").match(/filename="(.+)"/);
  const link = el("a", { href: URL.createObjectURL(await response.blob()),
                         download: name ? name[1] : `longground.${format}` });
  document.body.append(link);
  link.click();
  link.remove();
  status.textContent = `exported ${state.selected.size} hits as ${link.download}`;
}

// ---- wiring ----
$("search-form").addEventListener("submit", (event) => { event.preventDefault(); runSearch(); });
for (const id of ["filter-video", "filter-channel", "filter-score"]) {
  $(id).addEventListener("change", () => runSearch(false));
}
$("show-tracks").addEventListener("change", () => {
  if (state.result) drawHits();
  drawPlayerTracks();
});
$("prev").addEventListener("click", () => openHit(state.current - 1));
$("next").addEventListener("click", () => openHit(state.current + 1));
$("play-hit").addEventListener("click", playHit);
$("explain").addEventListener("click", showWhy);
$("export").addEventListener("click", exportSelected);
document.addEventListener("keydown", (event) => {
  if (event.target.matches("input, select, textarea") || event.ctrlKey || event.metaKey) return;
  const keys = { n: 1, j: 1, p: -1, k: -1 };
  if (event.key in keys) {
    event.preventDefault();
    openHit(state.current < 0 ? 0 : state.current + keys[event.key]);
  } else if (event.key === " " && state.current >= 0) {
    event.preventDefault();
    playHit();
  } else if (event.key === "x" && state.current >= 0) {
    toggle(state.result.hits[state.current].id);
  }
});
refreshLibrary();
