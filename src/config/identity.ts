// User and group lookup for `user`/`group` (docs/configuration.md "User and group"). Node has no
// getpwnam, so the passwd and group files are parsed here; a missing or unreadable file simply has
// no entries. An id is refused unless it is a whole number from 0 to MAX_POSIX_ID.
// Must not: let an id through that a 32-bit uid_t/gid_t would turn into another one (2^32 is 0,
// root; 4294967295 is (uid_t)-1, "leave unchanged", so the daemon's root).
import { readFile } from 'node:fs/promises';
import { parseFloatText } from './scalars.js';

/** The largest uid or gid a job may run as (4294967295 is (uid_t)-1: "no change"). */
export const MAX_POSIX_ID = 4_294_967_294;

export interface PasswdEntry {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

export interface IdentityDatabase {
  readonly usersByName: ReadonlyMap<string, PasswdEntry>;
  readonly usersByUid: ReadonlyMap<number, PasswdEntry>;
  readonly groupsByName: ReadonlyMap<string, number>;
}

function parseId(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** `name:password:uid:gid:gecos:home:shell` lines; comments, NIS `+`/`-` and junk skipped. */
export function parsePasswd(text: string): Pick<IdentityDatabase, 'usersByName' | 'usersByUid'> {
  const usersByName = new Map<string, PasswdEntry>();
  const usersByUid = new Map<number, PasswdEntry>();
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    const name = fields[0];
    const uid = parseId(fields[2]);
    const gid = parseId(fields[3]);
    if (!name || name.startsWith('#') || name.startsWith('+') || name.startsWith('-')) continue;
    if (uid === undefined || gid === undefined) continue;
    const entry = { name, uid, gid };
    // First entry wins, like getpwnam/getpwuid scanning the file.
    if (!usersByName.has(name)) usersByName.set(name, entry);
    if (!usersByUid.has(uid)) usersByUid.set(uid, entry);
  }
  return { usersByName, usersByUid };
}

/** `name:password:gid:members` lines. */
export function parseGroup(text: string): ReadonlyMap<string, number> {
  const groups = new Map<string, number>();
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    const name = fields[0];
    const gid = parseId(fields[2]);
    if (!name || name.startsWith('#') || name.startsWith('+') || name.startsWith('-')) continue;
    if (gid === undefined || groups.has(name)) continue;
    groups.set(name, gid);
  }
  return groups;
}

async function readOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return '';
  }
}

export async function loadIdentityDatabase(
  passwdPath: string,
  groupPath: string,
): Promise<IdentityDatabase> {
  const [passwd, group] = await Promise.all([readOrEmpty(passwdPath), readOrEmpty(groupPath)]);
  return { ...parsePasswd(passwd), groupsByName: parseGroup(group) };
}

/**
 * The gid of a numeric user that /etc/passwd does not know, when no `group` is given: the
 * conventional nogroup/nobody gid. Keeping the daemon's gid (0, root) would make the privilege
 * drop incomplete.
 */
export const NOGROUP_GID = 65534;

export interface ResolvedIdentity {
  readonly uid: number | null;
  readonly gid: number | null;
  readonly userName: string | null;
}

type IdField = 'user' | 'group';

function idRangeError(field: IdField, written: string | number): string {
  return `${field} id must be a whole number from 0 to ${MAX_POSIX_ID}, got ${written}`;
}

/** A problem with a written `user`/`group`: a number out of range, or a number that is not whole. */
function writtenIdProblem(field: IdField, value: string | number): string | null {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value <= MAX_POSIX_ID
      ? null
      : idRangeError(field, value);
  }
  // `1.5`, `1e3`, `.inf`: a number, though not a whole one, never the name of a user.
  return parseFloatText(value) !== undefined ? idRangeError(field, value) : null;
}

/** An id found in the passwd or group file for a name (the files may hold any digits). */
function foundIdProblem(
  file: 'passwd' | 'group',
  name: string,
  kind: 'uid' | 'gid',
  id: number,
): string | null {
  if (Number.isSafeInteger(id) && id <= MAX_POSIX_ID) return null;
  const subject = file === 'passwd' ? 'User' : 'Group';
  return `${subject} '${name}' has ${kind} ${id} in the ${file} file, outside 0..${MAX_POSIX_ID}`;
}

/**
 * Numeric user: need not exist; when it does, its primary gid and login name are derived, and
 * when it does not, the gid is NOGROUP_GID unless `group` is given. Named user/group: must exist.
 * `group` overrides the gid derived from `user`.
 * Returns the error message (without the job prefix) and the failing field on failure.
 */
export function resolveIdentity(
  user: string | number | null,
  group: string | number | null,
  db: IdentityDatabase,
): ResolvedIdentity | { readonly error: string; readonly field: 'user' | 'group' } {
  let uid: number | null = null;
  let gid: number | null = null;
  let userName: string | null = null;
  for (const [field, value] of [
    ['user', user],
    ['group', group],
  ] as const) {
    const error = value === null ? null : writtenIdProblem(field, value);
    if (error !== null) return { error, field };
  }
  if (typeof user === 'number') {
    uid = user;
    const entry = db.usersByUid.get(user);
    if (entry) {
      gid = entry.gid;
      userName = entry.name;
    } else {
      gid = NOGROUP_GID;
    }
  } else if (user !== null) {
    const entry = db.usersByName.get(user);
    if (!entry) return { error: `User not found: '${user}'`, field: 'user' };
    const error =
      foundIdProblem('passwd', user, 'uid', entry.uid) ??
      foundIdProblem('passwd', user, 'gid', entry.gid);
    if (error !== null) return { error, field: 'user' };
    uid = entry.uid;
    gid = entry.gid;
    userName = entry.name;
  }
  if (typeof group === 'number') {
    gid = group;
  } else if (group !== null) {
    const found = db.groupsByName.get(group);
    if (found === undefined) return { error: `Group not found: '${group}'`, field: 'group' };
    const error = foundIdProblem('group', group, 'gid', found);
    if (error !== null) return { error, field: 'group' };
    gid = found;
  }
  return { uid, gid, userName };
}
