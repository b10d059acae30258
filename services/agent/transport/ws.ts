/** Handlers of the agent runtime's WebSocket types (transport/wsApi.ts). */
import { Effect } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { handlers } from "../../../src/ws/dispatch.ts"
import { AgentRuntime } from "../AgentRuntime.ts"
import { AgentDisabled } from "../errors.ts"
import { SessionSend } from "./wsApi.ts"

/** Agent handlers; need {@link AgentRuntime} and `GatewayConfig` (`agentEnabled`). */
export const AgentWs = handlers(
  [SessionSend],
  Effect.gen(function*() {
    const runtime = yield* AgentRuntime
    const settings = yield* GatewayConfig
    const disabled = new AgentDisabled({ message: "request type session.send is not supported: the agent runtime is off (SVC_AGENT_ENABLED=1 turns it on)" })
    return {
      "session.send": (request) => (settings.agentEnabled ? runtime.send(request) : Effect.fail(disabled))
    }
  })
)
