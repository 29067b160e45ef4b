// The highest tier V8 may compile the daemon's JavaScript to (docs/performance.md "Capping the
// optimising compiler"). A daemon at rest runs little code, and runs it rarely: what TurboFan, V8's
// top tier, adds there is mostly its own cost, the compiler's pages of the `node` binary and its
// output on the heap, and its compile work off the main thread. On V8 12 and later (Node.js 22
// and later) Maglev, the tier below it, is on by default and optimises a hot path well enough.
// Measured on Node.js 22, one node of a fleet: 9–15 MB less VmRSS and about 30% less idle CPU.
// The price is the load of a large configuration (10,000 jobs: 25–60% longer to start), so the
// cap applies only to a configuration smaller than CAP_BELOW_CONFIG_BYTES.
// Must not: cap below Maglev (the interpreter alone would make every launch dearer), or cap on
// a V8 whose Maglev is off by default.
import { setFlagsFromString } from 'node:v8';

/** Configurations at least this large (all their YAML, in bytes) keep TurboFan for the load. */
export const CAP_BELOW_CONFIG_BYTES = 256 * 1024;

/** The first V8 major with Maglev on by default (Node.js 22). */
const MAGLEV_BY_DEFAULT_FROM_V8 = 12;

/** Whether to cap the tier at Maglev, for a V8 version string and a configuration's size. */
export function shouldCapOptimisingTier(v8Version: string, configBytes: number | null): boolean {
  const major = Number.parseInt(v8Version, 10);
  if (!Number.isInteger(major) || major < MAGLEV_BY_DEFAULT_FROM_V8) return false;
  return configBytes !== null && configBytes < CAP_BELOW_CONFIG_BYTES;
}

/**
 * Caps the tier at Maglev when shouldCapOptimisingTier says so (call before the configuration is
 * loaded: code optimised before the cap keeps its TurboFan code and pages). Returns whether it did.
 */
export function capOptimisingTier(configBytes: number | null): boolean {
  if (!shouldCapOptimisingTier(process.versions.v8, configBytes)) return false;
  setFlagsFromString('--max-opt=2');
  return true;
}
