// longground annotate: a thin view over the server's JSON API (see annotate/app.py).
// The server checks every value; this page shows what it answers, errors included.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = {
  session: null, videos: [], video: null, videoInfo: null, queries: [],
  qid: null, view: "verify", selected: 0, status: "all", transcript: [], spoken: -1,
};

// ---------------------------------------------------------------- talking to the server

function say(text, kind) {
  const box = $("#message");
  box.textContent = text;
  box.className = kind || "info";
}

async function api(path, options) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

// Edits go one at a time, each on the version the previous answer returned.
let pending = Promise.resolve();

function edit(qid, fields) {
  pending = pending.then(() => send(qid, fields), () => send(qid, fields));
  return pending;
}

async function send(qid, fields) {
  const query = state.queries.find((q) => q.qid === qid);
  const { status, body } = await api(`/api/queries/${encodeURIComponent(qid)}`, {
    method: "PATCH",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ version: query.version, ...fields }),
  });
  if (status === 200) {
    replaceQuery(body);
    say(`Saved ${qid} (version ${body.version})`, "info");
  } else if (status === 409) {
    replaceQuery(body.current);
    say(body.detail, "error");
  } else {
    say(typeof body.detail === "string" ? body.detail : `Error ${status}`, "error");
  }
  render();
  loadVideos();
  return status;
}

function replaceQuery(query) {
  const i = state.queries.findIndex((q) => q.qid === query.qid);
  if (i >= 0) state.queries[i] = query;
}

async function loadVideos() {
  state.videos = (await api("/api/videos")).body.videos;
  renderNavigator();
}

async function openVideo(name, qid) {
  state.video = name;
  const params = new URLSearchParams({ video: name, status: state.status });
  const [info, listed] = await Promise.all([
    api(`/api/video?name=${encodeURIComponent(name)}`), api(`/api/queries?${params}`)]);
  state.videoInfo = info.body;
  state.queries = listed.body.queries || [];
  const keep = state.queries.find((q) => q.qid === qid);
  state.qid = keep ? keep.qid : (state.queries[0] || {}).qid || null;
  state.selected = 0;
  const player = $("#player");
  if (state.videoInfo.available) {
    if (player.getAttribute("src") !== state.videoInfo.media_url) {
      player.src = state.videoInfo.media_url;
      player.muted = false;  // the refinement player plays the sound (the cards' clips are muted)
      loadTranscript(name);
    }
    player.hidden = false;
    $("#no-video").hidden = true;
  } else {
    player.removeAttribute("src");
    player.hidden = true;
    showTranscript(name, { segments: [], note: "the video file is not in the videos folder" });
    $("#no-video").hidden = false;
    $("#no-video").textContent = `The video file is not in the videos folder: ${state.videoInfo.expected_path}`;
  }
  remember();
  render();
  renderNavigator();
}

async function loadQueries() {
  const params = new URLSearchParams({ video: state.video, status: state.status });
  state.queries = (await api(`/api/queries?${params}`)).body.queries || [];
}

// ---------------------------------------------------------------- the transcript

// What is said, under the player: asked for once per video (the server reads the channels
// cache, or transcribes the video on first request, which can take a while).
async function loadTranscript(name) {
  showTranscript(name, { segments: [], note: null, loading: true });
  const { status, body } = await api(`/api/transcript?name=${encodeURIComponent(name)}`);
  if (state.video !== name) return;  // another video was opened meanwhile
  showTranscript(name, status === 200 ? body :
    { segments: [], note: typeof body.detail === "string" ? body.detail : `error ${status}` });
}

function showTranscript(name, answer) {
  state.transcript = answer.segments;
  state.spoken = -1;
  const from = { cache: "from the channels cache", extracted: "transcribed now" }[answer.from];
  $("#transcript-note").textContent = answer.loading ? "reading..." :
    answer.note ? `none: ${answer.note}` :
    answer.segments.length ? `${answer.segments.length} segments, ${from}` : "nothing is said";
  $("#transcript-lines").replaceChildren(...answer.segments.map((seg, i) => {
    const item = el("li", { "data-index": String(i), "data-start": String(seg.start_s) });
    const at = el("button", { class: "seek", title: "Play from here" }, hms(seg.start_s));
    at.addEventListener("click", () => { $("#player").currentTime = seg.start_s; });
    item.append(at, el("span", { class: "said" }, seg.text));
    return item;
  }));
  highlightSpoken();
}

