/**
 * Agent chat (issue 25 §7): one agent's session in the console, over
 * WebSocket. Pick the agent and the thread (channel `console`); a message
 * goes out as `session.send` and the reply streams in from `message.delta`
 * (useChat.ts); each turn shows the tools it used, the approvals its tool
 * calls wait for (inline, with Approve and Deny: ToolApproval.tsx) and its
 * context report (ReportView.tsx); a line starting with `/` runs as
 * `command.execute` and its output is shown. Beside the chat: the agent's
 * status (StatusPanel.tsx), its MCP servers (McpPanel.tsx), its subagents (SubagentsPanel.tsx) and the model
 * catalog (ModelsPanel.tsx).
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useResource } from "../../app/useResource.ts"
import { AgentField, DEFAULT_AGENT_ID } from "../../components/AgentField.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Composer } from "./Composer.tsx"
import { McpPanel } from "./McpPanel.tsx"
import { ModelsPanel } from "./ModelsPanel.tsx"
import { StatusPanel } from "./StatusPanel.tsx"
import { SubagentsPanel } from "./SubagentsPanel.tsx"
import { ThreadField } from "./ThreadField.tsx"
import { Transcript } from "./Transcript.tsx"
import { type Approval, CHANNEL, DEFAULT_THREAD, toolCallOf } from "./types.ts"
import { useChat } from "./useChat.ts"

/** The agent chat page. */
export default function AgentChatPage() {
  const canWrite = useCan("operator.write")
  const canAdmin = useCan("operator.admin")
  const [agent, setAgent] = useState(DEFAULT_AGENT_ID)
  const [thread, setThread] = useState(DEFAULT_THREAD)
  const chat = useChat(agent, thread)
  const canApprove = useCan("operator.approvals")
  // The session's tool-call approvals (`GET /approvals` needs operator.approvals: without it none are shown).
  const pending = useResource(
    () => (canApprove ? call((c) => c.approvals.list({ query: { status: "pending" } })) : Promise.resolve({ approvals: [] as ReadonlyArray<Approval> })),
    { events: ["approval.requested", "approval.resolved"] },
    [canApprove]
  )
  // Approvals decided on this page stay shown (decided) under their turn.
  const [decided, setDecided] = useState<ReadonlyMap<number, Approval>>(new Map())
  useEffect(() => setDecided(new Map()), [agent, thread])
  const approvals = useMemo(() => {
    const mine = new Map<number, Approval>()
    for (const approval of pending.data?.approvals ?? []) {
      if (chat.sessionId !== undefined && toolCallOf(approval)?.session_id === chat.sessionId) mine.set(approval.id, approval)
    }
    for (const [id, approval] of decided) mine.set(id, approval)
    return mine
  }, [pending.data, decided, chat.sessionId])

  return (
    <section aria-labelledby="agent-title">
      <h1 id="agent-title">Agent chat</h1>
      <div class="toolbar">
        <AgentField agent={agent} onChange={setAgent} />
        <ThreadField thread={thread} onChange={setThread} />
        <span class="count">
          channel <code>{CHANNEL}</code>{chat.sessionId ? <>, session <code>{chat.sessionId}</code></> : ", no session yet"}
        </span>
      </div>
      <div class="chat-layout">
        <div>
          <ErrorNote error={pending.error} />
          <Transcript turns={chat.turns} approvals={approvals}
            onDecided={(approval) => setDecided((all) => new Map(all).set(approval.id, approval))} />
          {canWrite
            ? <Composer busy={chat.busy} canCommand={canAdmin} onSend={(text) => void chat.send(text)} />
            : <p class="hint">Sending messages needs operator.write.</p>}
        </div>
        <div>
          <StatusPanel agent={agent} />
          <McpPanel />
          <SubagentsPanel agent={agent} />
          <ModelsPanel />
        </div>
      </div>
    </section>
  )
}
