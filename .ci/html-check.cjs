// Loads report.html from file:// in headless Chromium (through playwright-core,
// driving the system's chromium), fails on any console error or warning, page
// error, failed request or request leaving the page's own file, then writes a
// full-page screenshot and the boxes of the chart elements (JSON, page pixels)
// for chartpixels.go. Fails too on a horizontal scrollbar at the 1280 px
// viewport, of the page or of a visible box inside it. Called by html-check.sh:
//   node html-check.cjs NODE_DIR CHROMIUM REPORT_HTML OUT_PNG OUT_JSON
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const [nodeDir, chromiumPath, report, pngPath, boxesPath] = process.argv.slice(2);
const { chromium } = require(path.join(nodeDir, 'node_modules', 'playwright-core'));

const LAUNCH_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function main() {
  const problems = [];
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'apeval-chromium-'));
  let ctx;
  try {
    // A persistent context on a fresh directory: no state from any earlier run.
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: LAUNCH_ARGS,
      viewport: { width: 1280, height: 900 },
      deviceScaleFactor: 1,
      timeout: 60000,
    });
    // The page must be self-contained: anything but its own file and inline
    // data is a network request, blocked and reported.
    await ctx.route('**/*', (route) => {
      const url = route.request().url();
      if (/^(file|data|blob|about):/.test(url)) {
        return route.continue();
      }
      problems.push(`network request: ${url}`);
      return route.abort('blockedbyclient');
    });
    const page = ctx.pages()[0] || (await ctx.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') {
        const loc = m.location();
        problems.push(`console ${m.type()}: ${m.text()}${loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
      }
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}: ${(r.failure() || {}).errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    });

    const url = 'file://' + path.resolve(report);
    await page.goto(url, { waitUntil: 'load', timeout: 30000 });
    // Let late errors (scripts run after load, fonts) surface.
    await page.waitForTimeout(500);

    // A decision page must fit a 1280 px laptop screen: no horizontal
    // scrollbar on the page, and no visible box that scrolls sideways.
    const wide = await page.evaluate(() => {
      const out = [];
      const doc = document.documentElement;
      if (doc.scrollWidth > doc.clientWidth) {
        out.push(`horizontal scrollbar at ${window.innerWidth} px: the page is ${doc.scrollWidth} px wide`);
      }
      for (const e of document.querySelectorAll('body *')) {
        const st = getComputedStyle(e);
        if (!/(auto|scroll)/.test(st.overflowX) || e.clientWidth === 0) continue;
        if (e.scrollWidth > e.clientWidth + 1) {
          const what = (e.querySelector('caption, th') || e).textContent.trim().slice(0, 40);
          out.push(`horizontal scrollbar at ${window.innerWidth} px: <${e.tagName.toLowerCase()}> "${what}" is ${e.scrollWidth} px wide in ${e.clientWidth} px`);
        }
      }
      return out;
    });
    problems.push(...wide);

    const charts = await page.evaluate(() => {
      const els = [...document.querySelectorAll('svg, img, canvas')]
        .filter((e) => !(e.parentElement && e.parentElement.closest('svg')));
      return els.map((e) => {
        const r = e.getBoundingClientRect();
        const fig = e.closest('figure');
        const cap = fig && fig.querySelector('figcaption');
        return {
          tag: e.tagName.toLowerCase(),
          title: ((cap && cap.textContent) || e.getAttribute('aria-label') || e.getAttribute('alt') || '').trim(),
          x: r.left + window.scrollX,
          y: r.top + window.scrollY,
          width: r.width,
          height: r.height,
          broken: e.tagName.toLowerCase() === 'img' && !(e.complete && e.naturalWidth > 0),
        };
      }).filter((b) => b.width >= 100 && b.height >= 60);
    });
    for (const c of charts) {
      if (c.broken) problems.push(`image did not load: ${c.title || c.tag}`);
    }
    await page.screenshot({ path: pngPath, fullPage: true });
    fs.writeFileSync(boxesPath, JSON.stringify(charts, null, 2) + '\n');
    console.log(`html-check: ${url}: ${charts.length} chart element(s), screenshot ${pngPath}`);
  } finally {
    if (ctx) await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  for (const p of problems) console.log(`html-check: ${p}`);
  return problems.length === 0;
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err) => {
    console.log(`html-check: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  },
);
