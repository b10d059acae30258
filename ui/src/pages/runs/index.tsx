/**
 * Runs (issue 23 §2.4): `/ui/runs` lists the workflow runs with status and
 * key filters (RunList.tsx); `/ui/runs/<run_id>` shows one run with its steps,
 * attempts and evidence, and resumes or cancels it (RunDetail.tsx). Needs the
 * engine's HTTP API (`SVC_ENGINE_API_ENABLED=1`; without it the gateway
 * answers 404 and the page says so).
 */
import { useLocation } from "preact-iso"
import { RunDetail } from "./RunDetail.tsx"
import { RunList } from "./RunList.tsx"
import "./liveCapture.ts"

const PREFIX = "/ui/runs/"

/** The runs page: the list, or one run by the rest of the path. */
export default function RunsPage() {
  const { path } = useLocation()
  const rest = path.startsWith(PREFIX) ? decodeURIComponent(path.slice(PREFIX.length).replace(/\/+$/, "")) : ""
  return rest === "" ? <RunList /> : <RunDetail runId={rest} />
}
