// The `GET /peer` body as one type (docs/clustering.md "The /peer payload"): what
// payload-build.ts produces for our own node and what payload-parse.ts returns for a peer's, so
// the two sides of the gossip cannot drift apart; likewise the `POST /reboot-ran` body. Field names and key order are the wire's; the
// nullable fields are the ones a poller tolerates as absent (an older or a Python peer).
// Types only.

/** One entry of `members`. */
export interface PeerMemberWire {
  readonly node_name: string;
  /** Our own advertisement may carry null for a peer that sent none; a parsed entry never does. */
  readonly instance_id: string | null;
  readonly agreed: boolean;
}

/** A job's last outcome in `job_summaries` (display only). */
export interface JobSummaryLastWire {
  readonly outcome: 'success' | 'failure' | 'cancelled' | 'unknown';
  readonly finished_at: string;
  /** Seconds. */
  readonly duration: number | null;
  readonly exit_code: number | null;
}

/** One job of `job_summaries` (docs/clustering.md "Job summaries"). */
export interface JobSummaryWire {
  readonly running: boolean;
  readonly enabled: boolean;
  /** Seconds until the next fire when the body was built. */
  readonly scheduled_in: number | null;
  readonly last: JobSummaryLastWire | null;
}

/** `job_summaries`: job name → summary (an own `__proto__` key is an ordinary job name). */
export type JobSummariesWire = Readonly<Record<string, JobSummaryWire>>;

/** The `/peer` body, keys in the reference's order. */
export interface PeerPayload {
  readonly node_name: string | null;
  readonly job_set_id: string | null;
  readonly scheme_version: string | null;
  /** null: a legacy peer. */
  readonly instance_id: string | null;
  readonly cluster_size: number | null;
  readonly distribution: string | null;
  readonly elect_leader: boolean | null;
  /** null: not a list (a legacy peer, taken to see us). */
  readonly members: readonly PeerMemberWire[] | null;
  /** Distinct names (a parsed list is deduplicated and capped). */
  readonly ran_reboot_jobs: readonly string[];
  readonly mutual_agreeing: readonly string[];
  readonly quorate_vouched: readonly string[];
  /** null: not reported (the poller keeps the previous snapshot). */
  readonly job_summaries: JobSummariesWire | null;
  readonly job_summaries_truncated: boolean;
}

/** The `POST /reboot-ran` body (docs/clustering.md "The peer endpoint"). */
export interface RebootRanPayload {
  /** The sender's live job-set id; null when a peer sent none (or not a string). */
  readonly job_set_id: string | null;
  /** Distinct names (a parsed list is deduplicated and capped like `ran_reboot_jobs`). */
  readonly names: readonly string[];
}
