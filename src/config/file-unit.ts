// One config file typed by the schema (config.md §2): its defaults, includes, jobs and
// singleton sections. Jobs are typed one by one so a broken job does not hide the others.
import {
  DEFAULTS_SCHEMA,
  INCLUDE_SCHEMA,
  JOB_SCHEMA,
  LOGGING_SCHEMA,
  TOP_LEVEL_KEYS,
  UNSUPPORTED_SECTIONS,
  unsupportedSectionMessage,
  type SingletonSection,
} from './config-schema.js';
import { childPath, indexPath, type ConfigIssue, type Loc, type LocTable } from './issues.js';
import {
  INVALID,
  OMIT,
  isEmptyValue,
  unknownKeyMessage,
  walk,
  type WalkContext,
} from './schema.js';
import type { TypedJob } from './typed-job.js';
import { typeClusterSection } from './cluster-schema.js';
import { STATE_SCHEMA } from './state-section.js';
import { typeWebSection } from './web-section.js';
import { describeRawNode, type RawNode } from './yaml-tree.js';

export interface IncludeRef {
  /** As written. */
  readonly target: string;
  readonly loc: Loc;
}

export interface SectionRef {
  readonly value: Readonly<Record<string, unknown>>;
  readonly loc: Loc;
}

/** A typed job and where it was written (its list item, or its crontab line). */
export interface JobEntry {
  readonly typed: TypedJob;
  readonly loc: Loc;
}

export interface FileUnit {
  readonly kind: 'yaml' | 'crontab';
  readonly absolutePath: string;
  readonly file: string;
  readonly defaults: TypedJob | null;
  readonly includes: readonly IncludeRef[];
  /** Only the jobs that typed cleanly. */
  readonly jobs: readonly JobEntry[];
  readonly sections: ReadonlyMap<SingletonSection, SectionRef>;
  readonly issues: readonly ConfigIssue[];
}

export function typeYamlDocument(
  root: RawNode | null,
  absolutePath: string,
  file: string,
  locs: LocTable,
): FileUnit {
  const issues: ConfigIssue[] = [];
  const ctx: WalkContext = { file, issues, locs };
  const unit = {
    kind: 'yaml' as const,
    absolutePath,
    file,
    defaults: null as TypedJob | null,
    includes: [] as IncludeRef[],
    jobs: [] as JobEntry[],
    sections: new Map<SingletonSection, SectionRef>(),
    issues,
  };
  // An empty document (or only comments) is a valid config without jobs.
  if (root === null || isEmptyValue(root)) return unit;
  if (root.kind !== 'map') {
    issues.push({
      file,
      path: '(document)',
      line: root.line,
      message: `expected a mapping with 'jobs', 'defaults', 'include'... at the top level, found ${describeRawNode(root)}`,
    });
    return unit;
  }
  for (const entry of root.entries) {
    const path = childPath('', entry.key);
    const loc = { file, path, line: entry.line };
    if (UNSUPPORTED_SECTIONS.has(entry.key)) {
      issues.push({ ...loc, message: unsupportedSectionMessage(entry.key) });
      continue;
    }
    switch (entry.key) {
      case 'defaults': {
        const value = walk(DEFAULTS_SCHEMA, entry.value, path, entry.line, ctx);
        if (value !== INVALID && value !== OMIT) unit.defaults = value as TypedJob;
        break;
      }
      case 'include': {
        const value = walk(INCLUDE_SCHEMA, entry.value, path, entry.line, ctx);
        if (value === INVALID || value === OMIT) break;
        (value as string[]).forEach((target, index) => {
          const itemLoc = locs.get(value as string[], index) ?? loc;
          if (target.trim() === '') {
            issues.push({ ...itemLoc, message: 'include path must not be empty' });
          } else {
            unit.includes.push({ target, loc: itemLoc });
          }
        });
        break;
      }
      case 'jobs':
        typeJobs(entry.value, path, entry.line, ctx, unit.jobs);
        break;
      case 'logging': {
        const value = walk(LOGGING_SCHEMA, entry.value, path, entry.line, ctx);
        if (value !== INVALID && value !== OMIT) {
          unit.sections.set('logging', { value: value as Record<string, unknown>, loc });
        }
        break;
      }
      case 'state': {
        const value = walk(STATE_SCHEMA, entry.value, path, entry.line, ctx);
        if (value === OMIT) {
          issues.push({ ...loc, message: "the 'state' section needs at least a 'path'" });
        } else if (value !== INVALID) {
          unit.sections.set('state', { value: value as Record<string, unknown>, loc });
        }
        break;
      }
      case 'cluster': {
        const value = typeClusterSection(entry.value, path, entry.line, ctx);
        if (value !== undefined) {
          unit.sections.set('cluster', { value: value as unknown as Record<string, unknown>, loc });
        }
        break;
      }
      case 'web': {
        const value = typeWebSection(entry.value, path, entry.line, ctx);
        if (value !== undefined) {
          unit.sections.set('web', { value: value as unknown as Record<string, unknown>, loc });
        }
        break;
      }
      default:
        issues.push({ ...loc, message: unknownKeyMessage(entry.key, TOP_LEVEL_KEYS) });
    }
  }
  return unit;
}

function typeJobs(
  node: RawNode,
  path: string,
  line: number,
  ctx: WalkContext,
  out: JobEntry[],
): void {
  if (isEmptyValue(node)) return;
  if (node.kind !== 'seq') {
    ctx.issues.push({
      file: ctx.file,
      path,
      line,
      message: `expected a list of jobs, found ${describeRawNode(node)}`,
    });
    return;
  }
  node.items.forEach((item, index) => {
    const before = ctx.issues.length;
    const itemPath = indexPath(path, index);
    const value = walk(JOB_SCHEMA, item, itemPath, item.line, ctx);
    if (value === OMIT) {
      ctx.issues.push({
        file: ctx.file,
        path: indexPath(path, index),
        line: item.line,
        message: 'empty job entry',
      });
      return;
    }
    const name = value === INVALID ? undefined : (value as TypedJob).name;
    if (name !== undefined && name.trim() === '') {
      const loc = ctx.locs.get(value as object, 'name');
      ctx.issues.push({
        file: ctx.file,
        path: loc?.path ?? itemPath,
        line: loc?.line ?? item.line,
        message: 'a job name must not be empty',
      });
      return;
    }
    if (value !== INVALID && ctx.issues.length === before) {
      out.push({
        typed: value as TypedJob,
        loc: { file: ctx.file, path: itemPath, line: item.line },
      });
    }
  });
}
