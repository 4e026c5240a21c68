--[[
  The dead letters' group counts: each counted letter's group in a hash by id
  (groups), and per group how many letters it holds (counts; a group with
  none is deleted, so counts holds only groups that have letters).

  uncount(groups, counts, id)  forgets a letter's group, if it has one, and counts it out
]]
local function uncount(groups, counts, id)
  local group = redis.call('HGET', groups, id)
  if group then
    if redis.call('HINCRBY', counts, group, -1) <= 0 then redis.call('HDEL', counts, group) end
    redis.call('HDEL', groups, id)
  end
end
