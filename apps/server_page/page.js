// translate_server's page: translate sentences (POST /translate), show a sentence's
// attention (POST /attention) as heat maps on <canvas>, the model's description (GET /model)
// in the header. Plain JavaScript, no libraries, nothing fetched from outside.
//
// The address /?sentence=TEXT&beam=K translates TEXT at once (&replace_unk=1 copies unknown
// words from the source; &map=cross&layer=2&head=1 choose the maps shown). For tests the page marks its state in the DOM: <body data-state>
// is loading, idle, translating, attention, done or error; each heat map's canvas carries
// data-kind, -layer, -head (0-based), -rows, -cols, -values (row-major, 4 decimals), -sum,
// and where its cells are drawn (data-origin-x/-y, data-cell in CSS pixels from the canvas's
// corner, data-x/-y the canvas's corner on the page); the legend's data-stops are the colour
// scale (evenly spaced stops, linear in sRGB between them).
"use strict";

// Viridis (matplotlib's), sampled at 0, 1/8, ..., 1: dark purple to yellow, readable by
// people with the common colour-vision deficiencies and in greyscale. The same stops as the
// library's PNG heat maps (src/util/colormap.cpp), so a map looks the same in both.
const STOPS = ["#440154", "#472c7a", "#3b518b", "#2c718e", "#21908d", "#27ad81", "#5cc863", "#aadc32", "#fde725"];
const STOP_RGB = STOPS.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));

const KINDS = [
  { key: "encoder_self", title: "Encoder self-attention", rows: "source", cols: "source",
    axes: "Rows: each source token (query); columns: the source tokens it attends to (keys)." },
  // A decoder row is a decoding step, named by the token it writes ("written"); the step's
  // query is that of the token it reads, the column of the same index in decoder self-attention.
  { key: "decoder_self", title: "Decoder self-attention", rows: "written", cols: "target",
    axes: "Rows: each decoding step, named by the word it writes (its query reads the word before); " +
      "columns: the words read so far, SOS first (masked: no later ones)." },
  { key: "cross", title: "Cross-attention (decoder to encoder)", rows: "written", cols: "source",
    axes: "Rows: each decoding step, named by the word it writes; columns: the source tokens it attends to." },
];

// The language of index.html's example sentences (the text box's placeholder): a model with
// another source language gets a placeholder naming its own.
const EXAMPLE_LANGUAGE = "en";

const $ = (id) => document.getElementById(id);
// sourceLanguage, targetLanguage: the model's ISO codes once GET /model has answered.
const state = { attention: null, selected: -1, sentences: [], beam: 1, replaceUnk: false, sourceLanguage: "",
                targetLanguage: "" };

function setState(name) { document.body.dataset.state = name; }

function showStatus(text, isError) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

// The colour of weight v in [0, 1]: linear between the two stops around it.
function colourOf(v) {
  const x = Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0)) * (STOP_RGB.length - 1);
  const i = Math.min(STOP_RGB.length - 2, Math.floor(x));
  const t = x - i;
  return STOP_RGB[i].map((c, k) => Math.round(c + (STOP_RGB[i + 1][k] - c) * t));
}

async function requestJson(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error : `${response.status} ${response.statusText}`;
    throw new Error(`${path}: ${message}`);
  }
  return data;
}

// ---- The model's description --------------------------------------------------------------

