/** Handlers of the `subagent.*` request types (wsApi.ts): one call to `Subagents` each, when the runtime is on. */
import { Effect } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { handlers } from "../../../src/ws/dispatch.ts"
import { AgentDisabled } from "../errors.ts"
import { Subagents } from "../subagents/Subagents.ts"
import { SubagentMessages } from "./wsApi.ts"

/** Subagent handlers; need {@link Subagents} and `GatewayConfig` (`agentEnabled`: else `unsupported_request`). */
export const SubagentsWs = handlers(
  SubagentMessages,
  Effect.gen(function*() {
    const subagents = yield* Subagents
    const settings = yield* GatewayConfig
    const on = <A, E>(type: string, effect: () => Effect.Effect<A, E>): Effect.Effect<A, E | AgentDisabled> =>
      settings.agentEnabled
        ? effect()
        : Effect.fail(new AgentDisabled({ message: `request type ${type} is not supported: the agent runtime is off (SVC_AGENT_ENABLED=1 turns it on)` }))
    return {
      "subagent.spawn": (request) => on("subagent.spawn", () => subagents.spawn(request)),
      "subagent.list": (request) => on("subagent.list", () => subagents.list(request)),
      "subagent.get": (request) => on("subagent.get", () => subagents.get(request)),
      "subagent.send": (request) => on("subagent.send", () => subagents.send(request)),
      "subagent.close": (request) => on("subagent.close", () => subagents.close(request))
    }
  })
)
