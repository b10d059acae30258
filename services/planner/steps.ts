/**
 * The steps of a plan, derived deterministically from the request (reference
 * §6.1): Research, then Web (the generic fallback executor), then Pay when the
 * request carries a spend tag, then Message back to the trigger's thread.
 * The same request always yields the same steps and synopsis, so a stored
 * plan can be recomputed (e.g. after its approval). docs/planner.md "Steps".
 *
 * @module
 */
import { formatMoney } from "../policy/engine.ts"
import type { ActionPrimitive, PlanRequest } from "./schema.ts"
import type { SpendTag } from "./tags.ts"

/** A plan's steps, the index of its Pay step (when there is one) and its one-line synopsis. */
export interface PlanSteps {
  readonly steps: ReadonlyArray<ActionPrimitive>
  readonly payIndex: number | undefined
  readonly synopsis: string
}

/** Longest excerpt of the message text quoted in a synopsis. */
const EXCERPT_LENGTH = 60

const excerpt = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > EXCERPT_LENGTH ? `${line.slice(0, EXCERPT_LENGTH - 1)}…` : line
}

const spendPhrase = (spend: SpendTag): string =>
  `pay ${formatMoney(spend.amount_minor_units, spend.currency)}${spend.merchant === undefined ? "" : ` to ${spend.merchant}`}`

/** The synopsis of a plan: what it will do, in one sentence. */
export const synopsisOf = (request: PlanRequest, spend: SpendTag | undefined): string =>
  [
    `Research "${excerpt(request.trigger.message.text)}"`,
    "carry it out on the web",
    ...(spend === undefined ? [] : [spendPhrase(spend)]),
    `reply in ${request.trigger.channel} thread ${request.trigger.thread_id}`
  ].join(", ") + "."

/** The steps of the plan for `request`, with `spend` from its tags. */
export const buildSteps = (request: PlanRequest, spend: SpendTag | undefined): PlanSteps => {
  const { channel, message, thread_id } = request.trigger
  // State-changing steps get a postcondition and an idempotency key derived from the request_id.
  const key = (index: number) => `${request.request_id}:${index}`
  const synopsis = synopsisOf(request, spend)
  const steps: Array<ActionPrimitive> = [
    {
      type: "Research",
      args: {
        intent: "understand_request",
        query: message.text,
        channel,
        thread_id,
        ...(request.locale === undefined ? {} : { locale: request.locale }),
        ...(request.timezone === undefined ? {} : { timezone: request.timezone })
      }
    },
    {
      type: "Web",
      args: { executor: "generic-web", intent: "fallback_automation", query: message.text },
      postcondition: { status: "completed" },
      idempotency_key: key(1)
    }
  ]
  let payIndex: number | undefined
  if (spend !== undefined) {
    payIndex = steps.length
    steps.push({
      type: "Pay",
      args: {
        amount_minor_units: spend.amount_minor_units,
        currency: spend.currency,
        ...(spend.merchant === undefined ? {} : { merchant: spend.merchant })
      },
      postcondition: { status: "authorized", amount_minor_units: spend.amount_minor_units, currency: spend.currency },
      idempotency_key: key(payIndex)
    })
  }
  steps.push({
    type: "Message",
    args: { channel, thread_id, body: synopsis },
    postcondition: { status: "sent" },
    idempotency_key: key(steps.length)
  })
  return { steps, payIndex, synopsis }
}
