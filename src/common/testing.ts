// The common test door: helpers every folder's tests share (left out of dist/ with the other
// test-only modules).
export { freePort, reservePort } from './test-ports.js';
export { closedCount, openSocket, rawStatus, type ClientSocket } from './test-sockets.js';
