--[[
  A drain takes over ONE entry that another drain read and left pending for
  at least ARGV[3] ms (that drain died, or stalled), and learns how often the
  entry has been delivered, this time included. One entry per call on
  purpose: XCLAIM counts a delivery for every entry it claims, so claiming a
  dead drain's whole batch would count deliveries for entries that were never
  run, and the healthy events behind a process-killing one would pile up
  deliveries with it.

  KEYS[1]   the event stream
  ARGV[1]   the consumer group
  ARGV[2]   the consumer (drain) taking the entry over
  ARGV[3]   the least idle time, in ms, of an entry to take over
  ARGV[4]   most pending entries to look at whose event was deleted meanwhile

  Returns  { entry id, deliveries, fields } of the entry now pending for
           ARGV[2], or false when no entry has been idle long enough.

  Invariants: an entry is claimed only if idle for ARGV[3] (XCLAIM checks it
  again); a pending entry whose event is gone from the stream (acknowledged
  and deleted by a drain that came back) leaves the group's pending list
  (XCLAIM drops it) and is not returned; deliveries is the group's own count
  (XREADGROUP sets it to 1, each XCLAIM adds 1).
]]
local stream, group, consumer, minIdle = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
for _ = 1, tonumber(ARGV[4]) do
  local stale = redis.call('XPENDING', stream, group, 'IDLE', minIdle, '-', '+', 1)
  if #stale == 0 then return false end
  local id = stale[1][1]
  local claimed = redis.call('XCLAIM', stream, group, consumer, minIdle, id)
  local entry = claimed[1]
  if entry and entry[2] then
    local deliveries = redis.call('XPENDING', stream, group, id, id, 1)[1][4]
    return { id, deliveries, entry[2] }
  end
end
return false
