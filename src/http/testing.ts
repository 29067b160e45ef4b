// The http test door: helpers other folders' tests share (left out of dist/ with the other
// test-only modules).
export { assertPolicyCoversPage } from './test-page-policy.js';
