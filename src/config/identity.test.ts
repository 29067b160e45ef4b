import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGroup, parsePasswd, resolveIdentity, type IdentityDatabase } from './identity.js';

function database(passwd: string, group: string): IdentityDatabase {
  return { ...parsePasswd(passwd), groupsByName: parseGroup(group) };
}

void test('a name whose passwd or group entry holds an id over 4294967294 is refused, not wrapped', () => {
  const db = database(
    'wide:x:4294967296:0::/:/bin/sh\nwidegid:x:1000:4294967296::/:/bin/sh\nok:x:1000:1000::/:/bin/sh\n',
    'widegroup:x:4294967295:\nstaff:x:50:\n',
  );
  assert.deepEqual(resolveIdentity('wide', null, db), {
    error: "User 'wide' has uid 4294967296 in the passwd file, outside 0..4294967294",
    field: 'user',
  });
  assert.deepEqual(resolveIdentity('widegid', null, db), {
    error: "User 'widegid' has gid 4294967296 in the passwd file, outside 0..4294967294",
    field: 'user',
  });
  assert.deepEqual(resolveIdentity('ok', 'widegroup', db), {
    error: "Group 'widegroup' has gid 4294967295 in the group file, outside 0..4294967294",
    field: 'group',
  });
  assert.deepEqual(resolveIdentity('ok', 'staff', db), { uid: 1000, gid: 50, userName: 'ok' });
  assert.deepEqual(resolveIdentity(4_294_967_294, null, db), {
    uid: 4_294_967_294,
    gid: 65_534,
    userName: null,
  });
});