function describeValue(v) {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(describeValue).join(", ");
  if (typeof v === "number") {
    if (Number.isInteger(v)) return String(v);
    return Math.abs(v) >= 1e-3 ? String(parseFloat(v.toFixed(4))) : v.toExponential(2);
  }
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${k.replace(/_/g, " ")} ${describeValue(x)}`).join(", ");
  return String(v);
}

// The model's languages from GET /model: ISO codes ("" when absent or not a code) and the
// server's names for them (the C++ printouts' table, data/languages.h), else the code.
function modelLanguages(model) {
  const code = (v) => (typeof v === "string" && /^[a-z]{2,3}$/.test(v) ? v : "");
  const name = (v, fallback) => (typeof v === "string" && v.length > 0 ? v : fallback);
  const source = code(model.source_language), target = code(model.target_language);
  return { source, target, sourceName: name(model.source_language_name, source),
           targetName: name(model.target_language_name, target) };
}

// The page names the model's pair: its title and heading, the text box's label, language and
// placeholder. Returns " · Spanish → English" for the header's summary ("" without languages).
function showLanguages(model) {
  const { source, target, sourceName, targetName } = modelLanguages(model);
  if (!source || !target) return "";
  state.sourceLanguage = source;
  state.targetLanguage = target;
  const pair = `${sourceName} → ${targetName}`;
  document.title = `dlstudio-cpp translator: ${pair}`;
  $("page-title").textContent = document.title;
  $("source-language").textContent = sourceName;
  const box = $("sentences");
  box.lang = source;
  if (source !== EXAMPLE_LANGUAGE) box.placeholder = `${sourceName} sentences, one per line`;
  return ` · ${pair}`;
}

async function loadModel() {
  try {
    const model = await requestJson("GET", "/model");
    const pick = (...names) => names.map((n) => model[n]).find((v) => v !== undefined && v !== null);
    const summary = pick("summary", "variant") || "seq2seq transformer";
    const languages = model.kind === "vit" ? "" : showLanguages(model);
    const checkpoint = pick("checkpoint");
    $("model-summary").textContent = `${summary}${languages}${checkpoint ? ` · ${checkpoint}` : ""}`;
    const fields = $("model-fields");
    fields.replaceChildren();
    for (const [key, value] of Object.entries(model)) {
      const dt = document.createElement("dt");
      dt.textContent = key.replace(/_/g, " ");
      const dd = document.createElement("dd");
      dd.textContent = describeValue(value);
      fields.append(dt, dd);
    }
    $("model-details").hidden = false;
    document.body.dataset.model = "loaded";
    if (model.kind === "vit") showVit(model);  // vit.js
  } catch (e) {
    $("model-summary").textContent = `The model's description is not available (${e.message}).`;
    document.body.dataset.model = "error";
  }
}

// ---- Translations ---------------------------------------------------------------------------

function beamWidth() {
  if (!$("decoding-beam").checked) return 1;
  const k = parseInt($("beam-width").value, 10);
  return Number.isFinite(k) && k > 1 ? k : 1;
}

// The normalised source with its unknown words marked.
function sourceWithUnknown(item) {
  const p = document.createElement("span");
  p.className = "source-text";
  if (state.sourceLanguage) p.lang = state.sourceLanguage;
  const unknown = new Set(item.unknown_words || []);
  const normalised = item.normalised;
  const words = Array.isArray(normalised) ? normalised : typeof normalised === "string" ? normalised.split(/\s+/) : null;
  if (!words || unknown.size === 0) {
    p.textContent = item.input;
    return p;
  }
  words.filter((w) => w.length > 0).forEach((word, i) => {
    if (i > 0) p.append(" ");
    if (unknown.has(word)) {
      const mark = document.createElement("mark");
      mark.className = "unknown";
      mark.title = "not in the vocabulary: read as <unk>";
      mark.textContent = word;
      p.append(mark);
    } else {
      p.append(word);
    }
  });
  return p;
}

function showTranslations(data) {
  const list = $("results");
  list.replaceChildren();
  data.translations.forEach((item, index) => {
    const li = document.createElement("li");
    li.id = `result-${index}`;
    li.dataset.index = index;
    li.append(sourceWithUnknown(item));
    if (item.error !== undefined) {
      li.dataset.status = "error";
      const error = document.createElement("span");
      error.className = "translation-error";
      error.id = `translation-${index}`;
      error.textContent = `Error: ${item.error}`;
      li.append(error);
    } else {
      li.dataset.status = "ok";
      const text = document.createElement("span");
      text.className = "translation";
      text.id = `translation-${index}`;
      if (state.targetLanguage) text.lang = state.targetLanguage;
      text.title = "the translation (empty: the model wrote no words)";
      text.textContent = item.translation;
      const score = document.createElement("span");
      score.className = "score";
      const parts = [];
      if (typeof item.log_probability === "number") parts.push(`log-probability ${item.log_probability.toFixed(3)}`);
      if (item.raw !== undefined && item.raw !== item.translation) parts.push(`model's words: ${item.raw}`);
      if (item.unknown_words && item.unknown_words.length) parts.push(`unknown: ${item.unknown_words.join(", ")}`);
      if (item.note) parts.push(item.note);  // a sentence longer than the model was trained on
      score.textContent = parts.join(" · ");
      const actions = document.createElement("span");
      actions.className = "actions";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.textContent = "Attention";
      button.setAttribute("aria-pressed", "false");
      button.setAttribute("aria-label", `Show the attention for sentence ${index + 1}`);
      button.addEventListener("click", () => showAttention(index));
      actions.append(button);
      li.append(text, score, actions);
    }
    list.append(li);
  });
  const t = data.timings || {};
  const ms = (v) => (typeof v === "number" ? `${v.toFixed(1)} ms` : "?");
  $("timings").textContent = `${data.beam > 1 ? `Beam search, width ${data.beam}` : "Greedy decoding"} · ` +
    (state.replaceUnk ? "unknown words copied from the source · " : "") +
    `decoding ${ms(t.decode_ms)}, waiting in the queue ${ms(t.queue_ms)}, in all ${ms(t.total_ms)}` +
    (data.batch_sentences ? ` · decoded in a batch of ${data.batch_sentences} sentence${data.batch_sentences > 1 ? "s" : ""}` : "");
  $("results-panel").hidden = false;
}

