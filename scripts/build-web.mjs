// Builds the dashboard (src/web) into one self-contained page, dist/web/index.html: the esbuild
// bundles of src/web/prefetch.ts (the <head> script starting the first GET /jobs), of
// src/web/main.ts and of src/web/styles/main.css inlined into src/web/page.html. The
// daemon serves these bytes at `GET /` (docs/dashboard.md "Delivery and security headers").
// Also writes dist/web/csp-hashes.txt (the sha256 sources of the inline scripts and style, which
// the daemon reads to build the page's Content-Security-Policy: src/http/dashboard-page.ts) and
// dist/web/bundle-stats.json (raw and gzip sizes, for bench/), and the scripts' source maps in
// dist/web-maps/ (for coverage only).
// Usage: node scripts/build-web.mjs [--out DIR]
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const outFlag = process.argv.indexOf('--out');
const outDir = outFlag === -1 ? join(root, 'dist', 'web') : resolve(process.argv[outFlag + 1]);

const common = {
  bundle: true,
  minify: true,
  write: false,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
};

// Source maps of the two scripts, for the browser tests' coverage (test/browser/coverage.ts maps
// the page's V8 coverage back to src/web). Not served and not shipped in the image.
const mapsDir = join(outDir, '..', 'web-maps');

/** One browser script, bundled and minified into an IIFE; its map goes to web-maps/. */
const bundleScript = async (entry, name) => {
  const out = await esbuild.build({
    ...common,
    entryPoints: [join(root, entry)],
    outfile: join(mapsDir, `${name}.js`),
    sourcemap: 'external',
    format: 'iife',
    platform: 'browser',
    target: ['es2022'],
    tsconfig: join(root, 'src/web/tsconfig.json'),
  });
  const file = (suffix) => out.outputFiles.find((output) => output.path.endsWith(suffix));
  const code = file('.js').text.trimEnd();
  const map = JSON.parse(file('.js.map').text);
  // Absolute source paths: coverage tools key files by path.
  map.sources = map.sources.map((source) => resolve(mapsDir, source));
  mkdirSync(mapsDir, { recursive: true });
  writeFileSync(join(mapsDir, `${name}.js`), code);
  writeFileSync(join(mapsDir, `${name}.js.map`), JSON.stringify(map));
  return code;
};

const js = await bundleScript('src/web/main.ts', 'main');
// The <head> script that starts the first GET /jobs before the bundle is parsed (src/web/prefetch.ts).
const earlyJs = await bundleScript('src/web/prefetch.ts', 'prefetch');
const style = await esbuild.build({
  ...common,
  entryPoints: [join(root, 'src/web/styles/main.css')],
  loader: { '.css': 'css' },
});

const css = style.outputFiles[0].text.trimEnd();
// An inline script or style must not contain its own closing tag (esbuild escapes `</script`
// in strings; this guards the rule).
for (const code of [js, earlyJs]) {
  if (/<\/script/i.test(code)) throw new Error('build-web: a script contains "</script"');
}
if (/<\/style/i.test(css)) throw new Error('build-web: the stylesheet contains "</style"');

const template = readFileSync(join(root, 'src/web/page.html'), 'utf8');
// The whole element is replaced, so the inline content is exactly the bundle (the CSP hashes
// below are of these bytes) however the template is formatted.
const STYLE = /<style>\s*\/\*STYLE\*\/\s*<\/style>/;
const SCRIPT = /<script>\s*\/\*SCRIPT\*\/\s*<\/script>/;
const EARLY = /<script>\s*\/\*EARLY\*\/\s*<\/script>/;
for (const marker of [STYLE, SCRIPT, EARLY]) {
  if (template.split(marker).length !== 2) throw new Error(`build-web: ${marker} must appear once`);
}
// Function replacements: `$` sequences in the bundle must not be read as patterns.
const html = template
  .replace(EARLY, () => `<script>${earlyJs}</script>`)
  .replace(STYLE, () => `<style>${css}</style>`)
  .replace(SCRIPT, () => `<script>${js}</script>`);

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'index.html'), html);
writeFileSync(
  join(outDir, 'csp-hashes.txt'),
  `script-src ${sha256(earlyJs)} ${sha256(js)}\nstyle-src ${sha256(css)}\n`,
);
const stats = {
  htmlBytes: Buffer.byteLength(html),
  htmlGzipBytes: gzipSync(html, { level: 9 }).length,
  scriptBytes: Buffer.byteLength(js) + Buffer.byteLength(earlyJs),
  styleBytes: Buffer.byteLength(css),
};
writeFileSync(join(outDir, 'bundle-stats.json'), `${JSON.stringify(stats, null, 2)}\n`);
process.stderr.write(
  `build-web: ${join(outDir, 'index.html')} ${stats.htmlBytes} bytes (${stats.htmlGzipBytes} gzip)\n`,
);
