// The door of the pure cron engine: parse, next fire, match, equality and zone helpers.
// No timers and no clock reads anywhere below this file.
export {
  parseSchedule,
  nextFireTime,
  matchesAt,
  schedulesEqual,
  wallTimeAt,
  type Schedule,
  type ZonedWallTime,
} from './schedule.js';
export { assertTimezone, localTimezone } from './zone-offsets.js';
export {
  renderScheduleObject,
  renderScheduleObjectVerbatim,
  collapseScheduleWhitespace,
  type ScheduleObject,
} from './render-object.js';
