-- Argo CD health check for every kind ctrlkit ships. Install it in the
-- argocd-cm ConfigMap once per kind, under
-- resource.customizations.health.<group>_<Kind>, e.g.
-- resource.customizations.health.nop.ctrlkit.dev_NopResource.
--
-- Degraded     Stalled=True: the controller cannot go on without a spec change;
--              or Synced=False, as Argo CD's check for Crossplane's kinds says
-- Healthy      Ready=True, observed at the current generation
-- Progressing  anything else: not reconciled yet, a generation not yet
--              observed, Reconciling=True, Ready missing, False or Unknown
local hs = { status = "Progressing", message = "Waiting for the controller" }
if obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Deleting"
  return hs
end
local st = obj.status
if st == nil then
  return hs
end
local generation = obj.metadata.generation or 0
if st.observedGeneration == nil or st.observedGeneration < generation then
  hs.message = "Waiting for generation " .. generation .. " to be observed"
  return hs
end
local ready, stalled, reconciling, synced
for _, c in ipairs(st.conditions or {}) do
  if c.type == "Ready" then ready = c end
  if c.type == "Stalled" then stalled = c end
  if c.type == "Reconciling" then reconciling = c end
  if c.type == "Synced" then synced = c end
end
local function describe(c)
  return c.type .. "=" .. c.status .. " (" .. (c.reason or "") .. "): " .. (c.message or "")
end
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
  return hs
end
if synced ~= nil and synced.status == "False" then
  hs.status = "Degraded"
  hs.message = describe(synced)
  return hs
end
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = describe(reconciling)
  return hs
end
if ready == nil then
  hs.message = "Ready is not reported yet"
  return hs
end
if ready.observedGeneration ~= nil and ready.observedGeneration < generation then
  hs.message = "Ready describes generation " .. ready.observedGeneration .. ", not " .. generation
  return hs
end
if ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or ""
  return hs
end
hs.message = describe(ready)
return hs
