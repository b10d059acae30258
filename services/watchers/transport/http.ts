/**
 * Watchers handlers (src/http/api/watchers.ts): the path id checked (400
 * "invalid watcher id"), then one call to `Watchers`, or for the signed
 * webhook one call to `WebhookTrigger` with the headers and the raw body
 * bytes exactly as received.
 */
import { WatchersApi } from "./httpApi.ts"
import { Effect } from "effect"
import { InvalidRequest } from "../../shared/errors.ts"
import { DEFAULT_FIRINGS_LIMIT, parseWatcherId } from "../schema.ts"
import { Watchers } from "../Watchers.ts"
import { WebhookTrigger } from "../webhook/WebhookTrigger.ts"
import { apiOf, group, readBody } from "../../../src/http/serve.ts"

const watcherId = (raw: string) => {
  const id = parseWatcherId(raw)
  return id === undefined ? Effect.fail(new InvalidRequest({ message: "invalid watcher id" })) : Effect.succeed(id)
}

/** Watchers handlers; need {@link Watchers} and {@link WebhookTrigger}. */
export const WatchersHttp = group(apiOf(WatchersApi), "watchers", (handlers) => Effect.gen(function*() {
  const watchers = yield* Watchers
  const webhook = yield* WebhookTrigger
  return handlers.handleAll({
    create: ({ payload }) => watchers.create(payload),
    list: ({ query }) => watchers.list(query.state),
    update: ({ params, payload }) => Effect.flatMap(watcherId(params.id), (id) => watchers.setActive(id, payload.active)),
    remove: ({ params }) => Effect.flatMap(watcherId(params.id), watchers.remove),
    firings: ({ params, query }) =>
      Effect.flatMap(watcherId(params.id), (id) => watchers.firings(id, query.limit ?? DEFAULT_FIRINGS_LIMIT)),
    triggerWebhook: ({ params, request }) =>
      Effect.gen(function*() {
        const id = yield* watcherId(params.id)
        const body = new Uint8Array(yield* readBody(request.arrayBuffer))
        return yield* webhook.trigger({ watcher_id: id, headers: request.headers, body })
      })
  })
}))