// The segment under the playhead is highlighted and kept in view inside the list.
function highlightSpoken() {
  const t = $("#player").currentTime || 0;
  const now = state.transcript.findIndex((s) => s.start_s <= t && t < s.end_s);
  if (now === state.spoken) return;
  state.spoken = now;
  const list = $("#transcript-lines");
  list.querySelectorAll("li").forEach((item, i) => {
    item.classList.toggle("current", i === now);
    if (i === now) item.setAttribute("aria-current", "true"); else item.removeAttribute("aria-current");
  });
  const item = list.children[now];
  if (item) list.scrollTop = item.offsetTop - list.clientHeight / 3;
}

// ---------------------------------------------------------------- the URL keeps the place

function remember() {
  const params = new URLSearchParams({ view: state.view });
  if (state.video !== null) params.set("video", state.video);
  if (state.qid) params.set("qid", state.qid);
  history.replaceState(null, "", `#${params}`);
}

function recall() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { view: params.get("view"), video: params.get("video"), qid: params.get("qid") };
}

// ---------------------------------------------------------------- drawing

function badges(q) {
  const review = { verified: "Verified", unverified: "Unverified", discarded: "Discarded" };
  return `<span class="badge ${q.review}" data-badge="review">${review[q.review]}</span>` +
    `<span class="badge ${q.annotated ? "annotated" : ""}" data-badge="annotated">` +
    `${q.annotated ? "Annotated" : "Unannotated"}</span>`;
}

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function render() {
  document.querySelectorAll(".view").forEach((v) => { v.hidden = v.id !== `view-${state.view}`; });
  document.querySelectorAll(".tabs button").forEach((b) => {
    b.setAttribute("aria-selected", String(b.dataset.view === state.view));
  });
  if (state.view === "verify") renderCards(); else renderRefine();
}

function renderCards() {
  $("#verify-title").textContent = state.video === null ? "Queries" : `Queries of ${state.video}`;
  const cards = $("#cards");
  // A card that stays on the page is updated in place, not rebuilt: a save answered while a
  // button is held down would otherwise swap the button away and its click would be lost.
  const kept = new Map([...cards.querySelectorAll("article")].map((a) => [a.dataset.qid, a]));
  const boxes = state.queries.map((q) => fillCard(kept.get(q.qid) || card(q.qid), q));
  if (!boxes.length) boxes.push(el("p", {}, "No query matches this filter."));
  const shown = [...cards.children];
  if (boxes.length !== shown.length || boxes.some((b, i) => b !== shown[i])) {
    cards.replaceChildren(...boxes);
  }
}

function queryOf(qid) {
  return state.queries.find((q) => q.qid === qid);
}

function card(qid) {
  const box = el("article", { "data-qid": qid });
  const head = el("header");
  head.append(el("span", { class: "qid" }, qid), el("span", { class: "badges" }),
    el("span", { class: "qid count" }));
  const text = el("textarea", { "aria-label": "query text" });
  text.addEventListener("change", () => edit(qid, { query: text.value }));
  const tags = el("div", { class: "tags", role: "group", "aria-label": "attributes" });
  for (const name of state.session.attributes) {
    const tag = el("button", { class: "tag", "data-attr": name },
      name[0].toUpperCase() + name.slice(1));
    tag.addEventListener("click", () => {
      const now = queryOf(qid).attributes;
      const next = now.includes(name) ? now.filter((a) => a !== name) : [...now, name];
      edit(qid, { attributes: next });
    });
    tags.append(tag);
  }
  const toggle = (target) => () => edit(qid, {
    review: queryOf(qid).review === target ? "unverified" : target });
  const verify = el("button", { class: "verify" });
  verify.addEventListener("click", toggle("verified"));
  const discard = el("button", { class: "discard" });
  discard.addEventListener("click", toggle("discarded"));
  const refine = el("button", { class: "to-refine" }, "Refine intervals \u2192");
  refine.addEventListener("click", () => { state.qid = qid; state.selected = 0; show("refine"); });
  const actions = el("div", { class: "actions" });
  actions.append(verify, discard, refine);
  box.append(head, el("div", { class: "clip-slot" }), text, tags, actions);
  return box;
}

