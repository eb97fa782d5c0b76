--[[
claim-executions: the claims of one tick (a worker starting on several messages at once), in
ONE script call: claim_execution (claim-execution.lua) once per execution, each answered on its
own. On Redis Cluster a call's keys share one slot: the caller batches per slot.

KEYS[1 ..]  each claim's two keys (claim-execution.lua's KEYS), one claim after another
ARGV        N, then per claim: 2, 2, owner, ttl (run-batch.lua)

Returns N replies, in order: claim-execution.lua's, or {'ERROR', message} (run-batch.lua).
]]
return run_batch(claim_execution)
