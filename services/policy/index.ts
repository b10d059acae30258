/**
 * Policy evaluation (spec `policy-check.md`): the pure engine and the
 * `PolicyService` used by HTTP, the planner and library users.
 *
 * @module
 */
export * from "./engine.ts"
export * from "./PolicyService.ts"
