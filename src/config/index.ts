// PLACEHOLDER door of config/; the config implementation extends it (loadConfig, validate, fingerprint).
export type * from './types.js';
