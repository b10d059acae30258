/**
 * The work board's refusals in words: `wip_limit_exceeded` says how many items
 * are in doing against the limit, `invalid_transition` which moves the item's
 * state allows (from the error's `details`); anything else as the console
 * explains every failure.
 */
import { ApiError, explain } from "../../app/api.ts"

interface WipDetails {
  readonly code: "wip_limit_exceeded"
  readonly from: string
  readonly limit: number
  readonly current: number
}
interface TransitionDetails {
  readonly code: "invalid_transition"
  readonly from: string
  readonly to: string
  readonly allowed: ReadonlyArray<string>
}

const detailsOf = (error: ApiError): WipDetails | TransitionDetails | undefined => {
  const d = error.details as { code?: unknown } | undefined
  return d !== undefined && d !== null && (d.code === "wip_limit_exceeded" || d.code === "invalid_transition")
    ? d as WipDetails | TransitionDetails
    : undefined
}

/** What `error` means for the operator of the board. */
export const describeWorkError = (error: unknown): string => {
  if (!(error instanceof ApiError)) return explain(error)
  const details = detailsOf(error)
  if (details?.code === "wip_limit_exceeded") {
    return `WIP limit reached: ${details.current} of ${details.limit} items are already in doing for this scope. ` +
      `Move one out of doing first (wip_limit_exceeded).`
  }
  if (details?.code === "invalid_transition") {
    const allowed = details.allowed.length === 0 ? `nothing (${details.from} is final)` : details.allowed.join(", ")
    return `Cannot move from ${details.from} to ${details.to}: from ${details.from} an item may move to ${allowed}. ` +
      `The board was out of date and has been reloaded (invalid_transition).`
  }
  return explain(error)
}
