import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeJobWire, makeRun } from './job-fixture.test.js';
import { Cutter, JobsDecoder } from './jobs-decoder.js';

const body = (jobs: readonly object[]): string => JSON.stringify(jobs);

describe('Cutter', () => {
  it("cuts the daemon's layout into job objects and finds each one's scheduled_in value", () => {
    const text =
      '[{"name":"a,{\\"name\\":","scheduled_in":12.5,"y":[1,{"z":"}"}]},{"name":"b","scheduled_in":null}]';
    const cutter = new Cutter(text);
    const a = cutter.cut(1);
    const b = cutter.cut(a.end + 1);
    assert.equal(b.end, text.length - 1, 'the last piece ends at the closing bracket');
    assert.equal(JSON.parse(text.slice(a.start, a.end)).scheduled_in, 12.5);
    assert.equal(text.slice(a.valueFrom, a.valueTo), '12.5');
    assert.equal(text.slice(b.valueFrom, b.valueTo), 'null');
  });

  it("finds no value in a job without one, and the next job's own", () => {
    const text = '[{"name":"a"},{"name":"b"},{"name":"c","scheduled_in":3}]';
    const cutter = new Cutter(text);
    const a = cutter.cut(1);
    const b = cutter.cut(a.end + 1);
    const c = cutter.cut(b.end + 1);
    assert.deepEqual([a.valueFrom, b.valueFrom], [-1, -1]);
    assert.equal(text.slice(c.valueFrom, c.valueTo), '3');
    assert.deepEqual(new Cutter('[{"name":"a","scheduled_in":"x}').cut(1).valueFrom, -1);
  });
});

