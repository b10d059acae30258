/**
 * Approvals in the chat (issue 26 §3; docs/messenger.md "Approvals in the
 * chat"): a `tool_call` approval raised by a turn of a messenger session is
 * also sent to that session's chat, with approve / deny buttons whose
 * callback data is signed (callbackData.ts) and single use.
 *
 * - **Sent** in reaction to the `ApprovalCreated` domain event (in the
 *   background: the turn never waits for the messenger).
 * - **A press** (a `callback_query` update through the ingress) is checked in
 *   order: the data's shape and signature for this prompt and chat (else
 *   `invalid`), the chat listed in the routing configuration's
 *   `messenger.operators` (else `refused`), the approval still pending and
 *   the prompt not used yet (else `already_resolved`); then it is resolved
 *   through `Approvals.respond` (the rules of `POST /approvals/:id/respond`,
 *   resolved by `{kind: "http", principal: "messenger:<chat>:<user>"}`).
 *   Every press is answered with `answerCallbackQuery` saying what happened;
 *   only the first valid one changes anything.
 * - **Resolved** (`ApprovalResolved`, whoever resolved it, however): the
 *   prompt message is edited to show the outcome (its buttons go), and the
 *   session gets a follow-up item `approval:<id>` in the inbox, so its next
 *   turn runs (an approved call runs then) and the reply reaches the chat.
 *
 * @module
 */
import { Clock, Context, Effect, Layer, Redacted } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { AgentRepo, type AgentSessionRow } from "../agent/AgentRepo.ts"
import { Approvals } from "../approvals/Approvals.ts"
import { ApprovalCreated, ApprovalResolved } from "../approvals/domainEvents.ts"
import type { Approval } from "../approvals/schema.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { RoutingConfigService } from "../routing/RoutingConfigService.ts"
import { isoTime } from "../shared/time.ts"
import { callbackKey, newNonce, parseButton, signButton, verifyButton } from "./callbackData.ts"
import { Deliveries } from "./Deliveries.ts"
import { InboxRepo } from "./InboxRepo.ts"
import { InboxWorker, laneOf } from "./InboxWorker.ts"
import { MessengerClient } from "./MessengerClient.ts"
import { accountOf, type CallbackQuery, MESSENGER_CHANNEL } from "./normalize.ts"
import type { CallbackOutcome, IngressCallback } from "./schema.ts"

/** What the presser is told, by outcome. */
export const CALLBACK_ANSWERS: Record<CallbackOutcome, (approvalId: number | undefined, status?: string) => string> = {
  approved: (id) => `Approval ${id} approved.`,
  denied: (id) => `Approval ${id} denied.`,
  already_resolved: (id, status) => `Approval ${id} was already ${status ?? "resolved"}; nothing changed.`,
  refused: () => "Sorry, approvals can only be resolved from an operator chat.",
  invalid: () => "Sorry, this button is not valid (it may be out of date)."
}

/** The line an approval's prompt is edited to end with. */
const outcomeLine = (approval: Approval): string => {
  const by = approval.resolution?.resolved_by?.principal
  switch (approval.status) {
    case "approved":
      return `Approved${by !== undefined ? ` by ${by}` : ""}.`
    case "denied":
      return `Denied${by !== undefined ? ` by ${by}` : ""}.`
    case "expired":
      return "Expired without a decision."
    case "cancelled":
      return "Cancelled."
    default:
      return "Waiting for a decision."
  }
}

/** The session a tool call approval's context names, when it is one. */
const sessionIdOf = (approval: Approval): string | undefined => {
  if (approval.kind !== "tool_call") return undefined
  const call = (approval.context as { readonly tool_call?: { readonly session_id?: unknown } } | null)?.tool_call
  return typeof call?.session_id === "string" ? call.session_id : undefined
}

