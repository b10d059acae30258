/** The playbook shapes, from the declarations the server uses (services/playbooks/schema.ts). */
export type {
  PlaybookDetail,
  PlaybookDryRun,
  PlaybookDryRunStep,
  PlaybookExecuteRequest,
  PlaybookSummary
} from "../../../../services/playbooks/schema.ts"
import type { PlaybookExecuteRequest } from "../../../../services/playbooks/schema.ts"

/** A workflow lane. */
export type Lane = NonNullable<PlaybookExecuteRequest["lane"]>

/** The lanes a run may take (docs/workflow-runs.md "Keys and lanes"); `main` when none is given. */
export const LANES: ReadonlyArray<Lane> = ["main", "cron", "heartbeat", "subagent"]
