// The browser test's hand on translate_server's page (tests/apps/server_page_test.cpp adds it
// to a copy of the page, after the page's own scripts). /?probe=A,B,... runs those scenarios
// in order once the page has settled (<body data-state> done, idle or error), as a user's
// pointer, keys and clicks would, and writes what it measured as JSON into
// <pre id="probe-result">, then sets <body data-probe="done">. Rectangles are in the
// viewport's CSS pixels ({left, top, right, bottom, visible}); a missing element is null.
"use strict";

(() => {
  const names = (new URLSearchParams(window.location.search).get("probe") || "").split(",").filter(Boolean);
  if (names.length === 0) return;
  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const state = () => document.body.dataset.state;

  async function settled() {
    for (let i = 0; i < 1200 && !["done", "idle", "error"].includes(state()); ++i) await sleep(50);
    return state();
  }
  // After an action that starts work: until the page has left `from` and settled again.
  async function finished() {
    for (let i = 0; i < 40 && ["done", "idle", "error"].includes(state()); ++i) await sleep(25);
    return settled();
  }
  function box(element) {
    if (!element) return null;
    const r = element.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom,
             visible: !element.hidden && r.width > 0 && getComputedStyle(element).display !== "none" };
  }
  // The readout's state: the tooltip, its text, the outline, and which cell the map highlights.
  function readout(canvas) {
    const tip = $("tooltip");
    return { tooltip: box(tip), text: tip ? tip.textContent : null, outline: box($("cell-outline")),
             highlight: canvas.dataset.highlight || null, figure: box(canvas.closest("figure")), canvas: box(canvas) };
  }
  // A translation heat map's cell (i, j): its rectangle and centre, from what the page says it drew.
  function heatmapCell(canvas, i, j) {
    const d = canvas.dataset, cell = Number(d.cell), r = canvas.getBoundingClientRect();
    const left = r.left + Number(d.originX) + j * cell, top = r.top + Number(d.originY) + i * cell;
    return { left, top, right: left + cell, bottom: top + cell, x: left + cell / 2, y: top + cell / 2 };
  }
  // A ViT map's patch (i, j).
  function vitCell(canvas, i, j) {
    const grid = Number(canvas.dataset.grid), r = canvas.getBoundingClientRect();
    const w = r.width / grid, h = r.height / grid, left = r.left + j * w, top = r.top + i * h;
    return { left, top, right: left + w, bottom: top + h, x: left + w / 2, y: top + h / 2 };
  }
  function pointAt(canvas, cell) {
    canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: cell.x, clientY: cell.y, bubbles: true }));
    return { pointer: { x: cell.x, y: cell.y }, cell, ...readout(canvas) };
  }
  function press(target, key, modifiers = {}) {
    const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...modifiers });
    target.dispatchEvent(event);
    return event.defaultPrevented;
  }
  // Arrow keys on a focused map: where the highlight and the tooltip go after each key.
  function keys(canvas, cellOf, sequence) {
    canvas.focus();
    return sequence.map((key) => {
      const prevented = press(canvas, key);
      const seen = readout(canvas);
      const [i, j] = (seen.highlight || "-1,-1").split(",").map(Number);
      return { key, prevented, cell: i >= 0 ? cellOf(canvas, i, j) : null, ...seen };
    });
  }
  // Types `sentence` and submits with Ctrl+Enter or Cmd+Enter: what the page then shows.
  async function submitWith(modifiers, sentence) {
    $("results").replaceChildren();
    $("sentences").value = sentence;
    $("sentences").focus();
    const prevented = press($("sentences"), "Enter", modifiers);
    const settledAs = await finished();
    const source = document.querySelector("#result-0 .source-text");
    const translation = $("translation-0");
    return { prevented, state: settledAs, source: source ? source.textContent : null,
             translation: translation ? translation.textContent : null };
  }

  const scenarios = {
    // Every translation heat map: the pointer over its first, middle and last cell.
    hover() {
      const out = [];
      for (const canvas of document.querySelectorAll("canvas.heatmap")) {
        const d = canvas.dataset, rows = Number(d.rows), cols = Number(d.cols);
        for (const [i, j] of [[0, 0], [rows >> 1, cols >> 1], [rows - 1, cols - 1]]) {
          out.push({ map: `${d.kind}:${d.layer}:${d.head}`, i, j, ...pointAt(canvas, heatmapCell(canvas, i, j)) });
        }
      }
      return out;
    },
    // The second head's cross-attention map, focused: right, right, down, then left x5 (past the edge).
    keys() {
      const canvas = document.querySelector('canvas.heatmap[data-kind="cross"][data-layer="0"][data-head="1"]');
      const sequence = ["ArrowRight", "ArrowRight", "ArrowDown", "ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowLeft"];
      return keys(canvas, heatmapCell, sequence);
    },
    // Ctrl+Enter, then Cmd+Enter (metaKey), each with a sentence of its own.
    async submit() {
      return { ctrl: await submitWith({ ctrlKey: true }, "I do not drink tea."),
               meta: await submitWith({ metaKey: true }, "i am hungry") };
    },
    // A sentence longer than the model was trained on, translated with the button: the note
    // that says how, and how the sentence and its translation are laid out.
    async long() {
      $("sentences").value = Array.from({ length: 60 }, (_, i) => ["the", "cat", "eats", "bread"][i % 4]).join(" ");
      $("translate-button").click();
      const settledAs = await finished();
      const item = $("result-0"), translation = $("translation-0");
      const source = item ? item.querySelector(".source-text") : null, score = item ? item.querySelector(".score") : null;
      const lineHeight = source ? parseFloat(getComputedStyle(source).lineHeight) || 20 : 0;
      return { state: settledAs, status: item ? item.dataset.status : null, translation: box(translation),
               scoreText: score ? score.textContent : null, score: box(score), source: box(source), item: box(item),
               lineHeight };
    },
    // The ViT page: the legend, the sample image, the arrow keys on the first head's map, a hovered patch.
    vit() {
      const canvas = document.querySelector('canvas.vit-map[data-layer="0"][data-head="0"]');
      const grid = Number(canvas.dataset.grid);
      const sample = $("vit-sample"), image = sample ? sample.querySelector("img") : null;
      return {
        legend: box($("vit-legend")), stops: $("vit-legend") ? $("vit-legend").dataset.stops || "" : "",
        caption: $("vit-legend-caption") ? $("vit-legend-caption").textContent : "",
        sample: box(sample), sampleWidth: image ? image.naturalWidth : 0,
        keys: keys(canvas, vitCell, ["ArrowRight", "ArrowDown", "ArrowDown"]),  // before the pointer moves
        hover: pointAt(canvas, vitCell(canvas, grid - 1, grid - 1)),
        values: canvas.dataset.values, grid,
      };
    },
    // A file that is not an image, chosen with the file picker after a classified image.
    async upload_fails() {
      const before = { result: box($("vit-result")), class: $("vit-class").textContent };
      const files = new DataTransfer();
      files.items.add(new File(["not an image"], "notes.png", { type: "image/png" }));
      $("vit-file").files = files.files;
      $("vit-file").dispatchEvent(new Event("change", { bubbles: true }));
      const settledAs = await finished();
      return { before, state: settledAs, result: box($("vit-result")), class: $("vit-class").textContent,
               maps: document.querySelectorAll("#vit-maps canvas").length, status: $("vit-status").textContent,
               statusIsError: $("vit-status").classList.contains("error") };
    },
    // The sample button, clicked: the class the page then shows.
    async sample() {
      $("vit-sample").click();
      const settledAs = await finished();
      return { state: settledAs, class: $("vit-class").textContent, result: box($("vit-result")) };
    },
  };

  (async () => {
    const result = { settled: await settled() };
    for (const name of names) {
      try {
        result[name] = scenarios[name] ? await scenarios[name]() : { error: `no scenario ${name}` };
      } catch (e) {
        result[name] = { error: String((e && e.stack) || e) };
      }
    }
    const pre = document.createElement("pre");
    pre.id = "probe-result";
    pre.textContent = JSON.stringify(result);
    document.body.append(pre);
    document.body.dataset.probe = "done";
  })();
})();
