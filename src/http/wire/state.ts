// The state inspector's bodies (docs/http-api.md "State inspector"): `GET /state` (the store's
// identity and health, what it holds by prefix, leases, quarantine, this node's retries and
// slots), `GET /state/documents` and `GET /state/records`. Rendered by http/routes-state.ts.
// Types only.
import type { JsonObject, StoreView } from '../../state/index.js';

/** What one prefix (`runs`, `kv`, …) holds: its streams or namespaces, and their scopes. */
export interface PrefixWire {
  readonly count: number;
  readonly streams: number;
  readonly scopes: readonly { readonly scope: string; readonly count: number }[];
}

export interface StateOpWire {
  readonly count: number;
  readonly errors: number;
  readonly seconds: number;
}

export interface StateStatsWire {
  readonly ops: Readonly<Record<string, StateOpWire>>;
  readonly lock: { readonly acquisitions: number; readonly wait_seconds: number };
  readonly throttle: { readonly count: number; readonly wait_seconds: number };
  /** `writes` only while the store has a write queue. */
  readonly workers: {
    readonly writes?: {
      readonly inflight: number;
      readonly capacity: number;
      readonly pending: number;
      readonly max_pending: number;
    };
  };
}

/** An armed retry of this node (config order). */
export interface StateRetryWire {
  readonly job: string;
  readonly attempt: number;
  readonly nextRetryAt: string | null;
  readonly delaySeconds: number;
}

export interface StateOverviewWire {
  readonly enabled: true;
  readonly view: {
    readonly backend: StoreView['backend'];
    readonly path: string;
    readonly namespace: string;
    readonly topology: StoreView['topology'];
    readonly shared_locking: boolean;
    readonly job_set_id: string;
  };
  readonly stats: StateStatsWire;
  /** False when the inventory failed or timed out: the lists below are then empty. */
  readonly enumerable: boolean;
  readonly records: Readonly<Record<string, PrefixWire>>;
  readonly documents: Readonly<Record<string, PrefixWire>>;
  readonly leases: readonly {
    readonly name: string;
    readonly holder: string;
    readonly fence: number;
    /** Epoch seconds. */
    readonly expiresAt: number;
    readonly expired: boolean;
  }[];
  readonly quarantine: number;
  readonly node: {
    readonly host: string;
    readonly retries: readonly StateRetryWire[];
    readonly slots: readonly {
      readonly slot: string;
      readonly holder: string;
      readonly fence: number;
      readonly expiresAt: number;
      readonly refs: number;
    }[];
  };
}

/** `GET /state`: off (no `state` section), or the overview. */
export type StateWire = { readonly enabled: false } | StateOverviewWire;

/** `GET /state/documents?ns=`: KV values arrive as `valueSize` / `valueType`, never the value. */
export interface StateDocumentsWire {
  readonly namespace: string;
  readonly documents: readonly JsonObject[];
  readonly truncated: boolean;
}

/** `GET /state/records?stream=`: the newest record bodies, newest first. */
export interface StateRecordsWire {
  readonly stream: string;
  readonly records: readonly JsonObject[];
}
