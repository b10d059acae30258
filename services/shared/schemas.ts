/**
 * Small request-field schemas shared by the subsystems' `schema.ts` files,
 * so a bound reads the same everywhere and its message is written once.
 *
 * @module
 */
import { Schema } from "effect"

/** A string of 1 to `max` characters; messages "a non-empty string" / "a non-empty string of at most <max> characters". */
export const nonEmptyText = (max: number) =>
  Schema.String.check(
    Schema.isMinLength(1, { expected: "a non-empty string" }),
    Schema.isMaxLength(max, { expected: `a non-empty string of at most ${max} characters` })
  )

/** An integer from `minimum` to `maximum` (inclusive); message "an integer from <minimum> to <maximum>". */
export const intBetween = (minimum: number, maximum: number) =>
  Schema.Int.check(Schema.isBetween({ minimum, maximum }, { expected: `an integer from ${minimum} to ${maximum}` }))