/** Approve / deny buttons in messenger chats. */
export class ChatApprovals extends Context.Service<ChatApprovals, {
  /** Handles a button press (a `callback_query` update); always answers it, never fails. */
  readonly press: (query: CallbackQuery) => Effect.Effect<IngressCallback>
}>()("svc-gateway/messenger/ChatApprovals") {
  /**
   * Needs {@link InboxRepo}, {@link Deliveries}, {@link MessengerClient}, {@link InboxWorker}, `AgentRepo`,
   * `Approvals`, `RoutingConfigService`, `DomainEvents` and `GatewayConfig`; subscribes to the approvals' domain
   * events (for the layer's lifetime) when the messenger integration is on.
   */
  static readonly layerNoDeps = Layer.effect(
    ChatApprovals,
    Effect.gen(function*() {
      const layerScope = yield* Effect.scope
      const repo = yield* InboxRepo
      const deliveries = yield* Deliveries
      const client = yield* MessengerClient
      const inbox = yield* InboxWorker
      const sessions = yield* AgentRepo
      const approvals = yield* Approvals
      const routing = yield* RoutingConfigService
      const domainEvents = yield* DomainEvents
      const settings = yield* GatewayConfig
      const account = accountOf(settings.messengerBotToken === undefined ? undefined : Redacted.value(settings.messengerBotToken))
      const secret = settings.messengerWebhookSecret
      const key = secret === undefined ? undefined : callbackKey(Redacted.value(secret))
      const now = Effect.map(Clock.currentTimeMillis, isoTime)

      /** The messenger session of a tool call approval, when it came from one. */
      const messengerSession = (approval: Approval): Effect.Effect<AgentSessionRow | undefined> => {
        const sessionId = sessionIdOf(approval)
        if (sessionId === undefined) return Effect.succeed(undefined)
        return Effect.map(sessions.getSession(sessionId), (session) => (session?.channel === MESSENGER_CHANNEL ? session : undefined))
      }

      const onCreated = Effect.fnUntraced(function*(approval: Approval) {
        if (key === undefined) return
        const session = yield* messengerSession(approval)
        if (session === undefined) return
        const chatId = session.thread_id
        const nonce = newNonce()
        const fresh = yield* repo.insertPrompt({
          approval_id: approval.id,
          account,
          chat_id: chatId,
          nonce,
          platform_message_id: null,
          created_at: yield* now,
          used_at: null,
          used_by: null
        })
        if (!fresh) return
        const buttons = [[
          { text: "Approve", callback_data: signButton(key, approval.id, "approved", nonce, chatId) },
          { text: "Deny", callback_data: signButton(key, approval.id, "denied", nonce, chatId) }
        ]]
        const receipt = yield* deliveries.deliver(
          { account, chatId, kind: "approval", approvalId: approval.id },
          client.sendMessage(chatId, `${approval.prompt} (approval ${approval.id})`, buttons)
        )
        if (receipt.platform_message_id !== undefined) yield* repo.setPromptMessage(approval.id, receipt.platform_message_id)
      })

      const onResolved = Effect.fnUntraced(function*(approval: Approval) {
        const prompt = yield* repo.prompt(approval.id)
        if (prompt !== undefined && prompt.platform_message_id !== null) {
          yield* deliveries.deliver(
            { account: prompt.account, chatId: prompt.chat_id, kind: "approval_outcome", approvalId: approval.id },
            client.editMessageText(prompt.chat_id, prompt.platform_message_id, `${approval.prompt} (approval ${approval.id})\n\n${outcomeLine(approval)}`)
          )
        }
        const session = yield* messengerSession(approval)
        if (session === undefined) return
        const at = yield* now
        const text = `Approval ${approval.id} was ${approval.status}.`
        yield* inbox.enqueue({
          account,
          chat_id: session.thread_id,
          message_id: `approval:${approval.id}`,
          agent_id: session.agent_id,
          session_key: laneOf(session.agent_id, session.thread_id),
          text,
          envelope: {
            message_id: `approval:${approval.id}`,
            received_at: at,
            delivery: { channel: MESSENGER_CHANNEL, account },
            container: { kind: "dm", id: session.thread_id },
            sender: { id: "gateway" },
            content: { text, attachments: [] },
            provenance: ["system"]
          },
          received_at: at,
          queued_at: at
        })
      })

      if (settings.messengerBotToken !== undefined) {
        yield* domainEvents.subscribe(ApprovalCreated, onCreated)
        yield* domainEvents.subscribe(ApprovalResolved, onResolved)
      }

      const decide = Effect.fnUntraced(function*(query: CallbackQuery): Effect.fn.Return<{ readonly outcome: CallbackOutcome; readonly approvalId?: number; readonly status?: string }> {
        const button = parseButton(query.data)
        if (button === undefined || key === undefined) return { outcome: "invalid" }
        const prompt = yield* repo.prompt(button.approvalId)
        if (prompt === undefined || prompt.chat_id !== query.chatId || !verifyButton(key, button, prompt.nonce, query.chatId)) {
          return { outcome: "invalid" }
        }
        const operators = (yield* Effect.orDie(routing.current)).config.messenger?.operators ?? []
        if (!operators.includes(query.chatId)) return { outcome: "refused", approvalId: button.approvalId }
        const current = yield* Effect.orElseSucceed(approvals.get(button.approvalId), () => undefined)
        if (current === undefined) return { outcome: "invalid" }
        if (current.status !== "pending" || !(yield* repo.usePrompt(button.approvalId, yield* now, `${query.chatId}:${query.fromId}`))) {
          return { outcome: "already_resolved", approvalId: button.approvalId, status: current.status === "pending" ? undefined : current.status }
        }
        const principal = `messenger:${query.chatId}:${query.fromUsername ?? query.fromId}`
        const result = yield* Effect.result(approvals.respond(button.approvalId, { decision: button.decision }, { kind: "http", principal }))
        if (result._tag === "Failure") return { outcome: "invalid", approvalId: button.approvalId }
        const approval = result.success.approval
        if (approval.status !== button.decision || approval.resolution?.resolved_by?.principal !== principal) {
          return { outcome: "already_resolved", approvalId: button.approvalId, status: approval.status }
        }
        return { outcome: button.decision, approvalId: button.approvalId }
      })

      const press = Effect.fn("ChatApprovals.press")(function*(query: CallbackQuery) {
        const decided = yield* decide(query)
        // Answered in the background: its retries (up to a minute with the messenger down) must not hold the webhook.
        yield* Effect.forkIn(
          Effect.ignore(client.answerCallbackQuery(query.id, CALLBACK_ANSWERS[decided.outcome](decided.approvalId, decided.status))),
          layerScope
        )
        return {
          ok: true as const,
          callback: decided.approvalId === undefined ? { outcome: decided.outcome } : { outcome: decided.outcome, approval_id: decided.approvalId }
        }
      })

      return ChatApprovals.of({ press })
    })
  )
}
