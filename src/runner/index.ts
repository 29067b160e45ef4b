// PLACEHOLDER door of runner/; the runner implementation adds createRunner.
export type * from './types.js';
