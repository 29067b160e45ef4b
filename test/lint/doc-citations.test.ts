// Every place the code sends a reader to the docs must lead somewhere: a comment citation
// `docs/x.md "Section"` (or `docs/x.md "A", "B"`) names a heading of that page, and a Markdown
// link `page.md#anchor` in the docs names a heading's anchor. A renamed or removed section
// otherwise leaves the citations pointing at nothing, which is how 20 of them dangled before this
// test existed.
//
// A citation resolves when it is a heading's text or the heading's leading words up to a space
// or punctuation ("The job API" cites "The job API (loopback, for job commands)"), compared
// without backticks, case and line breaks (a citation may wrap across comment lines).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CODE_ROOTS = ['src', 'test', 'bench', 'scripts', 'native', 'examples', '.ci'];
const CODE_FILE = /\.(ts|mts|mjs|js|c|h|sh|ya?ml|css|html)$|^\.ci\/run$/;
const SKIP_DIRS = new Set(['node_modules', 'dist']);

// `docs/page.md "A"` with optional `, "B"` / ` and "B"` continuations; a quoted section may wrap
// onto the next comment line.
const CITATION = /docs\/([a-z0-9-]+\.md) ((?:"[^"]+"(?:,\s*|\s+and\s+)?)+)/g;
const QUOTED = /"([^"]+)"/g;
const COMMENT_WRAP = /\n\s*(?:\/\/|\*|#)?\s*/g;

function walk(dir: string): string[] {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(join(ROOT, dir));
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (SKIP_DIRS.has(entry)) continue;
    const rel = posix.join(dir, entry);
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...walk(rel));
    else if (CODE_FILE.test(rel)) out.push(rel);
  }
  return out;
}

function codeFiles(): string[] {
  return CODE_ROOTS.flatMap((root) =>
    root === '.ci' ? walk(root).concat(['.ci/run']) : walk(root),
  ).filter((file, index, all) => all.indexOf(file) === index);
}

const normalise = (text: string): string =>
  text.replace(COMMENT_WRAP, ' ').replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

function headingLines(markdown: string): string[] {
  const headings: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const match = /^#{1,6} (.*)$/.exec(line);
    if (match) headings.push(match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
  }
  return headings;
}

/** Whether `cited` names one of `headings` (whole, or its leading words). */
function resolves(cited: string, headings: readonly string[]): boolean {
  const wanted = normalise(cited);
  return headings.some((heading) => {
    const text = normalise(heading);
    return (
      text === wanted || (text.startsWith(wanted) && /^[\s(:,—-]/.test(text.slice(wanted.length)))
    );
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingLines(markdown)) {
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function readOrNull(rel: string): string | null {
  try {
    return readFileSync(join(ROOT, rel), 'utf8');
  } catch {
    return null;
  }
}

interface Citation {
  readonly file: string;
  readonly page: string;
  readonly section: string;
}

function citationsIn(file: string, text: string): Citation[] {
  const found: Citation[] = [];
  for (const match of text.matchAll(CITATION)) {
    for (const quoted of match[2]!.matchAll(QUOTED)) {
      found.push({ file, page: `docs/${match[1]!}`, section: quoted[1]! });
    }
  }
  return found;
}

function danglingCitations(files: readonly string[]): string[] {
  const headings = new Map<string, string[] | null>();
  const headingsOf = (page: string): string[] | null => {
    if (!headings.has(page)) {
      const text = readOrNull(page);
      headings.set(page, text === null ? null : headingLines(text));
    }
    return headings.get(page)!;
  };
  const dangling: string[] = [];
  for (const file of files) {
    const text = readOrNull(file);
    if (text === null) continue;
    for (const citation of citationsIn(file, text)) {
      const pageHeadings = headingsOf(citation.page);
      if (pageHeadings === null || !resolves(citation.section, pageHeadings)) {
        dangling.push(`${citation.file}: ${citation.page} "${normalise(citation.section)}"`);
      }
    }
  }
  return dangling;
}

describe('doc citations', () => {
  test('the matcher: a heading, its leading words, a wrapped citation; not a word fragment', () => {
    const headings = ['The job API (loopback, for job commands)', '`yacron2 state`: the store'];
    assert.equal(resolves('The job API', headings), true);
    assert.equal(resolves('the job api (loopback, for job commands)', headings), true);
    assert.equal(resolves('yacron2 state', headings), true);
    assert.equal(resolves('The job\n// API', headings), true);
    assert.equal(resolves('The job AP', headings), false);
    assert.equal(resolves('Job API', headings), false);
    assert.deepEqual(
      citationsIn('x.ts', '// see docs/a.md "One", "Two" and "Three" and docs/b.md "Four"').map(
        (citation) => `${citation.page} ${citation.section}`,
      ),
      ['docs/a.md One', 'docs/a.md Two', 'docs/a.md Three', 'docs/b.md Four'],
    );
    assert.equal(
      anchorOf('`GET /dags` names a scheduled DAG’s timezone'),
      'get-dags-names-a-scheduled-dags-timezone',
    );
  });

  test('every docs/x.md "Section" cited in the code names a heading of that page', () => {
    // This file's own examples are not citations.
    const files = codeFiles().filter((file) => file !== 'test/lint/doc-citations.test.ts');
    assert.ok(files.length > 100, `only ${files.length} files scanned`);
    assert.deepEqual(danglingCitations(files), []);
  });

  test('every page.md#anchor link in the docs names a heading of that page', () => {
    const pages = ['README.md', 'bench/README.md'].concat(
      readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    );
    const broken: string[] = [];
    for (const page of pages) {
      const text = readOrNull(page);
      if (text === null) continue;
      for (const link of text.matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
        const target = link[1] ? posix.normalize(posix.join(posix.dirname(page), link[1])) : page;
        if (!target.endsWith('.md')) continue;
        const targetText = readOrNull(target);
        if (targetText === null || !anchorsOf(targetText).has(link[2]!)) {
          broken.push(`${page}: ${target}#${link[2]!}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });
});
