/** Handlers of the `work.*` request types (wsApi.ts): one call to `Work` each. */
import { Effect } from "effect"
import { Work } from "../Work.ts"
import { WorkMessages } from "./wsApi.ts"
import { handlers } from "../../../src/ws/dispatch.ts"

/** Work board handlers; need {@link Work}. */
export const WorkWs = handlers(
  WorkMessages,
  Effect.gen(function*() {
    const work = yield* Work
    return {
      "work.create": (request, connection) => work.create(request, `ws:${connection.connectionId}`),
      "work.list": work.list,
      "work.get": work.get,
      "work.update": work.update,
      "work.transition": work.transition,
      "work.link.create": work.linkCreate,
      "work.link.list": work.linkList,
      "work.artifact.list": work.artifactList,
      "work.artifact.get": work.artifactGet,
      "work.artifact.create": work.artifactCreate,
      "work.decision.list": work.decisionList,
      "work.decision.get": work.decisionGet,
      "work.decision.create": work.decisionCreate,
      "work.signal.list": work.signalList,
      "work.signal.get": work.signalGet,
      "work.signal.create": work.signalCreate,
      "work.signal.update": work.signalUpdate,
      "work.state_kv.get": work.kvGet,
      "work.state_kv.list": work.kvList,
      "work.state_kv.set": work.kvSet
    }
  })
)
