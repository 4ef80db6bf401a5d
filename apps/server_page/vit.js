// The ViT part of translate_server's page, shown when GET /model says "kind": "vit". The
// image (a chosen file, or /?image=FILE served beside the page) is drawn at the model's
// size -- grey for a one-channel model, as its training images were -- sent as a PNG to
// POST /classify, and the answer shown: the top classes, and the class token's attention
// over the patches of every layer and head, and the attention rollout, as heat maps laid
// over the image, with their colour scale; the pointer or the arrow keys read a patch
// (readout.js). A failed classification clears the previous answer and says why. The sample
// button classifies sample.png (data/make_sample_image.py). Uses page.js's helpers ($,
// setState, colourOf, drawScale) and readout.js's; loaded before page.js.
"use strict";

const vit = { model: null, answer: null, image: null };

function vitStatus(text, isError) {
  const status = $("vit-status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

// The page becomes the classifier's: the translation panels are hidden.
function showVit(model) {
  vit.model = model;
  document.body.dataset.kind = "vit";
  document.title = "dlstudio-cpp image classifier";
  $("page-title").textContent = "dlstudio-cpp image classifier";
  $("translate-panel").hidden = true;
  $("vit-panel").hidden = false;
  $("vit-size").textContent = `${model.image_size}×${model.image_size}${model.channels === 1 ? ", grey" : ""}`;
  $("endpoints").textContent = "POST /classify, GET /model, GET /health";
  $("keyboard-hint").textContent = "Keyboard: focus an attention map and use the arrow keys to read its patches.";
}

// An image (Blob) as a loaded <img>. Loaded as a resource, not decoded by createImageBitmap: a
// resource load is work the browser waits for, where headless Chromium's virtual time (the
// page's tests) ran past createImageBitmap's and toBlob's off-thread work and found the page
// still "classifying".
function loadedImage(blob) {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(blob);
    const image = new Image();
    image.onload = () => { URL.revokeObjectURL(url); resolve(image); };
    image.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error(`${blob.name || "the file"} is not an image this browser can read`));
    };
    image.src = url;
  });
}

// A canvas as a PNG Blob, encoded at once (toDataURL) rather than on another thread (toBlob).
function pngOf(canvas) {
  const base64 = canvas.toDataURL("image/png").split(",")[1];
  return new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: "image/png" });
}

// An image (Blob) drawn on a canvas of the model's size, black behind any transparency.
async function imageAtModelSize(blob) {
  const image = await loadedImage(blob);
  const side = vit.model.image_size;
  const canvas = document.createElement("canvas");
  canvas.width = side;
  canvas.height = side;
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#000";
  ctx.fillRect(0, 0, side, side);
  ctx.drawImage(image, 0, 0, side, side);
  if (vit.model.channels === 1) {  // luma, so that r = g = b (the server refuses colour)
    const data = ctx.getImageData(0, 0, side, side);
    const p = data.data;
    for (let i = 0; i < p.length; i += 4) {
      const y = Math.round(0.299 * p[i] + 0.587 * p[i + 1] + 0.114 * p[i + 2]);
      p[i] = p[i + 1] = p[i + 2] = y;
      p[i + 3] = 255;
    }
    ctx.putImageData(data, 0, 0);
  }
  return canvas;
}

async function classify(blob) {
  setState("classifying");
  vitStatus("Classifying…");
  try {
    vit.image = await imageAtModelSize(blob);
    const response = await fetch("/classify?top=5", { method: "POST", headers: { "Content-Type": "image/png" }, body: pngOf(vit.image) });
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new Error(data && data.error ? data.error : `${response.status} ${response.statusText}`);
    vit.answer = data;
    showClasses(data);
    drawVitMaps();
    vitStatus("");
    setState("done");
  } catch (e) {
    clearVitResult();  // not the previous image's answer under this one's error
    vitStatus(`Could not classify the image: ${e.message}`, true);
    setState("error");
  }
}

function clearVitResult() {
  hideReadout();
  vit.answer = null;
  $("vit-result").hidden = true;
  $("vit-class").textContent = "";
  $("vit-classes").replaceChildren();
  $("vit-timings").textContent = "";
  $("vit-maps").replaceChildren();
}