describe('JobsDecoder', () => {
  const a = makeJobWire({ name: 'a', scheduled_in: 30 });
  const b = makeJobWire({ name: 'b', scheduled_in: 5, last_run: makeRun() });

  it('decodes like JSON.parse and parses only changed jobs on the next poll', () => {
    const decoder = new JobsDecoder();
    const first = decoder.decode(body([a, b]));
    assert.deepEqual(first, [a, b]);
    assert.deepEqual(decoder.last, { parsed: 2, reused: 0 });

    // Same text: the very same objects come back.
    const same = decoder.decode(body([a, b]));
    assert.equal(same[0], first[0]);
    assert.equal(same[1], first[1]);
    assert.deepEqual(decoder.last, { parsed: 0, reused: 2 });

    // Only scheduled_in moved on a; b ran.
    const b2 = { ...b, last_run: makeRun({ outcome: 'failure', exit_code: 2 }) };
    const next = decoder.decode(body([{ ...a, scheduled_in: 28.25 }, b2]));
    assert.deepEqual(next, [{ ...a, scheduled_in: 28.25 }, b2]);
    assert.notEqual(next[0], first[0]);
    assert.equal(first[0]!.scheduled_in, 30, 'the previous object is not mutated');
    assert.deepEqual(decoder.last, { parsed: 1, reused: 1 });

    // scheduled_in becomes null (a job starts running) and back.
    const running = decoder.decode(body([{ ...a, scheduled_in: null, running: true }, b2]));
    assert.deepEqual(running[0], { ...a, scheduled_in: null, running: true });
    assert.deepEqual(decoder.decode(body([{ ...a, scheduled_in: 3 }, b2]))[0], {
      ...a,
      scheduled_in: 3,
    });
  });

  it('handles added, removed and reordered jobs', () => {
    const decoder = new JobsDecoder();
    decoder.decode(body([a, b]));
    assert.deepEqual(decoder.decode(body([b, a])), [b, a]);
    assert.deepEqual(decoder.decode(body([b])), [b]);
    assert.deepEqual(decoder.decode(body([b, a, { ...a, name: 'c' }])), [
      b,
      a,
      { ...a, name: 'c' },
    ]);
    // Compared by position (the daemon lists jobs in config order): b is reused, a and c parsed.
    assert.deepEqual(decoder.last, { parsed: 2, reused: 1 });
  });

  it('falls back to a full parse for other layouts and fails like JSON.parse on bad bodies', () => {
    const decoder = new JobsDecoder();
    assert.deepEqual(decoder.decode('[]'), []);
    assert.deepEqual(decoder.decode(' [ {"name":"a"} ] '), [{ name: 'a' }]);
    assert.deepEqual(decoder.last, { parsed: 1, reused: 0 });
    assert.throws(() => decoder.decode('{"jobs":[]}'), /did not answer a list/);
    assert.throws(() => decoder.decode('[{"name":"a",}]'), SyntaxError);
    assert.throws(() => decoder.decode('[{"name":"a"}]]'), SyntaxError);
    assert.throws(() => decoder.decode('[{"name":"a"}'), SyntaxError);
    for (const text of ['[1]', '[{"name":"a"}] ', ' [{"name":"a"}]', '[{"id":1}]']) {
      assert.deepEqual(decoder.decode(text), JSON.parse(text), text);
      assert.deepEqual(decoder.last, { parsed: 1, reused: 0 }, text);
    }
    // A nested object led by "name" puts a cut inside a job: the piece is no object, the body
    // is parsed whole.
    const nested = '[{"name":"a","x":[{"name":"b"}]}]';
    assert.deepEqual(decoder.decode(nested), [{ name: 'a', x: [{ name: 'b' }] }]);
    assert.deepEqual(decoder.decode(nested), [{ name: 'a', x: [{ name: 'b' }] }]);
  });

  it("never swaps a scheduled_in that is not the object's own or not a number", () => {
    const decoder = new JobsDecoder();
    decoder.decode('[{"name":"a","x":{"scheduled_in":1},"scheduled_in":5}]');
    assert.deepEqual(decoder.decode('[{"name":"a","x":{"scheduled_in":2},"scheduled_in":5}]'), [
      { name: 'a', x: { scheduled_in: 2 }, scheduled_in: 5 },
    ]);
    decoder.decode('[{"name":"a","scheduled_in":1}]');
    assert.throws(() => decoder.decode('[{"name":"a","scheduled_in":-}]'), SyntaxError);
    assert.deepEqual(decoder.decode('[{"name":"a","scheduled_in":"so,on"}]'), [
      { name: 'a', scheduled_in: 'so,on' },
    ]);
    assert.deepEqual(decoder.decode('[{"name":"a","scheduled_in":"later"}]'), [
      { name: 'a', scheduled_in: 'later' },
    ]);
  });

  it('follows the previous layout: values of another length shift the jobs after them', () => {
    const decoder = new JobsDecoder();
    const c = makeJobWire({ name: 'c', scheduled_in: 7 });
    decoder.decode(body([a, b, c]));
    const shifted = [
      { ...a, scheduled_in: 29.875 },
      { ...b, scheduled_in: 4 },
      { ...c, scheduled_in: null },
    ];
    assert.deepEqual(decoder.decode(body(shifted)), shifted);
    assert.deepEqual(decoder.last, { parsed: 0, reused: 3 });
    // A job that grew after its value, one that shrank before it: both parsed, the rest reused.
    const changed = [
      { ...shifted[0]!, command: `${a.command} --more` },
      shifted[1]!,
      { ...shifted[2]!, name: 'c2' },
    ];
    assert.deepEqual(decoder.decode(body(changed)), changed);
    assert.deepEqual(decoder.last, { parsed: 2, reused: 1 });
    // The previous text is a prefix of a longer job: not taken for it.
    const longer = '[{"name":"x","scheduled_in":1,"v":1}]';
    decoder.decode(longer);
    assert.deepEqual(decoder.decode('[{"name":"x","scheduled_in":2,"v":12}]'), [
      { name: 'x', scheduled_in: 2, v: 12 },
    ]);
    assert.deepEqual(decoder.last, { parsed: 1, reused: 0 });
    // A known job followed by anything but a separator or the end is no list of jobs.
    decoder.decode('[{"name":"x","scheduled_in":1,"v":"a"},{"name":"y"}]');
    assert.throws(
      () => decoder.decode('[{"name":"x","scheduled_in":2,"v":"a"}X{"name":"y"}]'),
      SyntaxError,
    );
  });

  it('decodes like JSON.parse over a long run of random polls', () => {
    // A seeded generator: the same polls on every run.
    let seed = 12345;
    const random = (below: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    const names = ['a', 'b,{"name":"c"}', 'd\\"', 'e', 'f', 'g'];
    const makeJob = (index: number): Record<string, unknown> => {
      const job: Record<string, unknown> = {
        name: names[index % names.length]! + String(index),
        scheduled_in: random(4) === 0 ? null : random(100_000) / 8,
        command: random(5) === 0 ? '{"name":"x","scheduled_in":1}' : `run ${index}`,
      };
      if (random(6) === 0) job['nested'] = [{ name: 'n', scheduled_in: random(9) }];
      if (random(7) === 0) job['history'] = [{ outcome: 'success', duration: random(50) }];
      return job;
    };
    let jobs = Array.from({ length: 12 }, (_, index) => makeJob(index));
    const decoder = new JobsDecoder();
    for (let poll = 0; poll < 400; poll++) {
      const change = random(10);
      if (change < 6) {
        // Countdowns move (the common case), sometimes to a value of another length.
        jobs = jobs.map((job) =>
          random(3) === 0 ? job : { ...job, scheduled_in: random(5) === 0 ? null : random(999) },
        );
      } else if (change === 6) {
        jobs = [...jobs.slice(0, 3), makeJob(100 + poll), ...jobs.slice(3)];
      } else if (change === 7 && jobs.length > 1) {
        jobs = jobs.filter((_, index) => index !== random(jobs.length));
      } else if (change === 8) {
        const at = random(jobs.length);
        jobs = jobs.map((job, index) =>
          index === at ? { ...job, command: `changed ${poll}` } : job,
        );
      } else {
        jobs = jobs.map((job, index) =>
          index % 2 === 0 ? job : { ...job, extra: 'x'.repeat(random(3)) },
        );
      }
      const text = body(jobs);
      assert.deepEqual(decoder.decode(text), JSON.parse(text), `poll ${poll}`);
    }
  });
});
