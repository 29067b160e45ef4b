// A job object as `GET /jobs` returns it, for the front-end unit tests; override what matters.
import type { JobWire, RunRecord } from './api-types.js';

export function makeRun(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    outcome: 'success',
    exit_code: 0,
    started_at: '2026-06-21T11:59:58+00:00',
    finished_at: '2026-06-21T12:00:00+00:00',
    duration: 2,
    fail_reason: null,
    resources: null,
    ...overrides,
  };
}

export function makeJobWire(overrides: Partial<JobWire> = {}): JobWire {
  return {
    name: 'job',
    enabled: true,
    schedule: '* * * * *',
    command: 'echo hi',
    captureStdout: true,
    captureStderr: true,
    utc: true,
    timezone: 'UTC',
    running: false,
    pids: [],
    scheduled_in: 30,
    last_run: null,
    history: [],
    ...overrides,
  };
}
