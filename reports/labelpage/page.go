package labelpage

// pageHTML is the whole labeling page: no external request, no library;
// the token is the page's own path, so the API is addressed relatively.
const pageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>apeval label</title>
<link rel="icon" href="data:,">
<style>
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1d1f;background:#f6f6f4}
header{display:flex;gap:1rem;align-items:baseline;flex-wrap:wrap;padding:.6rem 1rem;background:#23303d;color:#fff}
header h1{font-size:1rem;margin:0}
header .mode{margin-left:auto}
main{display:grid;grid-template-columns:minmax(0,1fr) 22rem;gap:1rem;padding:1rem;max-width:100%}
@media (max-width:900px){main{grid-template-columns:minmax(0,1fr)}}
section,aside{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1rem;min-width:0}
h2{font-size:1rem;margin:.2rem 0 .6rem}
h3{font-size:.9rem;margin:1rem 0 .3rem;color:#555;text-transform:uppercase;letter-spacing:.03em}
.cond{font-size:1.1rem;background:#fff8e1;border-left:4px solid #e0a800;padding:.5rem .8rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;background:#f3f3f3;padding:.5rem;border-radius:4px;margin:.2rem 0;max-width:100%}
.msg{border-left:3px solid #bbb;padding-left:.5rem;margin:.3rem 0}
.msg b{font-size:.8rem;color:#555}
.keys{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:1rem}
button{font:inherit;padding:.4rem .8rem;border:1px solid #888;border-radius:4px;background:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #1565c0;outline-offset:2px}
kbd{font:12px ui-monospace,monospace;border:1px solid #aaa;border-bottom-width:2px;border-radius:3px;padding:0 .3rem;background:#fafafa}
.label{font-weight:600}
.label.match{color:#b00020}.label.no_match{color:#1b5e20}.label.skip{color:#666}
.status{font-weight:600}
.PASS{color:#1b5e20}.FAIL{color:#b00020}.INCONCLUSIVE{color:#8a5a00}
.panel-row{border-top:1px solid #eee;padding:.4rem 0;overflow-wrap:anywhere}
.interval{color:#57606a;font-size:.85em}
.err{color:#b00020;font-weight:600}
.review{background:#e8f0fe;padding:.5rem;border-radius:4px;margin-top:1rem}
.sr{position:absolute;left:-10000px}
mark.masked{background:#ffe0b2;color:#5d2e00;border-radius:3px;padding:0 .15rem}
.masknote{background:#fff3e0;border-left:4px solid #e65100;padding:.4rem .7rem}
</style>
</head>
<body>
<header><h1>apeval label</h1><span id="who"></span><span id="progress" aria-live="polite"></span><span class="mode" id="mode"></span></header>
<main>
<section id="item" aria-live="polite"><p>Loading…</p></section>
<aside><h2>What the labels decide</h2><div id="panel"></div>
<h3>Keys</h3>
<p><kbd>m</kbd> match · <kbd>n</kbd> no_match · <kbd>s</kbd> skip · <kbd>u</kbd> undo · <kbd>←</kbd> <kbd>→</kbd> move · <kbd>r</kbd> review mode (shows the judges' answers)</p>
</aside>
</main>
<script>
"use strict";
let st = null, review = false, chain = Promise.resolve();
const $ = id => document.getElementById(id);
function esc(s) { return String(s).replace(/[&<>"']/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;","\"":"&quot;","'":"&#39;"}[c])); }
function q(pos) { return "?pos=" + pos + (review ? "&review=1" : ""); }
async function call(method, url, body) {
  try {
    const r = await fetch(url, {method, headers: body ? {"Content-Type": "application/json"} : {}, body: body ? JSON.stringify(body) : undefined});
    if (!r.ok) { throw new Error(await r.text()); }
    st = await r.json();
    render();
  } catch (e) {
    $("item").insertAdjacentHTML("afterbegin", "<p class=err>" + esc(e.message) + "</p>");
  }
}
function load(pos) { return call("GET", "api/state" + q(pos)); }
function fmt(x) { return x.toFixed(3); }
// The tokens masking left where a secret or personal data was (the judge
// saw these, not what the agent wrote): highlighted, and counted above the
// call, so a labeler knows what evidence the judge never got.
const maskRe = /\[(?:MASKED|CARD|CVV|SSN|IBAN|PHONE|EMAIL:[^\]\s<]+)\]/g;
let masks = 0;
function shown(s) {
  return esc(s).replace(maskRe, (m) => { masks++; return "<mark class=masked title='masked by apeval: the judge saw this token, not the text'>" + m + "</mark>"; });
}
function render() {
  masks = 0;
  $("who").textContent = "labeler " + st.labeler;
  $("progress").textContent = st.done + " of " + st.total + " labeled";
  $("mode").textContent = review ? "review mode (judges shown) — r to label blind" : "labeling (judges hidden)";
  const it = st.item;
  let h = st.error ? "<p class=err>" + esc(st.error) + "</p>" : "";
  if (!it) {
    h += st.done === st.total ? "<h2>Every item is labeled.</h2>" : "<h2>End of the queue: " + (st.total - st.done) + " items still unlabeled.</h2>";
    h += "<p>Press <kbd>←</kbd> to go back, <kbd>r</kbd> to review.</p>";
  } else {
    const inp = it.input, cur = inp.current, ctx = inp.context, rule = inp.rules[0];
    h += "<h2>Item " + (it.pos + 1) + " of " + st.total + " · rule " + esc(it.rule_id) + (it.rule_name ? " (" + esc(it.rule_name) + ")" : "") + (it.overlap ? " · overlap" : "") + "</h2>";
    h += "<p>Does the rule's condition apply to this tool call?</p><div class=cond id=cond>" + esc(rule.condition) + "</div>";
    h += "<!--masks-->";
    h += "<h3>Tool call</h3><pre id=tool>" + esc(cur.tool.name) + " (" + esc(cur.tool.category) + ", " + esc(cur.hook_point) + ")\n" + shown(cur.tool.arguments_summary) + "</pre>";
    h += "<pre>" + shown(JSON.stringify(cur.tool.arguments, null, 2)) + "</pre>";
    if (cur.piece || cur.movement) { h += "<p>piece " + esc(cur.piece) + " · movement " + esc(cur.movement) + "</p>"; }
    h += "<h3>Context the judge saw</h3>";
    if (ctx.latest_user_message) { h += "<div class=msg><b>latest user message</b><pre>" + shown(ctx.latest_user_message) + "</pre></div>"; }
    for (const m of ctx.recent_messages || []) { h += "<div class=msg><b>" + esc(m.role) + "</b><pre>" + shown(m.content) + "</pre></div>"; }
    h = h.replace("<!--masks-->", masks ? "<p class=masknote id=masks>" + masks + " masked span" + (masks > 1 ? "s" : "") + " (highlighted): the judge saw the token, not what the agent wrote.</p>" : "");
    if (ctx.approval_state) { h += "<p>approval state: " + esc(ctx.approval_state) + "</p>"; }
    h += "<p>Your label: <span id=current class='label " + esc(it.label) + "'>" + (it.label ? esc(it.label) : "none yet") + "</span></p>";
    if (review) {
      h += "<div class=review id=judges><b>Judges</b> (stratum " + esc(it.stratum) + ")<ul>";
      for (const j of it.judges || []) { h += "<li>" + esc(j.judge) + ": " + esc(j.result || "not in scope") + "</li>"; }
      h += "</ul></div>";
    }
    h += "<div class=keys><button data-k=m><kbd>m</kbd> match</button><button data-k=n><kbd>n</kbd> no_match</button><button data-k=s><kbd>s</kbd> skip</button><button data-k=u><kbd>u</kbd> undo</button></div>";
  }
  $("item").innerHTML = h;
  for (const b of document.querySelectorAll("button[data-k]")) { b.addEventListener("click", () => key(b.dataset.k)); }
  let p = "";
  for (const r of st.panel || []) {
    p += "<div class=panel-row><b>" + esc(r.rule_id) + "</b> · " + esc(r.judge) + "<br>";
    p += r.sampled + " sampled + " + r.census + " census labels<br>";
    if (r.precision) { p += "precision " + fmt(r.precision.Est) + " [" + fmt(r.precision.Lo) + ", " + fmt(r.precision.Hi) + "]<br>"; }
    if (r.recall) { p += "recall " + fmt(r.recall.Est) + " [" + fmt(r.recall.Lo) + ", " + fmt(r.recall.Hi) + "]<br>"; }
    if (r.interval) { p += "<span class=interval>" + esc(r.interval) + "</span><br>"; }
    for (const c of r.criteria || []) {
      p += "<span class='status " + esc(c.status) + "' title='" + esc(c.reason) + "'>" + esc(c.name) + " " + esc(c.status) + "</span>";
      if (c.hint) { p += " — " + esc(c.hint); }
      p += "<br>";
    }
    const q = r.sequential;
    if (q) {
      // Anytime-valid: the standing may be looked at after every label.
      let t;
      if (q.status === "N/A") { t = "sequential: N/A"; }
      else if (q.decided_after) { t = "sequential: " + esc(q.name) + " " + esc(q.status) + ", decided after " + q.decided_after + " labels"; }
      else if (q.more) { t = "sequential: open, about " + q.more + " more labels"; }
      else if (q.queued && q.labels >= q.queued) { t = "sequential: open after all " + q.queued + " queued labels"; }
      else { t = "sequential: open, the rest of the queue may not settle it"; }
      p += "<span class='seq " + esc(q.status) + "' title='" + esc(q.reason) + "'>" + t + "</span><br>";
    }
    p += "</div>";
  }
  $("panel").innerHTML = p || "<p>No label yet.</p>";
}
const keyLabel = {m: "match", n: "no_match", s: "skip"};
// Keys are handled one after another, in the order pressed: a fast typist
// loses none, and each label is on disk before the next key moves on.
function key(k) { chain = chain.then(() => doKey(k)); }
function doKey(k) {
  if (!st) { return; }
  const pos = st.item ? st.item.pos : st.total;
  if (keyLabel[k] && st.item) { return call("POST", "api/label", {pos, label: keyLabel[k], review}); }
  if (k === "u") { return call("POST", "api/undo" + (review ? "?review=1" : "")); }
  if (k === "r") { review = !review; return load(pos); }
  if (k === "ArrowRight" && pos < st.total) { return load(pos + 1); }
  if (k === "ArrowLeft" && pos > 0) { return load(pos - 1); }
}
document.addEventListener("keydown", e => {
  if (e.ctrlKey || e.metaKey || e.altKey) { return; }
  const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (["m", "n", "s", "u", "r", "ArrowLeft", "ArrowRight"].includes(k)) { e.preventDefault(); key(k); }
});
chain = load(-1);
</script>
</body>
</html>
`