// Show query `q` on its card: what the server answered, the clip only when it changed.
function fillCard(box, q) {
  box.className = `card ${q.review}`;
  box.querySelector(".badges").innerHTML = badges(q);
  box.querySelector(".count").textContent = `${q.intervals.length} interval(s), v${q.version}`;
  const text = box.querySelector("textarea");
  if (text.value !== q.query && document.activeElement !== text) text.value = q.query;
  for (const tag of box.querySelectorAll(".tag")) {
    tag.setAttribute("aria-pressed", String(q.attributes.includes(tag.dataset.attr)));
  }
  box.querySelector(".verify").textContent = q.review === "verified" ? "Unverify" : "Verify";
  box.querySelector(".discard").textContent = q.review === "discarded" ? "Restore" : "Discard";
  const slot = box.querySelector(".clip-slot");
  const fresh = clip(q);
  const old = slot.firstElementChild;
  if (!old || old.outerHTML !== fresh.outerHTML) slot.replaceChildren(fresh);
  return box;
}

// The clip a card plays: the query's first interval (a media fragment, so the browser stops
// at its end), or the whole video for a query without intervals.
function clip(q) {
  const info = state.videoInfo && state.videoInfo.video === q.video ? state.videoInfo : null;
  if (info && !info.available) {
    return el("p", { class: "no-clip" }, `No video to play: ${info.expected_path} is missing`);
  }
  const span = q.intervals[0];
  const fragment = span ? `#t=${span[0].toFixed(2)},${span[1].toFixed(2)}` : "";
  return el("video", { class: "clip", controls: "", muted: "", preload: "metadata",
    src: `${q.media_url}${fragment}`, "aria-label": `clip of ${q.qid}` });
}

function current() {
  return state.queries.find((q) => q.qid === state.qid) || null;
}

function renderRefine() {
  const select = $("#query-select");
  select.replaceChildren(...state.queries.map((q) => {
    const option = el("option", { value: q.qid }, `${q.qid}: ${q.query.slice(0, 60)}`);
    option.selected = q.qid === state.qid;
    return option;
  }));
  const q = current();
  $("#refine-text").textContent = q ? q.query : "No query selected.";
  $("#refine-badges").innerHTML = q ? badges(q) : "";
  $("#annotated-flag").checked = Boolean(q && q.annotated);
  $("#annotated-flag").disabled = !q;
  $("#add-interval").disabled = !q;
  $("#duration").textContent = state.videoInfo ? hms(state.videoInfo.duration_s) : "-";
  // Rows are kept and refilled, not rebuilt, for the reason given in renderCards.
  const body = $("#intervals tbody");
  const spans = q ? q.intervals : [];
  while (body.children.length > spans.length) body.lastElementChild.remove();
  spans.forEach((span, i) => {
    const row = body.children[i] || body.appendChild(intervalRow(i));
    row.classList.toggle("selected", i === state.selected);
    row.querySelector(".start").value = q.intervals_hms[i][0];
    row.querySelector(".end").value = q.intervals_hms[i][1];
  });
  drawTimeline();
}

function intervalRow(i) {
  const row = el("tr", { "data-index": String(i) });
  const seek = el("button", { class: "seek", title: "Seek to this interval" }, `${i + 1} \u25B6`);
  seek.addEventListener("click", () => select(i, true));
  const cells = [seek];
  ["start", "end"].forEach((side, k) => {
    const input = el("input", { class: side, "aria-label": `${side} of interval ${i + 1}` });
    input.addEventListener("focus", () => select(i, false));
    input.addEventListener("change", () => setTime(i, k, input.value));
    cells.push(input);
  });
  const tools = el("span");
  const fromStart = el("button", { class: "start-from-playhead", title: "[" }, "\u21E4 start");
  fromStart.addEventListener("click", () => setTime(i, 0, $("#player").currentTime));
  const fromEnd = el("button", { class: "end-from-playhead", title: "]" }, "end \u21E5");
  fromEnd.addEventListener("click", () => setTime(i, 1, $("#player").currentTime));
  const remove = el("button", { class: "delete", title: "Delete" }, "Delete");
  remove.addEventListener("click", () => deleteInterval(i));
  tools.append(fromStart, " ", fromEnd, " ", remove);
  cells.push(tools);
  for (const c of cells) { const td = el("td"); td.append(c); row.append(td); }
  return row;
}

