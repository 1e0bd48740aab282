// Opens rendered pull-request comments (commentpage.go's HTML) in headless
// Chromium (playwright-core driving the system's chromium) in an 800 px
// wide window with every <details> opened, and fails when anything
// overflows: the page scrolling sideways, a box that scrolls sideways (a
// table GitHub would give a scrollbar), or an element reaching past the
// window's right edge. Writes a full-page screenshot next to each page.
// Called by comment-check.sh:
//   node comment-check.cjs NODE_DIR CHROMIUM PAGE.html...
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const [nodeDir, chromiumPath, ...pages] = process.argv.slice(2);
const { chromium } = require(path.join(nodeDir, 'node_modules', 'playwright-core'));
const WIDTH = 800;

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'apeval-chromium-'));
  let ctx;
  let bad = 0;
  try {
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: { width: WIDTH, height: 900 },
      deviceScaleFactor: 1,
      timeout: 60000,
    });
    await ctx.route('**/*', (route) =>
      /^(file|data|about):/.test(route.request().url()) ? route.continue() : route.abort('blockedbyclient'));
    const page = ctx.pages()[0] || (await ctx.newPage());
    for (const p of pages) {
      await page.goto('file://' + path.resolve(p), { waitUntil: 'load', timeout: 30000 });
      const problems = await page.evaluate((width) => {
        for (const d of document.querySelectorAll('details')) d.open = true;
        const out = [];
        const doc = document.documentElement;
        if (doc.scrollWidth > doc.clientWidth) out.push(`the page is ${doc.scrollWidth} px wide in ${doc.clientWidth} px`);
        for (const e of document.querySelectorAll('body *')) {
          if (e.getClientRects().length === 0) continue;
          const st = getComputedStyle(e);
          const what = `<${e.tagName.toLowerCase()}> "${e.textContent.trim().slice(0, 40)}"`;
          if (/(auto|scroll)/.test(st.overflowX) && e.scrollWidth > e.clientWidth + 1) {
            out.push(`${what} scrolls sideways: ${e.scrollWidth} px in ${e.clientWidth} px`);
          }
          const r = e.getBoundingClientRect();
          if (r.right > width + 0.5) out.push(`${what} reaches ${Math.round(r.right)} px, past ${width} px`);
        }
        return out;
      }, WIDTH);
      await page.screenshot({ path: p.replace(/\.html$/, '.png'), fullPage: true });
      for (const m of problems.slice(0, 10)) console.log(`comment-check: ${p}: ${m}`);
      if (problems.length > 0) bad++;
      else console.log(`comment-check: ${p}: fits ${WIDTH} px`);
    }
  } finally {
    if (ctx) await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  return bad === 0;
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err) => {
    console.log(`comment-check: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  },
);