async function translate() {
  const sentences = $("sentences").value.split("\n").map((s) => s.trim()).filter((s) => s.length > 0);
  if (sentences.length === 0) {
    showStatus("Type a sentence first.", true);
    return false;
  }
  state.sentences = sentences;
  state.beam = beamWidth();
  state.replaceUnk = $("replace-unk").checked;
  setState("translating");
  $("translate-button").disabled = true;
  showStatus(`Translating ${sentences.length} sentence${sentences.length > 1 ? "s" : ""}…`);
  try {
    const data = await requestJson("POST", "/translate", { sentences, beam: state.beam, replace_unk: state.replaceUnk });
    showTranslations(data);
    const failed = data.translations.filter((t) => t.error !== undefined).length;
    showStatus(failed ? `${failed} of ${sentences.length} could not be translated.` : "");
    const first = data.translations.findIndex((t) => t.error === undefined);
    if (first >= 0) {
      await showAttention(first);
    } else {
      setState("done");
    }
    return true;
  } catch (e) {
    showStatus(`Translation failed: ${e.message}`, true);
    setState("error");
    return false;
  } finally {
    $("translate-button").disabled = false;
  }
}

// ---- Attention ------------------------------------------------------------------------------

async function showAttention(index) {
  state.selected = index;
  document.querySelectorAll("#results button.secondary").forEach((b) => {
    b.setAttribute("aria-pressed", String(b.closest("li").dataset.index === String(index)));
  });
  setState("attention");
  showStatus(`Computing the attention of sentence ${index + 1}…`);
  try {
    const data = await requestJson("POST", "/attention", { sentence: state.sentences[index], beam: state.beam,
                                                              replace_unk: state.replaceUnk });
    state.attention = data;
    $("attention-sentence").textContent = `“${data.input}” → “${data.translation}”`;
    const panel = $("attention-panel");
    panel.dataset.sentence = data.input;
    panel.dataset.translation = data.translation;
    panel.hidden = false;
    applyLinkFilters(...fillSelectors(data));
    drawAll();
    hoverFromLink();
    showStatus("");
    setState("done");
  } catch (e) {
    showStatus(`Attention failed: ${e.message}`, true);
    setState("error");
  }
}

function fillSelectors(data) {
  const layers = Math.max(...KINDS.map((k) => (data[k.key] || []).length));
  const heads = Math.max(...KINDS.map((k) => ((data[k.key] || [])[0] || []).length));
  const fill = (select, n, word) => {
    const keep = select.value;
    select.replaceChildren(new Option("all", "all"));
    for (let i = 0; i < n; ++i) select.append(new Option(`${word} ${i + 1}`, String(i)));
    select.value = [...select.options].some((o) => o.value === keep) ? keep : "all";
  };
  fill($("filter-layer"), layers, "layer");
  fill($("filter-head"), heads, "head");
  return [layers, heads];
}

