// The resources test door: a fake /proc and a map-backed file tree, for tests in other folders
// (left out of dist/).
export { FakeProc, FileTree, statLine, type FakeProcess } from './resources-fixture.test.js';
