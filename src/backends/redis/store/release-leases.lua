--[[
release-leases: the lease releases of one tick (a worker finishing several executions at once)
in ONE script call: release_lease (release-lease.lua) once per execution, each answered on its
own. On Redis Cluster a call's keys share one slot: the caller batches per slot.

KEYS[1 ..]  each release's header key (release-lease.lua's KEYS[1]), one after another
ARGV        N, then per release: 1, 2, owner, generation (run-batch.lua)

Returns N replies, in order: release-lease.lua's, or {'ERROR', message} (run-batch.lua).
]]
return run_batch(release_lease)
