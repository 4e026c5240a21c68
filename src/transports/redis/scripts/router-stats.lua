--[[
  Reads every subscriber's queue figures in one step (read only).

  KEYS[1]  P subscribers   set of subscriber names
  ARGV[1]  P, the router prefix: P s:<name>, P sb:<name> and the oldest
           batch's P b:<id> are built from it, under the same hash tag

  Returns  per subscriber {name, sent, queued, health, batches, oldest
           batch's createdAt ('' when none), lastError ('' when none),
           lastErrorAt ('' when none)}.
]]
local P = ARGV[1]
local out = {}
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local f = redis.call('HMGET', P .. 's:' .. name, 'sent', 'queued', 'health', 'lastError', 'lastErrorAt')
  local sb = P .. 'sb:' .. name
  local first = redis.call('ZRANGE', sb, 0, 0)[1]
  local oldest = first and redis.call('HGET', P .. 'b:' .. first, 'createdAt') or ''
  out[#out + 1] = { name, f[1] or '0', f[2] or '0', f[3] or '100', redis.call('ZCARD', sb), oldest,
    f[4] or '', f[5] or '' }
end
return out
