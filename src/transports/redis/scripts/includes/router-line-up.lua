--[[
  lineUp(P, due, name): puts a subscriber in line for `router-take.lua`, or
  out of it. Scripts that change what a subscriber may send call it.

  In line means in `due` (P due, sorted set of subscriber names), scored by
  the due time of the batch it would send next. A subscriber is in line while
  it is not paused, has fewer batches out (`inflight`) than its cap (`cap`,
  the last cap a take was given; 1 when ordered) and has a ready batch it may
  send: its earliest in P sr:<name> (its ready batch ids by due time) or, when
  ordered, its oldest batch (first in P sb:<name>) once that one is ready. A
  paused, capped or blocked subscriber is out of line whatever its backlog, so
  a take never walks past it.
]]
local function lineUp(P, due, name)
  local f = redis.call('HMGET', P .. 's:' .. name, 'paused', 'ordered', 'inflight', 'cap')
  local at
  -- `paused` is '0' or '1' on every saved subscriber: nil means it was removed.
  if f[1] == '0' then
    local ordered, inflight = f[2] == '1', tonumber(f[3] or '0')
    local cap = ordered and 1 or tonumber(f[4] or inflight + 1)
    if inflight < cap then
      local sr = P .. 'sr:' .. name
      if ordered then
        local head = redis.call('ZRANGE', P .. 'sb:' .. name, 0, 0)[1]
        at = head and redis.call('ZSCORE', sr, head)
      else
        at = redis.call('ZRANGE', sr, 0, 0, 'WITHSCORES')[2]
      end
    end
  end
  if at then
    redis.call('ZADD', due, at, name)
  else
    redis.call('ZREM', due, name)
  end
end
