/**
 * The chat of one agent thread: the transcript this page sent, kept current
 * by the turn's events. A message goes out as `session.send` (it answers once
 * the turn ends) while `typing.started`, `message.delta` (the reply's text,
 * shown as it arrives), `message.final` (the whole reply and the tools it
 * used) and `context_report.created` come in over the same connection; text
 * starting with `/` goes out as `command.execute` and its output is shown.
 *
 * The transcript lives in the page: the gateway keeps the session's history
 * for the model but serves no transcript, so a reload starts an empty one (the
 * session and its history go on).
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { onEvent, request } from "../../app/live.ts"
import { CHANNEL, type Turn } from "./types.ts"

/** How long a turn may take before the page stops waiting for its answer (ms; a provider call times out after 60 s). */
const TURN_TIMEOUT_MS = 300_000

/** What {@link useChat} answers. */
export interface Chat {
  readonly turns: ReadonlyArray<Turn>
  /** The session of (agent, `console`, thread), once known (a turn ran in it, or a report names it). */
  readonly sessionId: string | undefined
  /** True while a message or command is on its way. */
  readonly busy: boolean
  /** Sends `text`: a slash command when it starts with `/`, else a message. */
  readonly send: (text: string) => Promise<void>
}

/** The payload fields the page reads from the turn events. */
interface TurnEventPayload {
  readonly session_id?: string
  readonly agent_id?: string
  readonly channel?: string
  readonly thread_id?: string
  readonly delta?: string
  readonly content?: string
  readonly used_tools?: ReadonlyArray<string>
  readonly context_report_id?: string
}

/** The newest report of (agent, `console`, thread), to find the session of a thread that had turns before. */
const findSession = async (agent: string, thread: string): Promise<string | undefined> => {
  const list = await call((c) => c.agent.contextList({ query: { limit: 200 } }))
  return list.reports.find((r) => r.agent_id === agent && r.channel === CHANNEL && r.thread_id === thread)?.session_id
}

/** The chat of `agent` in `thread` (channel `console`). */
export const useChat = (agent: string, thread: string): Chat => {
  const [turns, setTurns] = useState<ReadonlyArray<Turn>>([])
  const [sessionId, setSessionState] = useState<string | undefined>(undefined)
  const session = useRef<string | undefined>(undefined)
  // The message whose turn runs now: its `message.delta` events append to its reply.
  const inflight = useRef<number | undefined>(undefined)
  const nextId = useRef(1)

  const setSession = (id: string | undefined) => {
    session.current = id
    setSessionState(id)
  }
  const patch = (id: number | undefined, f: (turn: Turn) => Partial<Turn>) =>
    setTurns((all) => all.map((turn) => (turn.id === id ? { ...turn, ...f(turn) } : turn)))
  /** The message turn an event without a delta belongs to: the running one, else the newest still missing it. */
  const latest = (all: ReadonlyArray<Turn>, missing: (turn: Turn) => boolean): number | undefined =>
    inflight.current ?? [...all].reverse().find((turn) => turn.kind === "message" && turn.state !== "failed" && missing(turn))?.id

  useEffect(() => {
    setTurns([])
    setSession(undefined)
    inflight.current = undefined
    let current = true
    findSession(agent, thread).then((id) => {
      if (current && session.current === undefined && id !== undefined) setSession(id)
    }, () => undefined)
    return () => {
      current = false
    }
  }, [agent, thread])

  useEffect(() => onEvent((event) => {
    const p = event.payload as TurnEventPayload
    if (p.agent_id !== agent) return
    if (event.type === "context_report.created") {
      if (p.session_id !== session.current || p.context_report_id === undefined) return
      const reportId = p.context_report_id
      setTurns((all) => {
        const id = latest(all, (turn) => turn.reportId === undefined)
        return all.map((turn) => (turn.id === id ? { ...turn, reportId } : turn))
      })
      return
    }
    if (p.channel !== CHANNEL || p.thread_id !== thread) return
    switch (event.type) {
      case "typing.started":
        if (p.session_id !== undefined) setSession(p.session_id)
        patch(inflight.current, (turn) => (turn.state === "sending" ? { state: "streaming" } : {}))
        return
      case "message.delta":
        patch(inflight.current, (turn) => (turn.final ? {} : { state: "streaming", reply: turn.reply + (p.delta ?? "") }))
        return
      case "message.final":
        setTurns((all) => {
          const id = latest(all, (turn) => !turn.final)
          return all.map((turn) =>
            turn.id === id ? { ...turn, reply: p.content ?? turn.reply, usedTools: p.used_tools ?? [], final: true } : turn
          )
        })
        return
    }
  }), [agent, thread])

  const send = useCallback(async (text: string) => {
    const id = nextId.current++
    const kind = text.startsWith("/") ? "command" : "message"
    setTurns((all) => [...all, { id, kind, text, reply: "", state: "sending", usedTools: [], final: false }])
    try {
      if (kind === "command") {
        const answer = await request("command.execute", { command: text, agent_id: agent, channel: CHANNEL, thread_id: thread })
        const named = (answer.data as { session?: { session_id?: unknown } } | undefined)?.session?.session_id
        if (typeof named === "string") setSession(named)
        patch(id, () => ({ reply: answer.output, state: "done" }))
      } else {
        inflight.current = id
        const answer = await request(
          "session.send",
          { agent_id: agent, channel: CHANNEL, thread_id: thread, content: text },
          { timeoutMs: TURN_TIMEOUT_MS }
        )
        setSession(answer.session_id)
        patch(id, () => ({ reply: answer.assistant_message, state: "done" }))
      }
    } catch (error) {
      patch(id, () => ({ state: "failed", error }))
    } finally {
      if (inflight.current === id) inflight.current = undefined
    }
  }, [agent, thread])

  const busy = turns.some((turn) => turn.state === "sending" || turn.state === "streaming")
  return { turns, sessionId, busy, send }
}
