/** The plugin shapes, from the declarations the server uses (services/plugins/schema.ts). */
export type { PluginLoadError, PluginRecord } from "../../../../services/plugins/schema.ts"
