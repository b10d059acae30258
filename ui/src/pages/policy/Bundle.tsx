/**
 * The effective policy bundle (`GET /policy/bundle`): its SHA-256 over
 * canonical JSON, where it came from (deployment bundle path or `default`,
 * the agent's policy.yml or none, an inline playbook bundle) and the merged
 * bundle itself as JSON. No event announces a bundle change (it is read from
 * files at start): a Reload button reads it again.
 */
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"

/** The bundle section of the policy page. */
export const Bundle = () => {
  const bundle = useResource(() => call((c) => c.policyBundle.bundle()), {}, [])
  const effective = bundle.data?.effective
  return (
    <section class="panel" aria-labelledby="bundle-title">
      <h2 id="bundle-title">Effective bundle</h2>
      <ErrorNote error={bundle.error} />
      {effective ? (
        <>
          <dl class="facts">
            <dt>SHA-256</dt><dd><code class="sha">{effective.sha256}</code></dd>
            <dt>Deployment bundle</dt><dd>{effective.sources.deployment === "default" ? "built-in (default)" : <code>{effective.sources.deployment}</code>}</dd>
            <dt>Agent bundle</dt><dd>{effective.sources.agent === null ? "none" : <code>{effective.sources.agent}</code>}</dd>
            {effective.sources.playbook ? <><dt>Playbook bundle</dt><dd>{effective.sources.playbook}</dd></> : null}
            <dt>Read at</dt><dd>{bundle.data?.generated_at}</dd>
          </dl>
          <Json value={effective.bundle} label="Effective policy bundle" />
        </>
      ) : bundle.loading ? <p aria-busy="true">Loading…</p> : null}
      <div class="actions">
        <button type="button" onClick={bundle.reload} disabled={bundle.loading}>Reload bundle</button>
      </div>
    </section>
  )
}