function drawTimeline() {
  const q = current();
  const total = state.videoInfo ? state.videoInfo.duration_s : 0;
  const lanes = { gt: $("#lane-gt"), pred: $("#lane-pred") };
  lanes.gt.replaceChildren();
  lanes.pred.replaceChildren();
  if (!q || !total) return;
  const place = (span, cls, lane, title) => {
    const left = (100 * span[0]) / total;
    const width = Math.max(0.3, (100 * (span[1] - span[0])) / total);
    const node = el("div", { class: `span ${cls}`, title,
      style: `left:${left}%;width:${width}%` });
    lane.append(node);
    return node;
  };
  q.intervals.forEach((span, i) => {
    const node = place(span, i === state.selected ? "gt selected" : "gt", lanes.gt,
      `${q.intervals_hms[i][0]} - ${q.intervals_hms[i][1]}`);
    node.addEventListener("click", (e) => { e.stopPropagation(); select(i, true); });
  });
  (q.predictions || []).forEach((span) => {
    const node = place(span, "pred", lanes.pred, `prediction ${hms(span[0])} - ${hms(span[1])}`);
    node.addEventListener("click", (e) => {
      e.stopPropagation();
      edit(q.qid, { intervals: [...q.intervals, [span[0], span[1]]] });
    });
  });
  drawTicks(total);
  moveCursor();
}

// Time marks under the lanes, in HH:MM:SS, on a round step with room for each label.
const TICK_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400];
const TICK_LABEL_PX = 72;

function drawTicks(total) {
  const ticks = $("#ticks");
  ticks.replaceChildren();
  if (!total) return;
  const most = Math.max(1, Math.floor(($("#timeline").clientWidth || 480) / TICK_LABEL_PX) - 1);
  const step = TICK_STEPS_S.find((s) => total / s <= most) || TICK_STEPS_S[TICK_STEPS_S.length - 1];
  for (let t = 0; t <= total + 1e-9; t += step) {
    const mark = el("span", { class: "tick", style: `left:${(100 * t) / total}%` },
      hms(t).slice(0, 8));
    ticks.append(mark);
  }
}

function moveCursor() {
  const total = state.videoInfo ? state.videoInfo.duration_s : 0;
  const t = $("#player").currentTime || 0;
  $("#playhead").textContent = hms(t);
  $("#cursor").style.left = total ? `${Math.min(100, (100 * t) / total)}%` : "0";
}

