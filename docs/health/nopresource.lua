-- Argo CD health check for nop.ctrlkit.dev NopResource and ClusterNopResource.
-- Install it under resource.customizations.health.nop.ctrlkit.dev_NopResource
-- (and _ClusterNopResource) in the argocd-cm ConfigMap.
--
-- Healthy      Ready=True, observed at the current generation
-- Degraded     Stalled=True (InvalidSpec, StatusTooLarge, DeleteFailed), or
--              Synced=False (ConnectionSecretFailed, or scheduled)
-- Progressing  anything else: not reconciled yet, an older generation
--              observed, Ready=Unknown (AwaitingSchedule) before the schedule
--              sets it, Ready=False
local hs = { status = "Progressing", message = "Waiting for the NopResource to be reconciled" }
if obj.status == nil or obj.status.observedGeneration == nil then
  return hs
end
local generation = obj.metadata.generation or 0
if obj.status.observedGeneration < generation then
  hs.message = "Waiting for generation " .. generation .. " to be observed"
  return hs
end
local ready, synced, stalled
for _, c in ipairs(obj.status.conditions or {}) do
  if c.type == "Ready" then ready = c end
  if c.type == "Synced" then synced = c end
  if c.type == "Stalled" then stalled = c end
end
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = (stalled.reason or "") .. ": " .. (stalled.message or "")
  return hs
end
if synced ~= nil and synced.status == "False" then
  hs.status = "Degraded"
  hs.message = (synced.reason or "") .. ": " .. (synced.message or "")
  return hs
end
if ready == nil then
  hs.message = "Waiting for the Ready condition"
  return hs
end
if ready.status == "True" and (ready.observedGeneration == nil or ready.observedGeneration >= generation) then
  hs.status = "Healthy"
  hs.message = ready.message or ""
  return hs
end
hs.message = "Ready=" .. ready.status .. " (" .. (ready.reason or "") .. "): " .. (ready.message or "")
return hs
