--[[
save-states: the checkpoint saves of one tick, of any executions, in ONE script call (group
commit, docs/durable-contract.md §5 step 5): save_state (save-state.lua) once per save, each
fenced, size-guarded and answered on its own, so one save refused (fenced, too large, a command
error) leaves the others written. On Redis Cluster a call's keys share one slot: the caller
batches per slot.

KEYS[1 ..]  each save's keys (save-state.lua's KEYS), one save after another
ARGV        N, then per save: k, a, its a arguments (run-batch.lua)

Returns N replies, in order: save-state.lua's, or {'ERROR', message} (run-batch.lua).
]]
return run_batch(save_state)
