import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  asctime,
  attributesOf,
  formatRecord,
  strftime,
  validateFormat,
  type LogRecord,
} from './log-format.js';

// Local time is UTC in this file (each test file runs in its own process).
process.env.TZ = 'UTC';

const AT = Date.UTC(2026, 2, 5, 14, 7, 9, 42); // a Thursday

const record: LogRecord = {
  name: 'yacron2',
  levelno: 30,
  message: 'Job backup exit code 1',
  createdMs: AT,
  relativeMs: 1500,
  fields: {},
};

describe('Python logging formats', () => {
  test('%-style with widths, flags and precisions', () => {
    assert.equal(
      formatRecord(record, '%(asctime)s %(levelname)-8s %(name)s: %(message)s', '%', null),
      '2026-03-05 14:07:09,042 WARNING  yacron2: Job backup exit code 1',
    );
    assert.equal(
      formatRecord(record, '[%(levelno)03d] %(msecs)03d %(created).1f %%', '%', null),
      '[030] 042 1772719629.0 %',
    );
    assert.equal(
      formatRecord(record, '%(levelname)8s|%(message).6s|%(name)r', '%', null),
      " WARNING|Job ba|'yacron2'",
    );
    assert.equal(
      formatRecord(record, '%(relativeCreated)d %(process)d', '%', null),
      `1500 ${process.pid}`,
    );
  });

  test('{-style and $-style', () => {
    assert.equal(
      formatRecord(record, '{levelname:<8}|{name:>9}|{message!r:.4}', '{', null),
      "WARNING |  yacron2|'Job",
    );
    assert.equal(
      formatRecord(record, '{{literal}} {levelno:05d} {created:.2f}', '{', null),
      '{literal} 00030 1772719629.04',
    );
    assert.equal(
      formatRecord(record, '$levelname ${name}: $message $$', '$', null),
      'WARNING yacron2: Job backup exit code 1 $',
    );
  });

  test('attributes without a value here render as ? (0 for numbers)', () => {
    assert.equal(
      formatRecord(record, '%(filename)s:%(lineno)d %(message)s', '%', null),
      '?:0 Job backup exit code 1',
    );
    assert.equal(formatRecord(record, '{funcName} $x', '{', null), '? $x');
  });

  test('datefmt is strftime over local time', () => {
    assert.equal(
      asctime(AT, '%d/%m/%y %I:%M:%S %p %a %b %j %z'),
      '05/03/26 02:07:09 PM Thu Mar 064 +0000',
    );
    assert.equal(strftime('%A %B %e %% %Q', AT), 'Thursday March  5 % %Q');
    assert.equal(asctime(AT, null), '2026-03-05 14:07:09,042');
  });

  test('the attributes a format names, and Python`s validation', () => {
    assert.deepEqual(attributesOf('%(asctime)s %(message)s %(asctime)s', '%'), [
      'asctime',
      'message',
    ]);
    assert.deepEqual(attributesOf('{levelname} {{x}}', '{'), ['levelname']);
    assert.deepEqual(attributesOf('${name} $message', '$'), ['name', 'message']);
    assert.equal(validateFormat('%(message)s', '%'), null);
    assert.equal(validateFormat('no fields', '%'), "Invalid format 'no fields' for '%' style");
    assert.equal(validateFormat('%(message)s', '{'), "Invalid format '%(message)s' for '{' style");
  });
});
