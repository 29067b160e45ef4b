// Types for scripts/eslint-doors.mjs (the lint rule is plain JS: eslint.config.js loads it).
import type { ESLint, Rule } from 'eslint';

export const LAYERS: readonly (readonly string[])[];
export const doorsRule: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