// map=encoder_self|decoder_self|cross, layer=N, head=N (from 1) in the page's address choose
// what the selectors show, once; without them a model of more than 12 maps per kind shows its
// last layer (every map is drawn all the same, the others hidden).
function applyLinkFilters(layers, heads) {
  const params = new URLSearchParams(window.location.search);
  const choose = (id, value) => {
    if (value !== null && [...$(id).options].some((o) => o.value === value)) $(id).value = value;
  };
  const fromOne = (name) => (params.get(name) === null ? null : String(parseInt(params.get(name), 10) - 1));
  if (state.linkFiltersApplied) return;
  state.linkFiltersApplied = true;
  choose("filter-kind", params.get("map"));
  choose("filter-layer", fromOne("layer") ?? (layers * heads > 12 ? String(layers - 1) : null));
  choose("filter-head", fromOne("head"));
}

// hover=KIND:LAYER:HEAD:ROW:COL (from 0) in the page's address moves the pointer over that
// cell, as a test of the hover reading would (the tooltip then says what it shows).
function hoverFromLink() {
  const hover = new URLSearchParams(window.location.search).get("hover");
  if (!hover) return;
  const [kind, layer, head, row, col] = hover.split(":");
  const canvas = document.querySelector(`canvas.heatmap[data-kind="${CSS.escape(kind)}"]` +
    `[data-layer="${Number(layer)}"][data-head="${Number(head)}"]`);
  if (!canvas) return;
  const d = canvas.dataset, cell = Number(d.cell), r = canvas.getBoundingClientRect();
  canvas.dispatchEvent(new MouseEvent("mousemove", {
    clientX: r.left + Number(d.originX) + (Number(col) + 0.5) * cell,
    clientY: r.top + Number(d.originY) + (Number(row) + 0.5) * cell,
    bubbles: true,
  }));
}

// The largest text width of `labels` in the canvas's font.
function labelWidth(ctx, labels) {
  return Math.ceil(Math.max(0, ...labels.map((s) => ctx.measureText(s).width)));
}

// One heat map: column labels written upwards above the cells, row labels to their left.
function drawMap(canvas, matrix, rowTokens, colTokens, cell, stretch) {
  const rows = matrix.length, cols = rows ? matrix[0].length : 0;
  const rowLabels = Array.from({ length: rows }, (_, i) => rowTokens[i] ?? `#${i}`);
  const colLabels = Array.from({ length: cols }, (_, j) => colTokens[j] ?? `#${j}`);
  const font = "12px system-ui, 'DejaVu Sans', sans-serif";
  const probe = canvas.getContext("2d");
  probe.font = font;
  const ox = labelWidth(probe, rowLabels) + 8, oy = labelWidth(probe, colLabels) + 8;
  const width = ox + cols * cell + 2, height = oy + rows * cell + 2;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, width, height);
  let largest = 0, sum = 0;
  const values = [];
  for (const row of matrix) for (const v of row) { largest = Math.max(largest, v); sum += v; values.push(v.toFixed(4)); }
  const scaleMax = stretch && largest > 0 ? largest : 1;
  for (let i = 0; i < rows; ++i) {
    for (let j = 0; j < cols; ++j) {
      const [r, g, b] = colourOf(matrix[i][j] / scaleMax);
      ctx.fillStyle = `rgb(${r},${g},${b})`;
      ctx.fillRect(ox + j * cell, oy + i * cell, cell, cell);
    }
  }
  ctx.fillStyle = "#1a1a1a";
  ctx.font = font;
  ctx.textBaseline = "middle";
  ctx.textAlign = "right";
  rowLabels.forEach((s, i) => ctx.fillText(s, ox - 4, oy + (i + 0.5) * cell));
  colLabels.forEach((s, j) => {
    ctx.save();
    ctx.translate(ox + (j + 0.5) * cell, oy - 4);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "left";
    ctx.fillText(s, 0, 0);
    ctx.restore();
  });
  Object.assign(canvas.dataset, {
    rows: String(rows), cols: String(cols), values: values.join(" "), sum: sum.toFixed(4),
    scaleMax: String(scaleMax), originX: String(ox), originY: String(oy), cell: String(cell), drawn: "1",
  });
  canvas.rowLabels = rowLabels;
  canvas.colLabels = colLabels;
  canvas.matrix = matrix;
  let best = [0, 0];
  matrix.forEach((row, i) => row.forEach((v, j) => { if (v > matrix[best[0]][best[1]]) best = [i, j]; }));
  const described = rows && cols ? `; strongest: ${rowLabels[best[0]]} to ${colLabels[best[1]]}, ${matrix[best[0]][best[1]].toFixed(3)}` : "";
  canvas.setAttribute("aria-label", `${canvas.dataset.title}: ${rows} rows by ${cols} columns${described}. Arrow keys read the cells.`);
}