function hms(seconds) {
  const tenths = Math.round(Math.max(0, seconds) * 10);
  const pad = (n) => String(n).padStart(2, "0");
  const s = Math.floor(tenths / 10);
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}.${tenths % 10}`;
}

function renderNavigator() {
  const text = $("#video-filter").value.toLowerCase();
  const which = $("#video-status").value;
  const keep = (v) => {
    const live = v.total - v.discarded;
    const status = {
      all: true, "to-verify": v.verified + v.discarded < v.total,
      "to-annotate": v.annotated < live, done: v.annotated >= live,
    };
    return v.video.toLowerCase().includes(text) && status[which];
  };
  const list = document.createDocumentFragment();
  let [verified, annotated, total] = [0, 0, 0];
  for (const v of state.videos) {
    verified += v.verified; annotated += v.annotated; total += v.total;
    if (!keep(v)) continue;
    const item = el("li", { "data-video": v.video });
    if (v.video === state.video) item.classList.add("current");
    item.append(el("span", { class: "name" }, v.video));
    item.append(el("span", { class: "progress" },
      `${v.verified} verified / ${v.annotated} annotated / ${v.total} total`));
    const bar = el("div", { class: "bar" });
    bar.append(el("span", { style: `width:${(100 * v.annotated) / v.total}%` }));
    item.append(bar);
    item.addEventListener("click", () => openVideo(v.video, null));
    list.append(item);
  }
  $("#videos").replaceChildren(list);
  $("#totals").textContent =
    `${state.videos.length} videos: ${verified} verified / ${annotated} annotated / ${total} queries`;
}

// ---------------------------------------------------------------- interval actions

function select(i, seek) {
  state.selected = i;
  const q = current();
  if (seek && q && q.intervals[i]) $("#player").currentTime = q.intervals[i][0];
  document.querySelectorAll("#intervals tbody tr").forEach((row) => {
    row.classList.toggle("selected", Number(row.dataset.index) === i);
  });
  drawTimeline();
}

function setTime(i, side, value) {
  const q = current();
  const spans = q.intervals.map((span) => span.slice());
  spans[i][side] = value;  // typed text goes as is: the server reads and checks it
  return edit(q.qid, { intervals: spans });
}

function deleteInterval(i) {
  const q = current();
  if (!q || !q.intervals[i]) return;
  state.selected = Math.max(0, i - 1);
  return edit(q.qid, { intervals: q.intervals.filter((_, k) => k !== i) });
}

function addInterval() {
  const q = current();
  if (!q) return;
  const total = state.videoInfo.duration_s;
  const start = Math.min($("#player").currentTime || 0, Math.max(0, total - 1));
  state.selected = q.intervals.length;
  return edit(q.qid, { intervals: [...q.intervals, [start, Math.min(total, start + 1)]] });
}

function show(view) {
  state.view = view;
  remember();
  render();
  if (view === "refine") openAtFirstInterval();
}

// The refinement view starts where the query's first interval starts (not at 0:00).
function openAtFirstInterval() {
  const q = current();
  state.selected = 0;
  if (q && q.intervals.length) select(0, true);
}

function step(list, delta) {
  const i = list.findIndex((q) => q.qid === state.qid);
  const next = list[Math.min(list.length - 1, Math.max(0, i + delta))];
  if (!next) return;
  state.qid = next.qid; state.selected = 0; remember(); render();
  if (state.view === "refine") openAtFirstInterval();
}

function onKey(event) {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const player = $("#player");
  const q = current();
  const keys = {
    " ": () => (player.paused ? player.play() : player.pause()),
    ArrowLeft: () => { player.currentTime -= event.shiftKey ? 10 : 1; },
    ArrowRight: () => { player.currentTime += event.shiftKey ? 10 : 1; },
    ArrowUp: () => q && select(Math.max(0, state.selected - 1), true),
    ArrowDown: () => q && select(Math.min(q.intervals.length - 1, state.selected + 1), true),
    "[": () => q && q.intervals[state.selected] && setTime(state.selected, 0, player.currentTime),
    "]": () => q && q.intervals[state.selected] && setTime(state.selected, 1, player.currentTime),
    a: addInterval, Delete: () => deleteInterval(state.selected),
    m: () => q && edit(q.qid, { annotated: !q.annotated }),
    v: () => q && edit(q.qid, { review: "verified" }),
    n: () => step(state.queries, 1), p: () => step(state.queries, -1),
    1: () => show("verify"), 2: () => show("refine"),
  };
  const action = keys[event.key.length === 1 ? event.key.toLowerCase() : event.key] ||
    keys[event.key];
  if (!action) return;
  event.preventDefault();
  action();
}

// ---------------------------------------------------------------- start

async function start() {
  const [session, videos] = await Promise.all([api("/api/session"), api("/api/videos")]);
  state.session = session.body;
  state.videos = videos.body.videos;
  $("#who").textContent = `annotator: ${state.session.annotator}`;
  $("#status-filter").replaceChildren(...state.session.status_filters.map(
    (s) => el("option", { value: s }, s)));
  document.querySelectorAll(".tabs button").forEach((b) => {
    b.addEventListener("click", () => show(b.dataset.view));
  });
  $("#status-filter").addEventListener("change", async (e) => {
    state.status = e.target.value;
    await loadQueries();
    render();
  });
  $("#query-select").addEventListener("change", (e) => {
    state.qid = e.target.value; state.selected = 0; remember(); render(); openAtFirstInterval();
  });
  $("#video-filter").addEventListener("input", renderNavigator);
  $("#video-status").addEventListener("change", renderNavigator);
  $("#add-interval").addEventListener("click", addInterval);
  $("#annotated-flag").addEventListener("change", (e) => {
    const q = current();
    if (q) edit(q.qid, { annotated: e.target.checked });
  });
  $("#timeline").addEventListener("click", (e) => {
    const box = e.currentTarget.getBoundingClientRect();
    if (state.videoInfo) {
      $("#player").currentTime = ((e.clientX - box.left) / box.width) * state.videoInfo.duration_s;
    }
  });
  $("#player").addEventListener("timeupdate", moveCursor);
  $("#player").addEventListener("seeked", moveCursor);
  $("#player").addEventListener("timeupdate", highlightSpoken);
  $("#player").addEventListener("seeked", highlightSpoken);
  document.addEventListener("keydown", onKey);
  const place = recall();
  if (place.view === "refine" || place.view === "verify") state.view = place.view;
  const first = state.videos.find((v) => v.video === place.video) || state.videos[0];
  if (first) await openVideo(first.video, place.qid); else render();
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = "1";
}

start().catch((err) => say(`Could not load: ${err}`, "error"));
