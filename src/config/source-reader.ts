// Reading the files of one load: each configuration file read, decoded (strict UTF-8) and typed
// once, cached by its real path, and every env_file read once; the set of files read is the
// reload signature's input. The load (load-config.ts) decides what to do with them.
// Must not: assemble includes or resolve jobs.
import { readFile, realpath } from 'node:fs/promises';
import { describeError } from '../common/index.js';
import { looksLikeCrontab, parseCrontab } from './crontab.js';
import { typeYamlDocument, type FileUnit, type SectionRefs } from './file-unit.js';
import type { LocTable } from './issues.js';
import type { EnvFileRead } from './resolve-job.js';
import { decodeUtf8, describeIoError, errorCodeOf, type FileKind } from './source-files.js';
import { parseYamlText } from './yaml-tree.js';

export type UnitRead = FileUnit | { readonly error: string; readonly cause: unknown };

export interface SourceReaderOptions {
  readonly locs: LocTable;
  readonly displayPath: (absolute: string) => string;
}

const NO_SECTIONS: SectionRefs = new Map();

export class SourceReader {
  /** Every file read (or tried): configuration files, includes, env_files, a token file. */
  readonly sourceFiles = new Set<string>();
  readonly #options: SourceReaderOptions;
  readonly #units = new Map<string, Promise<UnitRead>>();
  readonly #envFiles = new Map<string, Promise<EnvFileRead>>();

  constructor(options: SourceReaderOptions) {
    this.#options = options;
  }

  /**
   * Read and type a file once per load, cached by its real path: a file reached twice (a
   * diamond include, or through a symlink) yields the very same typed jobs, counted once.
   */
  readUnit(absolute: string, real: string, kind: FileKind): Promise<UnitRead> {
    const key = `${kind}\0${real}`;
    let unit = this.#units.get(key);
    if (!unit) {
      unit = this.#readUnitUncached(absolute, kind);
      this.#units.set(key, unit);
    }
    return unit;
  }

  async #readUnitUncached(absolute: string, kind: FileKind): Promise<UnitRead> {
    this.sourceFiles.add(absolute);
    let bytes: Buffer;
    try {
      bytes = await readFile(absolute);
    } catch (error) {
      return { error: describeIoError(error), cause: error };
    }
    const file = this.#options.displayPath(absolute);
    const decoded = decodeUtf8(bytes);
    if (!decoded.ok) {
      const issue = { file, path: '', line: decoded.line, message: decoded.reason };
      return emptyUnit(kind === 'crontab' ? 'crontab' : 'yaml', absolute, file, [issue]);
    }
    let text = decoded.text;
    if (text.startsWith('\uFEFF')) text = text.slice(1);
    const effectiveKind = kind === 'sniff' ? (looksLikeCrontab(text) ? 'crontab' : 'yaml') : kind;
    if (effectiveKind === 'crontab') {
      const parsed = parseCrontab(text, absolute, file, this.#options.locs);
      return {
        kind: 'crontab',
        absolutePath: absolute,
        file,
        defaults: null,
        includes: [],
        jobs: parsed.jobs,
        dags: [],
        sections: NO_SECTIONS,
        issues: parsed.issues,
      };
    }
    const parsed = await parseYamlText(text, file);
    const unit = typeYamlDocument(parsed.root, absolute, file, this.#options.locs);
    return parsed.issues.length === 0
      ? unit
      : { ...unit, issues: [...parsed.issues, ...unit.issues] };
  }

  readEnvFile(absolute: string): Promise<EnvFileRead> {
    let read = this.#envFiles.get(absolute);
    if (!read) {
      this.sourceFiles.add(absolute);
      read = readFile(absolute).then(
        (bytes): EnvFileRead => {
          const decoded = decodeUtf8(bytes);
          return decoded.ok
            ? { ok: true, text: decoded.text }
            : { ok: false, reason: `${decoded.reason} (line ${decoded.line})` };
        },
        (error: unknown): EnvFileRead => ({ ok: false, reason: describeEnvFileError(error) }),
      );
      this.#envFiles.set(absolute, read);
    }
    return read;
  }
}

function describeEnvFileError(error: unknown): string {
  const code = errorCodeOf(error);
  return code === undefined ? describeError(error) : `${describeIoError(error)} (${code})`;
}

/** The real path for cycle detection (symlinks followed); the path itself when missing. */
export async function canonicalPath(absolute: string): Promise<string> {
  try {
    return await realpath(absolute);
  } catch {
    return absolute;
  }
}

function emptyUnit(
  kind: FileUnit['kind'],
  absolutePath: string,
  file: string,
  issues: FileUnit['issues'],
): FileUnit {
  return {
    kind,
    absolutePath,
    file,
    defaults: null,
    includes: [],
    jobs: [],
    dags: [],
    sections: NO_SECTIONS,
    issues,
  };
}