function showClasses(data) {
  $("vit-result").hidden = false;
  $("vit-class").textContent = data.class;
  const list = $("vit-classes");
  list.replaceChildren();
  for (const entry of data.top) {
    const li = document.createElement("li");
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.style.width = `${Math.round(entry.probability * 100)}%`;
    li.append(`${entry.class}: ${(entry.probability * 100).toFixed(1)} %`, bar);
    list.append(li);
  }
  const t = data.timings;
  $("vit-timings").textContent =
    `decoding ${t.decode_ms.toFixed(1)} ms · model ${t.model_ms.toFixed(1)} ms · in all ${t.total_ms.toFixed(1)} ms`;
  const input = $("vit-input");
  input.width = vit.image.width * 4;
  input.height = vit.image.height * 4;
  const ctx = input.getContext("2d");
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(vit.image, 0, 0, input.width, input.height);
}

// One heat map: the image, and over it each patch in the colour of its weight (scaled to
// the map's largest: a class token spreads ~1/P over P patches).
function vitMap(values, title, attrs) {
  const grid = vit.answer.grid;
  const scale = Math.max(2, Math.round(168 / vit.model.image_size));
  const canvas = document.createElement("canvas");
  canvas.className = "vit-map";
  canvas.width = canvas.height = vit.model.image_size * scale;
  canvas.tabIndex = 0;
  canvas.setAttribute("role", "img");
  const max = Math.max(...values) || 1;
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(vit.image, 0, 0, canvas.width, canvas.height);
  const cell = canvas.width / grid;
  ctx.globalAlpha = 0.6;
  values.forEach((v, p) => {
    ctx.fillStyle = `rgb(${colourOf(v / max).join(",")})`;
    ctx.fillRect((p % grid) * cell, Math.floor(p / grid) * cell, cell, cell);
  });
  Object.assign(canvas.dataset, attrs, {
    title, values: values.join(" "), grid: String(grid), scaleMax: String(max), drawn: "1" });
  canvas.setAttribute("aria-label", `${title}: attention over ${grid}×${grid} patches. Arrow keys read the patches.`);
  // The canvas is drawn at its CSS size: a patch is `cell` CSS pixels wide.
  attachReadout(canvas, {
    rows: () => grid,
    cols: () => grid,
    cellAt: (x, y) => {
      const c = Math.floor(x / cell), r = Math.floor(y / cell);
      return r >= 0 && c >= 0 && r < grid && c < grid ? [r, c] : null;
    },
    cellRect: (r, c) => ({ left: c * cell, top: r * cell, width: cell, height: cell }),
    text: (r, c) => `${title}, patch row ${r + 1} column ${c + 1}: ${values[r * grid + c].toFixed(4)}`,
  });
  const figure = document.createElement("figure");
  figure.className = "map";
  const caption = document.createElement("figcaption");
  caption.textContent = title;
  figure.append(caption, canvas);
  return figure;
}

function vitSection(heading, figures) {
  const section = document.createElement("div");
  section.className = "kind-section";
  const h3 = document.createElement("h3");
  h3.textContent = heading;
  const grid = document.createElement("div");
  grid.className = "map-grid";
  grid.append(...figures);
  section.append(h3, grid);
  return section;
}

function drawVitMaps() {
  const maps = $("vit-maps");
  hideReadout();
  maps.replaceChildren();
  drawScale($("vit-legend"), (t) => (t === 0 ? "0" : t === 1 ? "largest" : `${t * 100}%`));
  $("vit-legend-caption").textContent = "Colour scale: a patch's weight relative to its map's largest, from 0 " +
    "(dark purple) to the largest (yellow), laid over the image at 60 % opacity.";
  const answer = vit.answer;
  maps.append(vitSection("Attention rollout (every layer, heads averaged, with the residual path)",
    [vitMap(answer.rollout, "rollout", { kind: "rollout" })]));
  answer.attention.forEach((heads, layer) => {
    maps.append(vitSection(`Layer ${layer + 1}`, heads.map((values, head) =>
      vitMap(values, `layer ${layer + 1} head ${head + 1}`, { kind: "class_token", layer: String(layer), head: String(head) }))));
  });
}

// An image served beside the page (sample.png, /?image=FILE), classified.
function classifyServed(image) {
  return fetch(image)
    .then((response) => {
      if (!response.ok) throw new Error(`${image}: ${response.status} ${response.statusText}`);
      return response.blob();
    })
    .then(classify)
    .catch((e) => {
      clearVitResult();
      vitStatus(`Could not load the image: ${e.message}`, true);
      setState("error");
    });
}

// After GET /model: the file picker, the sample button, and /?image=FILE at once.
function startVit(params) {
  $("vit-file").addEventListener("change", () => {
    const file = $("vit-file").files[0];
    if (file) classify(file);
  });
  $("vit-sample").addEventListener("click", () => classifyServed($("vit-sample").dataset.src));
  const image = params.get("image");
  if (!image) return setState("idle");
  return classifyServed(image);
}
