// The top level of a config file (docs/configuration.md "Top-level sections"): which sections
// exist, which may appear once per configuration, the include list and the logging shape — and
// the one decision about the sections parsed but not run yet. Job keys: job-schema.ts.
import { anyYaml, bool, int, map, opt, req, seq, str, type MapOut } from './schema-nodes.js';

export const INCLUDE_SCHEMA = seq(str);

/** Python dictConfig: `version` is checked, the rest is passed through. */
export const LOGGING_SCHEMA = map({
  version: req(int),
  incremental: opt(bool),
  disable_existing_loggers: opt(bool),
  formatters: opt(anyYaml),
  filters: opt(anyYaml),
  handlers: opt(anyYaml),
  loggers: opt(anyYaml),
  root: opt(anyYaml),
});
export type TypedLogging = MapOut<typeof LOGGING_SCHEMA.fields>;

/** Top-level keys. */
export const TOP_LEVEL_KEYS = [
  'defaults',
  'jobs',
  'include',
  'logging',
  'web',
  'dags',
  'cluster',
  'state',
] as const;

/** Top-level sections of which the whole config may hold at most one. */
export const SINGLETON_SECTIONS = ['logging', 'web', 'cluster', 'state'] as const;
export type SingletonSection = (typeof SINGLETON_SECTIONS)[number];

/**
 * The one decision about sections accepted but not run yet (docs/configuration.md "Top-level
 * sections"): `dags`. A configuration holding one loads far enough to compute its job-set id (it
 * never counts in it), so `--job-set-id` answers (LoadConfigOptions.purpose `job-set-id`); a load
 * for running it (the daemon, a reload, `-v`) refuses it with `notYetSupportedMessage`.
 * To support a section: give it a parser in file-unit.ts and remove it here.
 */
export const NOT_YET_SUPPORTED_SECTIONS = ['dags'] as const;
export type NotYetSupportedSection = (typeof NOT_YET_SUPPORTED_SECTIONS)[number];
/** The sections of NOT_YET_SUPPORTED_SECTIONS (none is parsed at all). */
export type UnreadSection = NotYetSupportedSection;

export function isUnreadSection(section: string): section is UnreadSection {
  return (NOT_YET_SUPPORTED_SECTIONS as readonly string[]).includes(section);
}

export function notYetSupportedMessage(section: NotYetSupportedSection): string {
  return `the '${section}' section is not supported yet`;
}
