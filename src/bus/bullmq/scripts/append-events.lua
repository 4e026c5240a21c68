--[[
  Appends events to the stream, in order, all in one atomic step.

  KEYS[1]  the event stream
  ARGV     the serialized events, one per argument

  Returns  how many events were appended.
]]
for i = 1, #ARGV do
  redis.call('XADD', KEYS[1], '*', 'p', ARGV[i])
end
return #ARGV