// A layer whose rows give more than this to keys not drawn (the padding DLStudio's layout
// attends to, its decoder's zeroed later positions: /attention's "rest") gets a last column
// "(rest)" with that weight in every head, so that each row sums to 1 as the model's does --
// as the PNG maps of checkpoint_eval --attention-maps draw it.
const SHOWN_REST = 0.005;
const REST_NOTE = " The last column, (rest): the weight on keys not drawn -- the padding, which DLStudio's layout " +
  "attends to, and in its decoder the zeroed positions after the row's own.";

// heads [H][rows][cols] and rests [H][rows] -> the heads to draw and whether "(rest)" is one.
function withRest(heads, rests) {
  if (!rests || !rests.some((head) => head.some((v) => v > SHOWN_REST))) return [heads, false];
  return [heads.map((matrix, h) => matrix.map((row, i) => [...row, rests[h][i]])), true];
}

function drawAll() {
  const data = state.attention;
  if (!data) return;
  const cell = parseInt($("cell-size").value, 10);
  const stretch = $("stretch").checked;
  const maps = $("maps");
  hideReadout();
  maps.replaceChildren();
  for (const kind of KINDS) {
    const layers = data[kind.key] || [];
    if (layers.length === 0) continue;  // an RNN's model: cross-attention only
    const section = document.createElement("section");
    section.className = "kind-section";
    section.dataset.kind = kind.key;
    const h = document.createElement("h3");
    h.textContent = kind.title;
    const axes = document.createElement("p");
    axes.className = "axes";
    axes.textContent = kind.axes;
    const grid = document.createElement("div");
    grid.className = "map-grid";
    section.append(h, axes, grid);
    layers.forEach((layerHeads, layer) => {
      const [heads, rest] = withRest(layerHeads, ((data.rest || {})[kind.key] || [])[layer]);
      const cols = (data[kind.cols] || []).slice(0, (layerHeads[0]?.[0] || []).length);
      const colTokens = rest ? [...cols, "(rest)"] : data[kind.cols] || [];
      heads.forEach((matrix, head) => {
        const figure = document.createElement("figure");
        figure.className = "map";
        figure.dataset.layer = layer;
        figure.dataset.head = head;
        const caption = document.createElement("figcaption");
        caption.textContent = `Layer ${layer + 1} · head ${head + 1}`;
        const canvas = document.createElement("canvas");
        canvas.className = "heatmap";
        canvas.tabIndex = 0;
        canvas.setAttribute("role", "img");
        Object.assign(canvas.dataset, { kind: kind.key, layer: String(layer), head: String(head),
          title: `${kind.title}, layer ${layer + 1}, head ${head + 1}` });
        if (rest) {
          canvas.dataset.rest = "1";
          if (!axes.textContent.endsWith(REST_NOTE)) axes.textContent += REST_NOTE;
        }
        drawMap(canvas, matrix, data[kind.rows] || [], colTokens, cell, stretch);
        attachHover(canvas);
        figure.append(caption, canvas);
        grid.append(figure);
      });
    });
    maps.append(section);
  }
  applyFilters();
  drawLegend(stretch);
}

function applyFilters() {
  const kind = $("filter-kind").value, layer = $("filter-layer").value, head = $("filter-head").value;
  hideReadout();
  document.querySelectorAll("#maps .kind-section").forEach((s) => { s.hidden = kind !== "all" && s.dataset.kind !== kind; });
  document.querySelectorAll("#maps figure.map").forEach((f) => {
    f.hidden = (layer !== "all" && f.dataset.layer !== layer) || (head !== "all" && f.dataset.head !== head);
  });
  recordPositions();
}

// Where each visible canvas lies on the page (CSS pixels), for tests that read a screenshot.
function recordPositions() {
  document.querySelectorAll("canvas.heatmap").forEach((c) => {
    const r = c.getBoundingClientRect();
    c.dataset.x = String(Math.round(r.left + window.scrollX));
    c.dataset.y = String(Math.round(r.top + window.scrollY));
    c.dataset.visible = r.width > 0 ? "1" : "0";
  });
}

