/**
 * The auth profiles' tables (layers/storage/table.ts): `auth_profiles` and
 * `session_provider_pins`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { AuthProfileRow, PinRow } from "./AuthProfilesRepo.ts"
import { authProfilesMigrations } from "./migrations/index.ts"

const owner = { subsystem: "auth_profiles", migrations: authProfilesMigrations }

/** The auth profiles' table declarations. */
export const AuthProfilesTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "auth_profiles", primaryKey: ["auth_profile_id"], row: AuthProfileRow, owner, references: ["secret_handles"] }),
  table({
    name: "session_provider_pins",
    primaryKey: ["agent_id", "session_id", "provider"],
    row: PinRow,
    owner,
    references: ["auth_profiles"]
  })
]
