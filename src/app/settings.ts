/**
 * The gateway's settings, derived from the root's list of subsystems
 * (src/app/subsystems.ts; layers/config.ts): the gateway-wide settings
 * (layers/coreSettings.ts) and each descriptor's `settings` (its
 * `services/<x>/settings.ts`), in that order. From them come the declared
 * settings in the CLI's order (`--help` keeps the issue-20 order; a new
 * setting comes after, in the order of these groups), the defaults,
 * `validateSettings` and `defaultSettings`; src/config.ts derives the CLI
 * flags, scripts/settingsTable.ts the README's table. The types of the
 * settings come from the same declarations (layers/settings.ts
 * `SettingsRegistry`); test/app/subsystems.test.ts keeps the two equal.
 *
 * @module
 */
import { type DerivedSettings, deriveSettings, type SettingKey } from "../../layers/config.ts"
import { CoreSettings } from "../../layers/coreSettings.ts"
import type { SettingsGroup } from "../../layers/settings.ts"
import { Subsystems } from "./subsystems.ts"

/** The precisely typed groups of `G` (a descriptor without settings has the wide `SettingsGroup`). */
type Precise<G> = G extends SettingsGroup ? (string extends keyof G["settings"] ? never : G) : never
/** The intersection of the members of the union `U`. */
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never
/** Every raw key the root's list declares (the core settings and each descriptor's). */
type RootKeys = keyof Intersection<Precise<typeof CoreSettings | (typeof Subsystems)[number]["settings"][number]>["settings"]>
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Assert<T extends true> = T
/**
 * Compiles only while the settings types (layers/settings.ts `SettingsRegistry`, entered by each declaring file)
 * declare exactly the raw keys of the root's list.
 */
export type SettingsRegistryIsTheRootList = Assert<Same<RootKeys, SettingKey>>

/** Every group of settings declarations: the gateway-wide ones, then each subsystem's, in the root's order. */
export const SETTINGS_GROUPS: ReadonlyArray<SettingsGroup> = [CoreSettings, ...Subsystems.flatMap((s) => s.settings)]

const derived: DerivedSettings = deriveSettings(SETTINGS_GROUPS)

/** Every declared setting, in the order the CLI lists them (`--help`, problem lines). */
export const DECLARED_SETTINGS: DerivedSettings["DECLARED_SETTINGS"] = derived.DECLARED_SETTINGS

/** The raw default of every setting (see layers/config.ts `DerivedSettings`). */
export const DEFAULTS: DerivedSettings["DEFAULTS"] = derived.DEFAULTS

/** Checks every setting, then the cross-field rules (see layers/config.ts `DerivedSettings`). */
export const validateSettings: DerivedSettings["validateSettings"] = derived.validateSettings

/** The documented defaults with `overrides` applied, validated (see layers/config.ts `DerivedSettings`). */
export const defaultSettings: DerivedSettings["defaultSettings"] = derived.defaultSettings