// A colour scale on `canvas`: the bar, ticks at 0, 1/4, ..., 1 labelled labelOf(t), and the
// stops in data-stops. The translation page's legend and the ViT page's share it.
function drawScale(canvas, labelOf) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, bar = 16, x0 = 10, x1 = w - 10;
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, w, canvas.height);
  for (let x = x0; x < x1; ++x) {
    const [r, g, b] = colourOf((x - x0) / (x1 - x0 - 1));
    ctx.fillStyle = `rgb(${r},${g},${b})`;
    ctx.fillRect(x, 2, 1, bar);
  }
  ctx.fillStyle = "#1a1a1a";
  ctx.font = "12px system-ui, 'DejaVu Sans', sans-serif";
  ctx.textBaseline = "top";
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    const x = x0 + t * (x1 - x0 - 1);
    ctx.fillRect(Math.round(x), 2 + bar, 1, 4);
    ctx.textAlign = t === 0 ? "left" : t === 1 ? "right" : "center";
    ctx.fillText(labelOf(t), x, 8 + bar);
  }
  canvas.dataset.stops = STOPS.join(" ");
}

function drawLegend(stretch) {
  drawScale($("legend"), (t) => (stretch ? (t === 1 ? "max" : `${t * 100}% of max`) : t.toFixed(2)));
  $("legend-caption").textContent = stretch
    ? "Colour scale: attention weight relative to each map's largest (dark purple 0, yellow the largest)."
    : "Colour scale: attention weight from 0 (dark purple) to 1 (yellow); each row of a map sums to 1.";
}

// Hover, or the arrow keys on a focused map, read a cell: its row token, column token and
// weight (readout.js: the outline on the cell, the tooltip beside it inside the map's figure).
function attachHover(canvas) {
  const d = canvas.dataset;
  attachReadout(canvas, {
    rows: () => Number(d.rows),
    cols: () => Number(d.cols),
    cellAt: (x, y) => {
      const cell = Number(d.cell);
      const j = Math.floor((x - Number(d.originX)) / cell), i = Math.floor((y - Number(d.originY)) / cell);
      return i >= 0 && j >= 0 && i < Number(d.rows) && j < Number(d.cols) ? [i, j] : null;
    },
    cellRect: (i, j) => ({ left: Number(d.originX) + j * Number(d.cell), top: Number(d.originY) + i * Number(d.cell),
                           width: Number(d.cell), height: Number(d.cell) }),
    text: (i, j) => `${canvas.rowLabels[i]} → ${canvas.colLabels[j]}: ${canvas.matrix[i][j].toFixed(4)}`,
  });
}

// ---- Start ----------------------------------------------------------------------------------

function start() {
  $("translate-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!$("translate-button").disabled) translate();  // not a second time while one runs
  });
  // Enter starts a new line of the text box (one sentence a line); Ctrl+Enter, or Cmd+Enter
  // on a Mac, translates from anywhere in the form.
  $("translate-form").addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
    event.preventDefault();
    $("translate-form").requestSubmit();
  });
  $("beam-width").addEventListener("input", () => { $("decoding-beam").checked = true; });
  for (const id of ["filter-kind", "filter-layer", "filter-head"]) $(id).addEventListener("change", applyFilters);
  $("cell-size").addEventListener("input", drawAll);
  $("stretch").addEventListener("change", drawAll);
  window.addEventListener("resize", () => {
    recordPositions();
    replaceReadout();
  });

  const params = new URLSearchParams(window.location.search);
  const sentence = params.get("sentence");
  const beam = parseInt(params.get("beam") || "1", 10);
  if (beam > 1) {
    $("decoding-beam").checked = true;
    $("beam-width").value = String(beam);
  }
  if (params.get("replace_unk") === "1") $("replace-unk").checked = true;
  if (sentence) $("sentences").value = sentence;
  // "done" comes after the model's description is in (which says whether it is a ViT).
  loadModel().then(() => {
    if (document.body.dataset.kind === "vit") return startVit(params);  // vit.js
    return sentence ? translate() : setState("idle");
  });
}

start();
