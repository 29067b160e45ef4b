// The `cluster` section: every key, rule and message for the gossip and lease backends, loaded
// through the real loader from real files (the daemon refuses the section until clustering is
// wired in; these loads accept it, as `-v` does).
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { dedent, expectConfigError, loadTree } from './config-fixture.test.js';
import type { ResolvedCluster, ResolvedGossipCluster } from './index.js';

const GOSSIP = dedent(`
  listen: "0.0.0.0:8443"
  tls:
    ca: certs/ca.pem
    cert: certs/a.pem
    key: certs/a.key
  peers:
    - host: b.internal:8443
    - host: c.internal:8443
`);

function clusterYaml(body: string): string {
  return `jobs:\ncluster:\n${dedent(body)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`)
    .join('\n')}\n`;
}

async function cluster(
  body: string,
  env: NodeJS.ProcessEnv = {},
  files: Record<string, string> = {},
): Promise<ResolvedCluster> {
  const { config } = await loadTree({ 'jobs.yaml': clusterYaml(body), ...files }, 'jobs.yaml', {
    env,
  });
  assert.ok(config.cluster);
  return config.cluster;
}

async function gossip(body: string): Promise<ResolvedGossipCluster> {
  const resolved = await cluster(body);
  assert.equal(resolved.backend, 'gossip');
  return resolved;
}

async function errors(body: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const message = await expectConfigError({ 'jobs.yaml': clusterYaml(body) }, 'jobs.yaml', {
    env,
  });
  return message.split('\n');
}

async function error(body: string): Promise<string> {
  const lines = await errors(body);
  assert.equal(lines.length, 1, lines.join('\n'));
  return lines[0]!;
}

// --- gossip -------------------------------------------------------------------------------------

void test('gossip: a minimal section resolves with the documented defaults', async () => {
  const { config, dir } = await loadTree({ 'jobs.yaml': clusterYaml(GOSSIP) }, 'jobs.yaml');
  const resolved = config.cluster as ResolvedGossipCluster;
  assert.equal(resolved.backend, 'gossip');
  assert.equal(resolved.nodeName, hostname());
  assert.deepEqual(
    {
      interval: resolved.intervalMs,
      driftAfter: resolved.driftAfter,
      timeout: resolved.connectTimeoutMs,
      electLeader: resolved.electLeader,
      distribution: resolved.distribution,
      share: resolved.shareNodeStats,
      peers: resolved.peers,
      listen: resolved.listen,
      advisories: resolved.advisories,
    },
    {
      interval: 30_000,
      driftAfter: 3,
      timeout: 10_000,
      electLeader: false,
      distribution: 'single-leader',
      share: false,
      peers: ['b.internal:8443', 'c.internal:8443'],
      listen: { text: '0.0.0.0:8443', host: '0.0.0.0', port: 8443 },
      advisories: [],
    },
  );
  assert.deepEqual(resolved.tls, {
    ca: path.join(dir, 'certs/ca.pem'),
    cert: path.join(dir, 'certs/a.pem'),
    key: path.join(dir, 'certs/a.key'),
  });
  assert.ok(Object.isFrozen(resolved) && Object.isFrozen(resolved.peers));
  assert.deepEqual(resolved.source, { file: 'jobs.yaml', line: 2 });
});

void test('gossip: listen, tls and peers are each required', async () => {
  assert.deepEqual(await errors('nodeName: a\nelectLeader: true'), [
    'Cannot load jobs.yaml at cluster.listen (line 2): cluster.backend gossip requires cluster.listen',
    'Cannot load jobs.yaml at cluster.tls (line 2): cluster.backend gossip requires cluster.tls',
    'Cannot load jobs.yaml at cluster.peers (line 2): cluster.backend gossip requires cluster.peers',
  ]);
});

void test('gossip: a tls block needs all three files', async () => {
  const message = await error(GOSSIP.replace('  key: certs/a.key\n', ''));
  assert.match(
    message,
    /^Cannot load jobs\.yaml at cluster\.tls \(line 4\): missing required key 'key'/,
  );
});

void test('addresses: host:port and [ipv6]:port, port 1..65535, with the reference messages', async () => {
  const cases: [string, string][] = [
    ['8443', "cluster.listen must be host:port, got '8443'"],
    ['host:', "cluster.listen must be host:port, got 'host:'"],
    ['host:0', "cluster.listen must be host:port, got 'host:0'"],
    ['host:65536', "cluster.listen must be host:port, got 'host:65536'"],
    ['host:84a3', "cluster.listen must be host:port, got 'host:84a3'"],
    [
      '::1:8443',
      "cluster.listen looks like a bare IPv6 address; write it as [ipv6]:port, got '::1:8443'",
    ],
    ['[::1]8443', "cluster.listen must be [ipv6]:port, got '[::1]8443'"],
    ['[::1:8443', "cluster.listen must be [ipv6]:port, got '[::1:8443'"],
    ['[::1]:99999', "cluster.listen must be [ipv6]:port, got '[::1]:99999'"],
  ];
  for (const [listen, expected] of cases) {
    assert.equal(
      await error(GOSSIP.replace('"0.0.0.0:8443"', `"${listen}"`)),
      `Cannot load jobs.yaml at cluster.listen (line 3): ${expected}`,
    );
  }
  assert.equal(
    await error(GOSSIP.replace('c.internal:8443', 'c.internal')),
    "Cannot load jobs.yaml at cluster.peers[1].host (line 10): cluster.peers[].host must be host:port, got 'c.internal'",
  );
  const v6 = await gossip(
    GOSSIP.replace('"0.0.0.0:8443"', '"[::]:8443"').replace('c.internal:8443', '"[fd00::3]:8443"'),
  );
  assert.deepEqual(v6.listen, { text: '[::]:8443', host: '::', port: 8443 });
  assert.deepEqual(v6.peers, ['b.internal:8443', '[fd00::3]:8443']);
});

void test('interval, driftAfter and connectTimeout: ranges, and connectTimeout is a strict integer', async () => {
  assert.equal(
    await error(`${GOSSIP}interval: 0`),
    'Cannot load jobs.yaml at cluster.interval (line 11): cluster.interval must be > 0',
  );
  assert.equal(
    await error(`${GOSSIP}driftAfter: 0`),
    'Cannot load jobs.yaml at cluster.driftAfter (line 11): cluster.driftAfter must be >= 1',
  );
  assert.equal(
    await error(`${GOSSIP}connectTimeout: 0`),
    'Cannot load jobs.yaml at cluster.connectTimeout (line 11): cluster.connectTimeout must be > 0',
  );
  assert.match(
    await error(`${GOSSIP}connectTimeout: 1.5`),
    /^Cannot load jobs\.yaml at cluster\.connectTimeout \(line 11\): expected an integer/,
  );
  const tuned = await gossip(`${GOSSIP}interval: 5\ndriftAfter: 1\nconnectTimeout: 2`);
  assert.deepEqual([tuned.intervalMs, tuned.driftAfter, tuned.connectTimeoutMs], [5000, 1, 2000]);
});

void test('nodeName: empty means the hostname; a control character or more than 256 code points is refused', async () => {
  assert.equal((await gossip(`${GOSSIP}nodeName: ""`)).nodeName, hostname());
  assert.equal((await gossip(`${GOSSIP}nodeName:`)).nodeName, hostname());
  assert.equal(
    (await gossip(`${GOSSIP}nodeName: "\u{1F600}".repeat(1)`.replace('.repeat(1)', ''))).nodeName,
    '\u{1F600}',
  );
  assert.equal(
    await error(`${GOSSIP}nodeName: "a\\tb"`),
    "Cannot load jobs.yaml at cluster.nodeName (line 11): cluster.nodeName must be at most 256 printable characters (peers refuse any other name on /peer, so this node could never agree with them), got 'a\\tb'",
  );
  assert.match(
    await error(`${GOSSIP}nodeName: ${'n'.repeat(257)}`),
    /cluster\.nodeName must be at most 256 printable characters/,
  );
  assert.equal(
    (await gossip(`${GOSSIP}nodeName: "${'\u{1F600}'.repeat(256)}"`)).nodeName.length,
    512,
    '256 code points is fine',
  );
});

void test('peers: exact duplicates and entries provably this node are dropped, first occurrences kept', async () => {
  const resolved = await gossip(`
    listen: "0.0.0.0:8443"
    nodeName: node-a
    tls:
      ca: ca.pem
      cert: a.pem
      key: a.key
    peers:
      - host: b:8443
      - host: b:8443
      - host: "0.0.0.0:8443"
      - host: 127.0.0.1:8443
      - host: 127.1.2.3:8443
      - host: "[::1]:8443"
      - host: node-a:8443
      - host: node-a:9443
      - host: localhost:8443
      - host: node-a.example.com:8443
      - host: c:8443
  `);
  assert.deepEqual(resolved.peers, [
    'b:8443',
    '[::1]:8443',
    'node-a:9443',
    'localhost:8443',
    'node-a.example.com:8443',
    'c:8443',
  ]);
});

void test('peers: the loopback family follows the wildcard (v6 under [::], both under *, none when not a wildcard)', async () => {
  const peersUnder = async (listen: string): Promise<readonly string[]> =>
    (
      await gossip(`
        listen: "${listen}"
        tls:
          ca: ca.pem
          cert: a.pem
          key: a.key
        peers:
          - host: 127.0.0.1:8443
          - host: "[::1]:8443"
          - host: "[0:0:0:0:0:0:0:1]:8443"
          - host: z:8443
      `)
    ).peers;
  assert.deepEqual(await peersUnder('[::]:8443'), ['127.0.0.1:8443', 'z:8443']);
  assert.deepEqual(await peersUnder('*:8443'), ['z:8443']);
  assert.deepEqual(await peersUnder('10.0.0.1:8443'), [
    '127.0.0.1:8443',
    '[::1]:8443',
    '[0:0:0:0:0:0:0:1]:8443',
    'z:8443',
  ]);
  assert.deepEqual(await peersUnder(':8443'), [
    '127.0.0.1:8443',
    '[::1]:8443',
    '[0:0:0:0:0:0:0:1]:8443',
    'z:8443',
  ]);
});

void test('electLeader: a 2-node cluster is refused, also when self entries leave only 2; attestation-only is fine', async () => {
  const twoNodes = dedent(`
    listen: "0.0.0.0:8443"
    tls:
      ca: ca.pem
      cert: a.pem
      key: a.key
    peers:
      - host: b:8443
  `);
  assert.match(
    await error(`${twoNodes}electLeader: true`),
    /^Cannot load jobs\.yaml at cluster\.peers \(line 8\): cluster\.electLeader needs a fault-tolerant cluster, but this config declares only 2 nodes \(1 peer\)\. .*strictly worse than a single replica/,
  );
  assert.match(
    await error(`${twoNodes}  - host: 127.0.0.1:8443\nelectLeader: true`),
    /declares only 2 nodes/,
  );
  assert.equal((await gossip(twoNodes)).peers.length, 1);
  const alone = await gossip(`${twoNodes.replace('b:8443', '127.0.0.1:8443')}electLeader: true`);
  assert.deepEqual(alone.peers, [], 'size 1: every entry was this node');
});

void test('advisories: an even election size, a peer that looks like this node, spread without election', async () => {
  const four = await gossip(`${GOSSIP}  - host: d:8443\nelectLeader: true`);
  assert.deepEqual(four.advisories, [
    'cluster.electLeader: an even cluster size (4 nodes) tolerates no more failures than 3 nodes (quorum 3) while having one more node that can fail; prefer an odd size',
  ]);
  const fqdn = await gossip(
    `${GOSSIP.replace('b.internal', 'node-a.example.com')}nodeName: node-a\nelectLeader: true`,
  );
  assert.match(
    fqdn.advisories[0] ?? '',
    /^cluster\.electLeader: 1 peer\(s\) look like this node listed by FQDN \(node-a\.example\.com:8443\)/,
  );
  const loopback = await gossip(
    `${GOSSIP.replace('"0.0.0.0:8443"', '"10.0.0.1:8443"').replace('b.internal', 'localhost')}electLeader: true`,
  );
  assert.match(
    loopback.advisories[0] ?? '',
    /^cluster\.electLeader: 1 peer\(s\) are loopback addresses on this node's own port \(localhost:8443\)/,
  );
  const spread = await gossip(`${GOSSIP}distribution: spread`);
  assert.match(
    spread.advisories[0] ?? '',
    /^cluster\.distribution='spread' has no effect without electLeader; /,
  );
  const five = await gossip(
    `${GOSSIP}  - host: d:8443\n  - host: localhost:8443\nelectLeader: true`,
  );
  assert.deepEqual(five.advisories, [], 'five nodes with one suspicious entry still leave three');
});

void test('a store block under another backend is refused, even when empty', async () => {
  assert.equal(
    await error(`${GOSSIP}kubernetes:`),
    "Cannot load jobs.yaml at cluster.kubernetes (line 11): cluster.kubernetes is configured but cluster.backend is 'gossip'; that store block would be silently ignored. Set backend: kubernetes to use it, or remove the cluster.kubernetes block.",
  );
  assert.match(
    await error('backend: etcd\nfilesystem:\n  path: /x'),
    /cluster\.filesystem is configured but cluster\.backend is 'etcd'/,
  );
});

void test('observability under gossip: an empty block shares node stats; listen/tls/peers are redundant; mesh keys advise', async () => {
  assert.equal((await gossip(`${GOSSIP}observability:`)).shareNodeStats, true);
  assert.equal(
    (await gossip(`${GOSSIP}observability:\n  shareNodeStats: false`)).shareNodeStats,
    false,
  );
  assert.match(
    await error(`${GOSSIP}observability:\n  listen: "0.0.0.0:9443"`),
    /^Cannot load jobs\.yaml at cluster\.observability\.listen \(line 12\): cluster\.observability\.listen is redundant with backend: gossip/,
  );
  const advised = await gossip(`${GOSSIP}observability:\n  interval: 5`);
  assert.match(
    advised.advisories[0] ?? '',
    /^cluster\.observability\.interval only applies to the overlay mesh/,
  );
});

// --- lease backends -----------------------------------------------------------------------------

void test('kubernetes: defaults, forced election, identity defaulting to nodeName', async () => {
  const resolved = await cluster('backend: kubernetes\nnodeName: pod-0\nkubernetes:');
  assert.equal(resolved.backend, 'kubernetes');
  if (resolved.backend !== 'kubernetes') return;
  assert.equal(resolved.electLeader, true);
  assert.deepEqual(resolved.kubernetes, {
    leaseName: 'yacron2-leader',
    leaseNamespace: null,
    leaseDurationSeconds: 15,
    renewDeadlineSeconds: 10,
    retryPeriodSeconds: 2,
    identity: 'pod-0',
    kubeconfig: null,
    apiServer: null,
    clientLibrary: 'auto',
  });
  assert.deepEqual(resolved.advisories, []);
  assert.equal(resolved.observabilityMesh, null);
});

void test('kubernetes: names, the three timings (one error per rule) and an https apiServer', async () => {
  assert.deepEqual(
    await errors(
      'backend: kubernetes\nkubernetes:\n  leaseName: Bad_Name\n  leaseNamespace: "-ns"\n  apiServer: "http://user:pw@api:6443"',
    ),
    [
      "Cannot load jobs.yaml at cluster.kubernetes.leaseName (line 5): cluster.kubernetes.leaseName must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most 253 characters), got 'Bad_Name'",
      "Cannot load jobs.yaml at cluster.kubernetes.leaseNamespace (line 6): cluster.kubernetes.leaseNamespace must be a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters), got '-ns'",
      "Cannot load jobs.yaml at cluster.kubernetes.apiServer (line 7): cluster.kubernetes.apiServer must be an https:// URL, got 'http://***@api:6443'",
    ],
  );
  const timing = await errors(
    'backend: kubernetes\nkubernetes:\n  leaseDurationSeconds: 10\n  renewDeadlineSeconds: 10\n  retryPeriodSeconds: 10',
  );
  assert.deepEqual(
    timing.map((line) => line.replace(/^Cannot load jobs\.yaml at (\S+) .*?: /, '$1: ')),
    [
      'cluster.kubernetes.leaseDurationSeconds: cluster.kubernetes: leaseDurationSeconds (10) must be greater than renewDeadlineSeconds (10)',
      'cluster.kubernetes.retryPeriodSeconds: cluster.kubernetes: retryPeriodSeconds (10) must be less than renewDeadlineSeconds (10)',
      'cluster.kubernetes.renewDeadlineSeconds: cluster.kubernetes: renewDeadlineSeconds (10) + retryPeriodSeconds (10) must be less than leaseDurationSeconds (10), so a renew that just misses its deadline still leaves a retry inside the lease',
    ],
  );
  assert.match(
    (await errors('backend: kubernetes\nkubernetes:\n  renewDeadlineSeconds: 0'))[0] ?? '',
    /renewDeadlineSeconds must be > 0 \(got 0\)/,
  );
  assert.match(
    (await errors('backend: kubernetes\nkubernetes:\n  retryPeriodSeconds: 0'))[0] ?? '',
    /retryPeriodSeconds must be > 0 \(got 0\)/,
  );
});

void test('lease backends: spread is refused; gossip keys and electLeader false are advisories', async () => {
  assert.match(
    await error('backend: etcd\ndistribution: spread'),
    /^Cannot load jobs\.yaml at cluster\.distribution \(line 4\): cluster\.distribution: spread is not supported with the 'etcd' backend/,
  );
  const advised = await cluster(`backend: kubernetes\nelectLeader: false\ninterval: 0\n${GOSSIP}`);
  assert.deepEqual(advised.advisories, [
    "cluster.listen, cluster.tls, cluster.peers, cluster.interval configured but ignored by the 'kubernetes' backend (those keys apply only to backend: gossip); note cluster.tls does NOT secure the lease store -- the store's own credentials do",
    "cluster.electLeader: false is ignored by the 'kubernetes' backend; a lease backend always enables leader election",
  ]);
  assert.equal(advised.electLeader, true, 'interval 0 is not range-checked off gossip');
});

void test('etcd: defaults, and each endpoint is http(s)://host[:port] without credentials', async () => {
  const resolved = await cluster('backend: etcd');
  assert.equal(resolved.backend, 'etcd');
  if (resolved.backend === 'etcd') {
    assert.deepEqual(resolved.etcd.endpoints, ['http://127.0.0.1:2379']);
    assert.equal(resolved.etcd.electionName, 'yacron2/leader');
    assert.equal(resolved.etcd.ttlSeconds, 15);
  }
  const bad = await errors(
    'backend: etcd\netcd:\n  endpoints:\n    - http://root:secret@etcd:2379\n    - ftp://etcd:2379\n    - http://etcd:0\n    - https://:2379',
  );
  assert.deepEqual(
    bad.map((line) => line.replace(/^.*?: cluster/, 'cluster')),
    [
      "cluster.etcd.endpoints entry must not embed credentials in the URL (use cluster.etcd.username/password), got 'http://***@etcd:2379'",
      "cluster.etcd.endpoints entry must be http(s)://host[:port], got 'ftp://etcd:2379'",
      "cluster.etcd.endpoints entry must be http(s)://host[:port], got 'http://etcd:0'",
      "cluster.etcd.endpoints entry must be http(s)://host[:port], got 'https://:2379'",
    ],
  );
  assert.ok(!bad.join('\n').includes('secret'), 'a credential never reaches a message');
});

void test('etcd: ttl >= 3, with a budget advisory for short ttls', async () => {
  // https without authentication: no advisory of its own (plain http has one, below).
  const etcd = 'backend: etcd\netcd:\n  endpoints:\n    - https://etcd:2379\n';
  assert.match(await error(`${etcd}  ttl: 2`), /cluster\.etcd\.ttl must be >= 3 seconds/);
  assert.equal(
    (await cluster(`${etcd}  ttl: 3`)).advisories[0],
    'cluster.etcd.ttl is 3s: each etcd request then gets 0.50 s within a round (half its deadline); an etcd answering slower than that costs leadership. Consider ttl >= 5',
  );
  assert.match((await cluster(`${etcd}  ttl: 4`)).advisories[0] ?? '', /^cluster\.etcd\.ttl is 4s/);
  assert.deepEqual((await cluster(`${etcd}  ttl: 5`)).advisories, []);
});

void test('etcd: no authentication over http:// is accepted with one advisory naming those endpoints', async () => {
  const plain = await cluster(
    'backend: etcd\netcd:\n  endpoints:\n    - http://etcd-a:2379\n    - https://etcd-b:2379\n    - HTTP://etcd-c:2379\n',
  );
  assert.deepEqual(plain.advisories, [
    "cluster.etcd: no authentication over plain http:// (http://etcd-a:2379, HTTP://etcd-c:2379): whatever reaches etcd there, any job of this node included, can revoke the leader's lease or overwrite the election; set username and password with https:// endpoints, or keep etcd reachable by this daemon alone",
  ]);
  // The default endpoint is plain http on loopback: every job of the node reaches it.
  assert.match(
    (await cluster('backend: etcd\n')).advisories.join('\n'),
    /plain http:\/\/ \(http:\/\/127\.0\.0\.1:2379\)/,
  );
  const https = 'backend: etcd\netcd:\n  endpoints:\n    - https://etcd:2379\n';
  assert.deepEqual((await cluster(https)).advisories, [], 'https without a password: no advisory');
  const authenticated = await cluster(`${https}  username: root\n  password:\n    value: pw\n`);
  assert.deepEqual(authenticated.advisories, [], 'authenticated over https: no advisory');
});

void test('etcd: the password resolves once from exactly one source; auth needs https', async () => {
  const https = 'backend: etcd\netcd:\n  endpoints:\n    - https://etcd:2379\n  username: root\n';
  const fromEnv = await cluster(`${https}  password:\n    fromEnvVar: ETCD_PW`, {
    ETCD_PW: 's3cret',
  });
  assert.equal(fromEnv.backend === 'etcd' && fromEnv.etcd.password, 's3cret');
  const fromFile = await cluster(
    `${https}  password:\n    fromFile: pw.txt`,
    {},
    { 'pw.txt': '  filepw\n' },
  );
  assert.equal(fromFile.backend === 'etcd' && fromFile.etcd.password, 'filepw');
  assert.match(
    (await errors(`${https}  password:\n    fromEnvVar: UNSET`))[0] ?? '',
    /cluster\.etcd\.password is configured but resolved to an empty secret$/,
  );
  assert.match(
    (await errors(`${https}  password:\n    fromFile: missing.txt`))[0] ?? '',
    /cluster\.etcd\.password\.fromFile could not be read: no such file or directory$/,
  );
  assert.match(
    (
      await errors(`${https}  password:\n    value: a\n    fromEnvVar: ETCD_PW`, { ETCD_PW: 'b' })
    )[0] ?? '',
    /cluster\.etcd\.password: set exactly one of value, fromFile or fromEnvVar \(found value, fromEnvVar\)$/,
  );
  assert.match(
    (await errors(https))[0] ?? '',
    /at cluster\.etcd\.username \(line 7\): cluster\.etcd\.username is set but no password is configured/,
  );
  const plain = await errors('backend: etcd\netcd:\n  username: root\n  password:\n    value: pw');
  assert.deepEqual(
    plain.map((line) => line.replace(/^.*?: cluster/, 'cluster')),
    [
      'cluster.etcd: authentication (username/password) requires https:// endpoints, so the credentials never cross the network in clear: http://127.0.0.1:2379',
    ],
  );
});

void test('etcd: tls needs an https endpoint, and cert with key', async () => {
  assert.match(
    await error('backend: etcd\netcd:\n  tls:\n    ca: ca.pem'),
    /cluster\.etcd\.tls is configured but no endpoint is https:\/\//,
  );
  assert.match(
    await error(
      'backend: etcd\netcd:\n  endpoints:\n    - https://e:2379\n  tls:\n    cert: c.pem',
    ),
    /cluster\.etcd\.tls: set cert and key together, or neither/,
  );
});

void test('filesystem: a path is required; ttl is a finite number >= 3; deploymentId is a plain name', async () => {
  assert.match(
    await error('backend: filesystem'),
    /^Cannot load jobs\.yaml at cluster\.filesystem\.path \(line 2\): cluster\.filesystem\.path is required and must be non-empty/,
  );
  const lines = await errors(
    'backend: filesystem\nfilesystem:\n  path: /mnt/x\n  ttl: 2.5\n  deploymentId: ".."',
  );
  assert.deepEqual(
    lines.map((line) => line.replace(/^.*?: cluster/, 'cluster')),
    [
      'cluster.filesystem.ttl must be a finite number >= 3 seconds, got 2.5',
      "cluster.filesystem.deploymentId must be a plain name (no '/', '\\', control characters, '.' or '..'), found '..'",
    ],
  );
  const resolved = await cluster('backend: filesystem\nfilesystem:\n  path: /mnt/x\n  ttl: 7.5');
  assert.deepEqual(resolved.backend === 'filesystem' && resolved.filesystem, {
    path: '/mnt/x',
    electionName: 'cluster/leader',
    ttlSeconds: 7.5,
    deploymentId: null,
    topology: 'auto',
  });
});

void test('lease observability overlay: listen, tls and peers required; nodeName defaults to cluster.nodeName', async () => {
  assert.deepEqual(
    (await errors('backend: etcd\nobservability:')).map((line) =>
      line.replace(/^.*?: cluster/, 'cluster'),
    ),
    ['listen', 'tls', 'peers'].map(
      (key) =>
        `cluster.observability requires cluster.observability.${key} when backend is 'etcd' (the overlay is a gossip mesh of its own)`,
    ),
  );
  const overlayBody = GOSSIP.split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`)
    .join('\n');
  const resolved = await cluster(
    `backend: etcd\nnodeName: etcd-a\nobservability:\n${overlayBody}\n  interval: 7`,
  );
  assert.ok(resolved.backend === 'etcd' && resolved.observabilityMesh);
  assert.equal(resolved.observabilityMesh.nodeName, 'etcd-a');
  assert.equal(resolved.observabilityMesh.electLeader, false);
  assert.equal(resolved.observabilityMesh.intervalMs, 7000);
  assert.equal(resolved.shareNodeStats, true);
  const bad = await errors(
    `backend: etcd\nobservability:\n${overlayBody}\n  nodeName: "a\\a"\n  connectTimeout: 0`,
  );
  assert.deepEqual(
    bad.map((line) => line.replace(/^.*?: cluster/, 'cluster')),
    [
      "cluster.observability.nodeName must be at most 256 printable characters (peers refuse any other name on /peer, so this node could never agree with them), got 'a\\x07'",
      'cluster.observability.connectTimeout must be > 0',
    ],
  );
});
