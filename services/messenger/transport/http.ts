/**
 * Messenger handlers (transport/httpApi.ts): the webhook hands the headers,
 * the raw body text and the `agent_id` query to `MessengerIngress.receive`;
 * the inbox read calls `MessengerIngress.inbox`.
 *
 * @module
 */
import { Effect } from "effect"
import { apiOf, group, readBody } from "../../../src/http/serve.ts"
import { MessengerIngress } from "../MessengerIngress.ts"
import { MessengerApi } from "./httpApi.ts"

/** Messenger handlers; need {@link MessengerIngress}. */
export const MessengerHttp = group(apiOf(MessengerApi), "messenger", (handlers) => Effect.gen(function*() {
  const ingress = yield* MessengerIngress
  return handlers.handleAll({
    receive: ({ query, request }) =>
      Effect.flatMap(readBody(request.text), (body) => ingress.receive({ headers: request.headers, body, agentId: query.agent_id })),
    inbox: ({ query }) => ingress.inbox(query)
  })
}))
