--[[
  Removes a subscriber's signing secrets in one atomic step: all but the
  newest ('previous', ending a rotation), or all ('all', unsigned deliveries).

  KEYS[1]  P s:<name>   the subscriber's hash; field 'secrets' holds a JSON
                        array of secrets, newest first (absent when none)
  ARGV[1]  'previous' or 'all'

  Returns  'removed', 'none' (nothing to remove) or 'no-subscriber'.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 'no-subscriber' end
local stored = redis.call('HGET', KEYS[1], 'secrets')
local secrets = stored and cjson.decode(stored) or {}
if ARGV[1] == 'previous' then
  if #secrets < 2 then return 'none' end
  redis.call('HSET', KEYS[1], 'secrets', cjson.encode({ secrets[1] }))
  return 'removed'
end
if #secrets == 0 then return 'none' end
redis.call('HDEL', KEYS[1], 'secrets')
return 'removed'
