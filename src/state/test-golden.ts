// Test support: the state store the Python reference wrote (test/golden/store-reference/), as a
// fresh scratch copy per test, and the parts of its expected.json the tests read. Only tests
// import this file.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { extract } from 'tar';

export const GOLDEN_DIR = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'test',
  'golden',
  'store-reference',
);

export interface GoldenRecord {
  readonly file: string;
  readonly data: Record<string, unknown>;
}

export interface GoldenExpected {
  readonly host: string;
  readonly namespace: { readonly name: string; readonly dir: string };
  readonly mustSee: {
    readonly kv: Record<string, Record<string, unknown>>;
    readonly cursors: Record<string, Record<string, unknown>>;
    readonly claims: Record<string, Record<string, string>>;
    readonly artifacts: Record<
      string,
      Record<string, { sha256: string; size: number; versions: number; text?: string }>
    >;
    readonly lockFences: Record<string, { fence: number; released: boolean }>;
  };
  readonly records: Record<string, { readonly dir: string; readonly records: GoldenRecord[] }>;
  readonly documents: {
    readonly kv: Record<string, Record<string, Record<string, unknown>>>;
    readonly cursor: Record<string, Record<string, Record<string, unknown>>>;
    readonly idem: Record<string, Record<string, Record<string, unknown>>>;
  };
  readonly leases: Record<
    string,
    { readonly file: string; readonly body: Record<string, unknown> }
  >;
  readonly blobs: readonly string[];
  /** [path relative to the namespace dir (dirs end in /), octal mode, size or null]. */
  readonly files: readonly (readonly [string, string, number | null])[];
}

export interface GoldenStore {
  /** The extracted `store` directory: the state.path. */
  readonly storePath: string;
  /** Its namespace directory (`<storePath>/default`). */
  readonly root: string;
  readonly expected: GoldenExpected;
  readonly dispose: () => Promise<void>;
}

export async function readGoldenExpected(): Promise<GoldenExpected> {
  return JSON.parse(
    await readFile(path.join(GOLDEN_DIR, 'expected.json'), 'utf8'),
  ) as GoldenExpected;
}

/** Extract a fresh copy of the golden store (modes and mtimes kept). */
export async function extractGoldenStore(): Promise<GoldenStore> {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-golden-'));
  await extract({ file: path.join(GOLDEN_DIR, 'store.tar.gz'), cwd: dir });
  const expected = await readGoldenExpected();
  const storePath = path.join(dir, 'store');
  return {
    storePath,
    root: path.join(storePath, expected.namespace.dir),
    expected,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
