/** Handlers of the agent runtime's WebSocket types (transport/wsApi.ts). */
import { Effect } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { handlers } from "../../../src/ws/dispatch.ts"
import { AgentRuntime } from "../AgentRuntime.ts"
import { AgentCommands } from "../commands.ts"
import { AgentDisabled } from "../errors.ts"
import { CommandExecute, SessionSend } from "./wsApi.ts"

/** `unsupported_request` for `type` while the runtime is off. */
const disabled = (type: string) =>
  new AgentDisabled({ message: `request type ${type} is not supported: the agent runtime is off (SVC_AGENT_ENABLED=1 turns it on)` })

/** Agent handlers; need {@link AgentRuntime}, {@link AgentCommands} and `GatewayConfig` (`agentEnabled`). */
export const AgentWs = handlers(
  [SessionSend, CommandExecute],
  Effect.gen(function*() {
    const runtime = yield* AgentRuntime
    const commands = yield* AgentCommands
    const settings = yield* GatewayConfig
    return {
      "session.send": (request) => (settings.agentEnabled ? runtime.send(request) : Effect.fail(disabled("session.send"))),
      "command.execute": (request) => (settings.agentEnabled ? commands.execute(request) : Effect.fail(disabled("command.execute")))
    }
  })
)
