/**
 * Drives workflow runs on a gateway for the workflow benchmark: starts them
 * with `POST /workflow/run` and learns that they finished from the WebSocket
 * events (`run.completed` / `run.failed` / `run.cancelled`, pushed to the
 * admin client) or, when the gateway sends none, by polling
 * `GET /workflow/runs/:id` every {@link POLL_INTERVAL_MS}.
 *
 * @module
 */
import type WebSocket from "ws"
import { openSocket } from "./ws-bench.ts"

/** Poll interval when the gateway sends no terminal run events. */
export const POLL_INTERVAL_MS = 10

const TERMINAL_EVENTS = new Set(["run.completed", "run.failed", "run.cancelled"])
const TERMINAL_STATUSES = new Set(["succeeded", "failed", "cancelled"])

/** How completion is observed. */
export type CompletionMode = "events" | "polling"

/** A connection to one gateway: start runs, await their end. */
export interface WorkflowClient {
  /** Starts a run; its `run_id`. */
  readonly start: (key: string, steps: ReadonlyArray<unknown>) => Promise<string>
  /** Resolves with the run's final status (`succeeded`, …). */
  readonly settled: (runId: string, mode: CompletionMode, timeoutMs?: number) => Promise<string>
  /** The run's final status from `GET /workflow/runs/:id`, or its current one. */
  readonly status: (runId: string) => Promise<string>
  /** True when a terminal event was received for the run. */
  readonly sawEvent: (runId: string) => boolean
  /**
   * When each event of the run arrived, in ms after its `POST /workflow/run`
   * was sent (`post.answered` is the POST's response), in arrival order;
   * forgotten once read.
   */
  readonly timeline: (runId: string) => ReadonlyArray<readonly [label: string, ms: number]>
  /** `GET /workflow/runs/:id` calls made so far. */
  readonly polls: () => number
  readonly close: () => Promise<void>
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Opens the admin WebSocket (events) and returns the client. */
export const connectWorkflowClient = async (url: string, token: string): Promise<WorkflowClient> => {
  const ws: WebSocket = await openSocket(url, token, true)
  const ended = new Map<string, string>()
  const waiting = new Map<string, (status: string) => void>()
  let polls = 0
  const timelines = new Map<string, Array<readonly [string, number]>>()
  const startedAt = new Map<string, number>()
  ws.on("message", (data) => {
    const now = performance.now()
    const message = JSON.parse(data.toString()) as {
      type?: string
      payload?: { run_id?: string; status?: string; step_index?: number; attempt_id?: string }
    }
    const runId = message.payload?.run_id
    if (message.type === undefined || runId === undefined) return
    const p = message.payload!
    // Attempts carry no step index; their id is `<run_id>:<step_index>:<attempt>`.
    const step = p.step_index ?? (typeof p.attempt_id === "string" ? /:(\d+):\d+$/.exec(p.attempt_id)?.[1] : undefined)
    const label = `${message.type}${step === undefined ? "" : ` #${step}`}${p.status === undefined ? "" : ` ${p.status}`}`
    let events = timelines.get(runId)
    if (events === undefined) {
      // Runs nobody reads (the probe's) must not pile up.
      if (timelines.size > 5000) timelines.delete(timelines.keys().next().value!)
      timelines.set(runId, events = [])
    }
    events.push([label, now])
    if (!TERMINAL_EVENTS.has(message.type)) return
    const status = message.payload?.status ??
      (message.type === "run.completed" ? "succeeded" : message.type === "run.failed" ? "failed" : "cancelled")
    ended.set(runId, status)
    waiting.get(runId)?.(status)
  })
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" }

  const start = async (key: string, steps: ReadonlyArray<unknown>): Promise<string> => {
    const t0 = performance.now()
    const res = await fetch(`${url}/workflow/run`, { method: "POST", headers, body: JSON.stringify({ key, steps }) })
    const body = await res.json() as { run_id?: string }
    if (res.status !== 200 || body.run_id === undefined) throw new Error(`POST /workflow/run: ${res.status} ${JSON.stringify(body)}`)
    startedAt.set(body.run_id, t0)
    const events = timelines.get(body.run_id) ?? []
    events.push(["post.answered", performance.now()])
    timelines.set(body.run_id, events)
    return body.run_id
  }
  const status = async (runId: string): Promise<string> => {
    polls++
    const res = await fetch(`${url}/workflow/runs/${runId}`, { headers })
    const body = await res.json() as { run?: { status?: string } }
    if (res.status !== 200) throw new Error(`GET /workflow/runs/${runId}: ${res.status} ${JSON.stringify(body)}`)
    return body.run?.status ?? "unknown"
  }
  const poll = async (runId: string, deadline: number): Promise<string> => {
    while (true) {
      const current = await status(runId)
      if (TERMINAL_STATUSES.has(current)) return current
      if (performance.now() > deadline) throw new Error(`run ${runId} still ${current} after the timeout`)
      await sleep(POLL_INTERVAL_MS)
    }
  }
  const settled = async (runId: string, mode: CompletionMode, timeoutMs = 30_000): Promise<string> => {
    const deadline = performance.now() + timeoutMs
    if (mode === "polling") return poll(runId, deadline)
    const early = ended.get(runId)
    if (early !== undefined) {
      ended.delete(runId)
      return early
    }
    const received = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs)
      waiting.set(runId, (s) => {
        clearTimeout(timer)
        resolve(s)
      })
    })
    waiting.delete(runId)
    ended.delete(runId)
    // No event in time: ask once, so a lost event shows as such rather than as a hang.
    return received ?? `no event (status ${await status(runId)})`
  }
  return {
    start,
    settled,
    status,
    sawEvent: (runId) => ended.has(runId),
    timeline: (runId) => {
      const t0 = startedAt.get(runId) ?? Number.NaN
      const events = (timelines.get(runId) ?? []).map(([label, t]) => [label, t - t0] as const).sort((a, b) => a[1] - b[1])
      timelines.delete(runId)
      startedAt.delete(runId)
      return events
    },
    polls: () => polls,
    close: () =>
      new Promise<void>((resolve) => {
        ws.once("close", () => resolve())
        ws.close()
      })
  }
}
