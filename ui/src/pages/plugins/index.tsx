/**
 * Plugins (issue 26 §4; docs/plugins.md): the plugins the gateway loaded from
 * `$SVC_HOME/plugins`, each with its contributions (tools with their policy
 * tool ids, commands, RPC routes with their scopes, MCP servers), its
 * permissions, its lock and integrity state and its worker (PluginDetails.tsx),
 * and the directories that did not load with their reason (file and line).
 * Reloads on `plugin.lifecycle` (a worker that failed, restarted or was given
 * up). With plugins off the gateway answers 404: the page says how to turn
 * them on.
 */
import { call, ApiError } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { PluginDetails } from "./PluginDetails.tsx"

/** The plugins page. */
export default function PluginsPage() {
  const list = useResource(() => call((c) => c.plugins.list()), { events: ["plugin.lifecycle"] }, [])
  const plugins = list.data?.plugins ?? []
  const errors = list.data?.errors ?? []
  const off = list.error instanceof ApiError && list.error.status === 404

  return (
    <section aria-labelledby="plugins-title">
      <h1 id="plugins-title">Plugins</h1>
      <div class="toolbar">
        <button type="button" onClick={list.reload} disabled={list.loading}>Reload</button>
        <span aria-live="polite" class="count">{list.data ? `${plugins.length} loaded, ${errors.length} not loaded` : ""}</span>
      </div>
      {off
        ? <p class="empty">Plugins are off: start the gateway with <code>SVC_PLUGINS_ENABLED=1</code> (docs/plugins.md).</p>
        : <ErrorNote error={list.error} />}
      {list.data && plugins.length === 0 ? <p class="empty">No plugin loaded from <code>$SVC_HOME/plugins</code>.</p> : null}
      {plugins.map((plugin) => <PluginDetails key={plugin.id} plugin={plugin} />)}
      {errors.length > 0 ? (
        <>
          <h2>Not loaded</h2>
          <table class="list" aria-label="Plugins not loaded">
            <thead>
              <tr><th scope="col">Directory</th><th scope="col">Reason</th><th scope="col">Where</th><th scope="col">Message</th></tr>
            </thead>
            <tbody>
              {errors.map((e) => (
                <tr key={`${e.source_dir}:${e.error}`}>
                  <td><code>{e.plugin_id ?? e.source_dir.split("/").pop()}</code></td>
                  <td><code>{e.error}</code></td>
                  <td>{e.file === undefined ? "—" : <code>{e.file.split("/").pop()}{e.line === undefined ? "" : `:${e.line}`}</code>}</td>
                  <td class="prompt error">{e.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  )
}
