// Config problems as values: each names the file, the field path and the line, and they are
// collected per parse and thrown together as one YacronError (never a stack trace).
import { YacronError } from '../common/index.js';

export interface ConfigIssue {
  /** The file as the user recognises it (relative to the working directory when under it). */
  readonly file: string;
  /** Field path such as `jobs[2].schedule`; '' when the problem is about the whole file. */
  readonly path: string;
  /** 1-based line; 0 when unknown. */
  readonly line: number;
  readonly message: string;
}

/** Where a typed value was written: the file, the field path and the line. */
export interface Loc {
  readonly file: string;
  readonly path: string;
  readonly line: number;
}

export function issueAt(loc: Loc, message: string): ConfigIssue {
  return { file: loc.file, path: loc.path, line: loc.line, message };
}

/** `Cannot load jobs.yaml at jobs[2].schedule (line 14): invalid schedule ...` */
export function formatIssue(issue: ConfigIssue): string {
  const at = issue.path === '' ? '' : ` at ${issue.path}`;
  const line = issue.line > 0 ? ` (line ${issue.line})` : '';
  return `Cannot load ${issue.file}${at}${line}: ${issue.message}`;
}

// A huge broken config should still produce a readable message.
const MAX_ISSUES_PER_GROUP = 50;

/**
 * The issues of one load, in groups (one per file of a config directory, plus cross-checks).
 * An identical message reached twice (a broken file included from two places) is shown once.
 */
export class IssueCollector {
  readonly #groups: string[][] = [];
  readonly #seen = new Set<string>();
  #current: string[] = [];

  constructor() {
    this.#groups.push(this.#current);
  }

  get count(): number {
    return this.#seen.size;
  }

  /** Start the group of the next top-level file. */
  startGroup(): void {
    if (this.#current.length === 0) return;
    this.#current = [];
    this.#groups.push(this.#current);
  }

  report(issue: ConfigIssue): void {
    const text = formatIssue(issue);
    if (this.#seen.has(text)) return;
    this.#seen.add(text);
    this.#current.push(text);
  }

  /** The one error of a failed load: issues joined by newlines, groups by `\n---\n`. */
  toError(): YacronError {
    const blocks = this.#groups
      .filter((group) => group.length > 0)
      .map((group) => {
        if (group.length <= MAX_ISSUES_PER_GROUP) return group.join('\n');
        const shown = group.slice(0, MAX_ISSUES_PER_GROUP);
        shown.push(`(and ${group.length - MAX_ISSUES_PER_GROUP} more errors)`);
        return shown.join('\n');
      });
    return new YacronError('YC_ERR_CONFIG_INVALID', blocks.join('\n---\n'));
  }
}

const SIMPLE_KEY = /^[A-Za-z_][\w-]*$/;

/** `jobs[2]` + `schedule` → `jobs[2].schedule`; odd keys are quoted (`headers["odd key"]`). */
export function childPath(parent: string, key: string): string {
  if (SIMPLE_KEY.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/**
 * Side table from typed containers (maps and lists built by the schema walker or the merge) to
 * where each of their children was written, so checks after merging can still name the line.
 */
export class LocTable {
  readonly #table = new WeakMap<object, Map<string | number, Loc>>();

  set(container: object, key: string | number, loc: Loc): void {
    let children = this.#table.get(container);
    if (!children) {
      children = new Map();
      this.#table.set(container, children);
    }
    children.set(key, loc);
  }

  get(container: object, key: string | number): Loc | undefined {
    return this.#table.get(container)?.get(key);
  }

  /** The location of `container[key]`, falling back to `fallback` when unknown. */
  at(container: object | null | undefined, key: string | number, fallback: Loc): Loc {
    if (container === null || container === undefined) return fallback;
    return this.get(container, key) ?? fallback;
  }
}
