// Test helpers (no tests here): the recorded reference vectors of test/golden/cluster, typed.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const GOLDEN_PATH = path.resolve(
  import.meta.dirname,
  '../../test/golden/cluster/cluster-golden.json',
);

export interface GoldenElectLeader {
  readonly node: string;
  readonly live: string[];
  readonly cluster_size: number;
  readonly candidates: string[] | null;
  readonly leader: string | null;
}
export interface GoldenElectJobOwner {
  readonly job: string;
  readonly node: string;
  readonly live: string[];
  readonly cluster_size: number;
  readonly candidates: string[] | null;
  readonly owner: string | null;
}
export type GoldenViewEvent =
  | {
      readonly op: 'success';
      readonly peer_name: string | null;
      readonly peer_id: string | null;
      readonly peer_scheme: string | null;
      readonly peer_instance: string | null;
      readonly my_id: string;
    }
  | { readonly op: 'failure'; readonly untrusted: boolean; readonly my_id: string };
export interface GoldenViewExpect {
  readonly status: string;
  readonly mismatch_streak: number;
  readonly self_confirmed: boolean;
  readonly last_error: string | null;
}
export interface GoldenViewSequence {
  readonly drift_after: number;
  readonly my_name: string;
  readonly my_instance: string;
  readonly events: GoldenViewEvent[];
  readonly expect: GoldenViewExpect[];
}
export interface GoldenPeerParse {
  readonly label: string;
  readonly me: string;
  readonly my_instance: string;
  readonly my_id: string;
  readonly responses: { status: number; headers: Record<string, string>; body: string }[];
  readonly if_none_match_sent: (string | null)[];
  readonly expect: Record<string, unknown>;
}
export interface GoldenMeshNode {
  readonly name: string;
  readonly instance_id: string;
  readonly hosts: string[];
  readonly peers: string[];
  readonly electLeader: boolean;
  readonly distribution: 'single-leader' | 'spread';
  readonly driftAfter: number;
  readonly job_set_id: string;
  readonly legacy: boolean;
}
export interface GoldenMesh {
  readonly nodes: GoldenMeshNode[];
  readonly links: Record<string, 'down' | 'untrusted'>;
  readonly rounds: number;
  readonly jobs: string[];
  readonly ran_local: Record<string, string[]>;
  readonly rounds_out: Record<string, unknown>[][];
  readonly node0_final_payload: Record<string, unknown>;
}

export interface ClusterGolden {
  readonly quorum_size: { n: number; quorum: number }[];
  readonly elect_leader: GoldenElectLeader[];
  readonly elect_available_leader: { node: string; agreeing: string[]; leader: string }[];
  readonly hrw_score: { job: string; node: string; score_hex: string }[];
  readonly hrw_owner: { job: string; members: string[]; owner: string }[];
  readonly elect_job_owner: GoldenElectJobOwner[];
  readonly elect_available_job_owner: {
    job: string;
    node: string;
    agreeing: string[];
    owner: string;
  }[];
  readonly view_sequences: GoldenViewSequence[];
  readonly peer_parse: GoldenPeerParse[];
  readonly meshes: GoldenMesh[];
}

let cached: ClusterGolden | undefined;

export function clusterGolden(): ClusterGolden {
  cached ??= JSON.parse(readFileSync(GOLDEN_PATH, 'utf8')) as ClusterGolden;
  return cached;
}

/** A short printable label for a case (names may hold astral and private-use code points). */
export function label(value: unknown): string {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/gu,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}
