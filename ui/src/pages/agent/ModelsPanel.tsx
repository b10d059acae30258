/**
 * The model catalog (`GET /models/providers`, which carries the catalog's
 * status): where it comes from (remote, cache, bundled), when it was fetched,
 * its counts and last error, and each provider with its model count; a
 * provider's models (`GET /models/providers/:id/models`: context window and
 * prices in USD per 1M tokens) open under it.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { CatalogModel } from "./types.ts"

const price = (m: CatalogModel) => (m.cost ? `$${m.cost.input} / $${m.cost.output}` : "—")

/** The models of provider `id`. */
const ProviderModels = ({ id }: { id: string }) => {
  const models = useResource(() => call((c) => c.models.providerModels({ params: { id } })), {}, [id])
  return (
    <>
      <ErrorNote error={models.error} />
      {models.data ? (
        <table class="list" aria-label={`Models of ${id}`}>
          <thead><tr><th scope="col">Model id</th><th scope="col">Context</th><th scope="col">USD in / out per 1M</th></tr></thead>
          <tbody>
            {models.data.models.map((m) => (
              <tr key={m.id}><td><code title={m.name}>{id}/{m.id}</code></td><td>{m.limit.context}</td><td>{price(m)}</td></tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  )
}

/** The catalog panel. */
export const ModelsPanel = () => {
  const catalog = useResource(() => call((c) => c.models.providers()), {}, [])
  const [open, setOpen] = useState<string | undefined>(undefined)
  const status = catalog.data?.models_dev
  return (
    <section class="panel" aria-labelledby="models-title">
      <h2 id="models-title">Models</h2>
      <ErrorNote error={catalog.error} />
      {status ? (
        <dl class="facts">
          <dt>Catalog</dt><dd>{status.source}{status.fetched_at ? `, fetched ${status.fetched_at}` : ""}</dd>
          <dt>Counts</dt><dd>{status.provider_count} providers, {status.model_count} models</dd>
          {status.last_error ? <><dt>Last error</dt><dd class="error">{status.last_error}</dd></> : null}
        </dl>
      ) : null}
      {catalog.data ? (
        <table class="list" aria-label="Providers">
          <thead><tr><th scope="col">Provider</th><th scope="col">Name</th><th scope="col">Models</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {catalog.data.providers.map((p) => (
              <tr key={p.id} aria-selected={p.id === open}>
                <td><code>{p.id}</code></td>
                <td>{p.name}</td>
                <td>{p.model_count}</td>
                <td>
                  <button type="button" aria-expanded={p.id === open} onClick={() => setOpen(p.id === open ? undefined : p.id)}>
                    {p.id === open ? "Hide" : "Models"}<span class="sr-only"> of {p.id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {open ? <ProviderModels id={open} /> : null}
    </section>
  )
}
