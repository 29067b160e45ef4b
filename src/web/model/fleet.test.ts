import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildFleetMatrix,
  type FleetJobWire,
  type FleetNodeWire,
  type FleetWire,
} from './fleet.js';

const NOW = Date.UTC(2026, 5, 21, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

function job(overrides: Partial<FleetJobWire> = {}): FleetJobWire {
  return { running: false, enabled: true, scheduled_in: 5, last: null, ...overrides };
}

function node(overrides: Partial<FleetNodeWire>): FleetNodeWire {
  return {
    node_name: 'a',
    host: null,
    self: true,
    status: 'self',
    as_of: iso(NOW),
    truncated: false,
    jobs: {},
    node_stats: null,
    ...overrides,
  };
}

const failed = {
  outcome: 'failure' as const,
  finished_at: iso(NOW - 60_000),
  duration: 1.5,
  exit_code: 2,
};

function fleet(nodes: FleetNodeWire[]): FleetWire {
  return {
    enabled: true,
    backend: 'gossip',
    node_name: 'a',
    distribution: 'single-leader',
    elect_leader: true,
    interval: 1,
    nodes,
  };
}

describe('buildFleetMatrix', () => {
  it('is null when the fleet view is off', () => {
    assert.equal(buildFleetMatrix({ enabled: false, nodes: [] }, NOW), null);
  });

  it('names a peer that never answered (no node_name yet) by its address', () => {
    const matrix = buildFleetMatrix(
      fleet([
        node({}),
        node({
          node_name: null,
          host: '10.0.0.2:8000',
          self: false,
          status: 'unreachable',
          as_of: null,
          jobs: null,
        }),
      ]),
      NOW,
    )!;
    assert.deepEqual(
      matrix.columns.map((column) => column.node),
      ['a', '10.0.0.2:8000'],
    );
  });

  it('rows are the sorted union of jobs; each cell says what that node knows', () => {
    const matrix = buildFleetMatrix(
      fleet([
        node({
          jobs: {
            backup: job({ last: failed }),
            zeta: job({ running: true }),
            off: job({ enabled: false }),
          },
        }),
        node({
          node_name: 'b',
          host: '127.0.0.1:1',
          self: false,
          status: 'agreed',
          as_of: iso(NOW - 2000),
          jobs: { backup: job() },
        }),
        node({ node_name: 'c', self: false, status: 'unknown', as_of: null, jobs: null }),
      ]),
      NOW,
    )!;
    assert.deepEqual(
      matrix.rows.map((row) => [row.job, row.cells.map((cell) => cell.kind), row.failing]),
      [
        ['backup', ['last', 'never', 'no-data'], true],
        ['off', ['off', 'absent', 'no-data'], false],
        ['zeta', ['running', 'absent', 'no-data'], false],
      ],
    );
    const last = matrix.rows[0]!.cells[0]!;
    assert.deepEqual(last, {
      kind: 'last',
      outcome: 'failure',
      finishedMs: NOW - 60_000,
      exitCode: 2,
      duration: 1.5,
      scheduledIn: 5,
    });
    assert.deepEqual(
      matrix.columns.map((c) => [c.node, c.ageMs, c.stale, c.noData]),
      [
        ['a', 0, false, false],
        ['b', 2000, false, false],
        ['c', null, true, true],
      ],
    );
  });

  it('marks stale and unreachable peers and partial (truncated) nodes', () => {
    const matrix = buildFleetMatrix(
      fleet([
        node({ jobs: { x: job(), y: job() } }),
        node({
          node_name: 'b',
          self: false,
          status: 'agreed',
          as_of: iso(NOW - 60_000),
          truncated: true,
          jobs: { x: job() },
        }),
        node({ node_name: 'c', self: false, status: 'unreachable', as_of: iso(NOW - 1000) }),
      ]),
      NOW,
    )!;
    assert.deepEqual(
      matrix.columns.map((c) => [c.stale, c.partial]),
      [
        [false, false],
        [true, true],
        [true, false],
      ],
    );
    // Missing from a truncated list: unknown, not "not configured".
    assert.deepEqual(
      matrix.rows.map((row) => row.cells.map((cell) => cell.kind)),
      [
        ['never', 'never', 'absent'],
        ['never', 'no-data', 'absent'],
      ],
    );
  });

  it('filters to failing rows and keeps the total', () => {
    const matrix = buildFleetMatrix(
      fleet([node({ jobs: { ok: job(), bad: job({ last: failed }) } })]),
      NOW,
      { failingOnly: true },
    )!;
    assert.deepEqual(
      matrix.rows.map((row) => row.job),
      ['bad'],
    );
    assert.equal(matrix.totalRows, 2);
  });

  it('treats a job named like an Object member as an ordinary key', () => {
    const jobs = Object.create(null) as Record<string, FleetJobWire>;
    jobs['constructor'] = job();
    const matrix = buildFleetMatrix(
      fleet([node({ jobs }), node({ node_name: 'b', self: false })]),
      NOW,
    )!;
    assert.deepEqual(
      matrix.rows[0]!.cells.map((cell) => cell.kind),
      ['never', 'absent'],
    );
  });
});
