--[[
  Puts a signing secret first among a subscriber's, keeping the newest
  `keep`, in one atomic step: overlapping rotations each keep their secret
  (up to `keep`), and a resubscription cannot drop it.

  KEYS[1]  P s:<name>   the subscriber's hash; field 'secrets' holds a JSON
                        array of secrets, newest first (absent when none)
  ARGV[1]  the secret
  ARGV[2]  keep (>= 1)

  Returns  1, or 0 when there is no such subscriber.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local stored = redis.call('HGET', KEYS[1], 'secrets')
local secrets = { ARGV[1] }
if stored then
  for _, secret in ipairs(cjson.decode(stored)) do
    if #secrets >= tonumber(ARGV[2]) then break end
    secrets[#secrets + 1] = secret
  end
end
redis.call('HSET', KEYS[1], 'secrets', cjson.encode(secrets))
return 1
