// The logging test door: the recording Logger tests assert log lines with (left out of dist/).
export { recordingLogger, type LoggedLine, type RecordingLogger } from './test-logger.js';
