--[[
  Runs a batch of steps on ordered-event lanes for one worker, atomically.
  A lane is the queue of one order key's events for one kind of work:
  "s|<key>" runs the sync handlers (and fans out to the async lanes),
  "a|<handler>|<key>" runs one async handler.

  Keys (all under the ordering prefix P, which starts with the bus's hash
  tag, so one slot):
    P ready        list of lanes that may have work (a lane may appear twice)
    P workers      sorted set: worker id -> lease expiry (ms); absent = dead
    P w:<W>        list of lanes worker W took from `ready` (the seed's
                   event.worker:W:object)
    P retry        sorted set: lane -> when its current event runs again (ms)
    P halted       sorted set: lane -> when it halted (ms)
    P seq          the bus's sequence counter
    P pending      events waiting in lanes (for idleness and backlog)
    P l:<lane>     hash: tail (last position assigned here), next (position
                   to handle next, 1 if absent), last (seq of the last event
                   handled; the next one's prev), owner, q (queued in ready),
                   cp/cs/cv (position, seq and prev of the current event),
                   ca (attempts made), cf (failures JSON), ch (index in the
                   sync chain to resume from), cd (deliveries: times the
                   current event was handed to a worker since its last
                   recorded step), halt (why it halted), skip, pn (who
                   numbers a sync lane's events; see publish-events.lua),
                   gp/gs (a sync lane's missing position and since when it
                   was found missing while later ones wait), rbf/rbt/rbw/rba
                   (its last re-base: from, to, why, when), sk (the
                   positions its re-bases skipped; includes/lane-skipped.lua)
    P gaps         sorted set: sync lane -> when its gap wait ends (ms)
    P rebased      sorted set: lane -> when it was last re-based (ms), the
                   newest 1000
    P rebases      count of re-bases, only ever added to
    P e:<lane>     hash: position -> payload ("seq|prev|payload" on async lanes)

  Invariants (checked by test/ordering/invariants-*.test.ts):
    1. Every lane with an event at `next` is in `ready`, in the w:<W> of a
       worker in `workers` that owns it (or that popped it and is about to
       claim it: q is set), waiting in `retry`, or halted. A lane with q set
       is in `ready` or in such a w:<W>.
    2. A lane's owner is in `workers` and holds the lane in its w:<W> (the
       seed's "if OBJ:event.worker == W then event.worker:W:object == OBJ"),
       so when its lease lapses the sweep hands the lane back and ends the
       ownership. Only the owner moves `next`; `next` only grows, by one,
       when the event at it is done.
    3. The current event (cp) is never re-assigned: a new owner resumes it
       with the same seq and prev, so no event is skipped.
    4. On a sync lane, seq grows and each event's prev is the seq of the
       event before it.
    5. cd counts the hand-outs of the current event where it stands: 1 when
       first handed out, one more each time a new owner takes it over (its
       previous owner died or stalled mid-event), one less when its owner
       RELEASEs it unrun, 0 after LATER or HALT (the run ended with a step).

  Gaps: a sync lane whose `next` position is missing while later positions
  wait (Redis lost the lane's state, so `next` reads 1, or a position never
  came) waits ARGV[3] ms from when a worker first found it so (the outbox
  relay republishes a row a dead publisher left well within that), then goes
  on from the first position it holds: a re-base, reported with that event
  (its 11th and 12th fields) and counted. ARGV[3] 0: never.

  KEYS[1]   P ready
  KEYS[2]   P workers
  KEYS[3]   P w:<W>, this worker's list
  KEYS[4]   P retry
  KEYS[5]   P halted
  KEYS[6]   P seq
  KEYS[7]   P pending
  KEYS[8]   P gaps
  KEYS[9]   P rebased
  KEYS[10]  P rebases
  KEYS[11..] per step, the keys of the lanes it names, in order: CLAIM and
            DONE P l:<lane> and P e:<lane> (DONE then both again for each
            async lane it fans out to), LATER, HALT and RELEASE P l:<lane>.
            The lanes TAKE pops from `ready` are known only here: their keys
            are built from ARGV[1], under the same hash tag.
  ARGV[1]   the ordering prefix P
  ARGV[2]   worker id W
  ARGV[3]   how long a gap is waited for, in ms (0: for ever)
  ARGV[4..] steps: opcode, number of arguments, arguments
    TAKE n                         pop up to n lanes from ready and claim them
    CLAIM lane                     claim a lane already moved to w:<W>
    DONE lane pos asyncLane...     finish the current event, fan out, go on
    LATER lane pos ms ca cf ch     run the current event again in `ms`
    HALT lane pos ca cf ch why     halt the lane at its current event
    RELEASE lane                   let go of a lane (on shutdown)
  A worker takes and claims lanes only under a live lease (else TAKE gets
  nothing, and CLAIM 'lost' and puts the lane back): a lane must never be
  owned by a worker the lease sweep no longer knows.

  Returns one reply per step: TAKE a list of events; CLAIM and DONE an event
  or a status ('empty', 'owned', 'halted', 'waiting', 'lost'); the others
  'ok' or 'lost'. An event is { lane, pos, seq, prev or '', ca, cf, ch,
  skip (the halt reason of a halted event an operator skipped, or ''),
  payload, cd (its deliveries, this hand-out included), the position the lane
  was re-based from to reach it or '', why ('no-state' or 'gap') or '' }.
]]
local P, W, GAP = ARGV[1], ARGV[2], tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local READY, WORKERS, MINE, RETRY, HALTED, SEQ, PENDING = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local GAPS, REBASED, REBASES = KEYS[8], KEYS[9], KEYS[10]
local k = 11

-- The next `n` keys of the steps' lanes.
local function nextKeys(n)
  local first = k
  k = k + n
  return unpack(KEYS, first, first + n - 1)
end

local function alive(worker)
  local lease = redis.call('ZSCORE', WORKERS, worker)
  return lease and tonumber(lease) > now
end

local function letGo(L, lane)
  redis.call('HDEL', L, 'owner')
  redis.call('LREM', MINE, 1, lane)
end

local function enqueue(L, lane)
  if redis.call('HSETNX', L, 'q', '1') == 1 then redis.call('LPUSH', READY, lane) end
end

-- An async lane's stored event: "seq|prev|payload".
local function split(stored)
  local a = string.find(stored, '|', 1, true)
  local b = string.find(stored, '|', a + 1, true)
  return string.sub(stored, 1, a - 1), string.sub(stored, a + 1, b - 1), string.sub(stored, b + 1)
end

-- Starts the wait for a sync lane's missing position `pos` while later ones
-- wait, or goes on with its wait: the first position it holds once the wait
-- is over (the lane re-based to it), nil while it lasts or with nothing held.
local function gap(lane, L, E, pos)
  if GAP <= 0 or string.sub(lane, 1, 2) == 'a|' or redis.call('HLEN', E) == 0 then return nil end
  local g = redis.call('HMGET', L, 'gp', 'gs', 'next')
  local since = tonumber(g[2])
  if g[1] ~= tostring(pos) or not since then
    since = now
    redis.call('HSET', L, 'gp', pos, 'gs', since)
  end
  if now < since + GAP then
    redis.call('ZADD', GAPS, since + GAP, lane)
    return nil
  end
  local first
  for _, p in ipairs(redis.call('HKEYS', E)) do
    local n = tonumber(p)
    if n > pos and (not first or n < first) then first = n end
  end
  if not first then return nil end
  -- No `next` of its own at position 1: the lane's state is gone (or the key's first event never came).
  local why = (pos == 1 and not g[3]) and 'no-state' or 'gap'
  redis.call('HSET', L, 'next', first, 'rbf', pos, 'rbt', first, 'rbw', why, 'rba', now)
  recordSkipped(L, pos, first, why, now)
  redis.call('HDEL', L, 'gp', 'gs')
  redis.call('ZREM', GAPS, lane)
  redis.call('ZADD', REBASED, now, lane)
  redis.call('ZREMRANGEBYRANK', REBASED, 0, -1001)
  redis.call('INCR', REBASES)
  return first, why
end

-- The owned lane's current event, taking the next one if there is none;
-- lets the lane go when it has no event to handle.
local function head(lane, L, E)
  local cur = redis.call('HMGET', L, 'cp', 'cs', 'cv', 'ca', 'cf', 'ch', 'skip')
  if cur[1] then
    local stored = redis.call('HGET', E, cur[1])
    if stored then
      local payload = stored
      if string.sub(lane, 1, 2) == 'a|' then
        local _, _, rest = split(stored)
        payload = rest
      end
      -- Handed out again: after a retry or a resume (cd 0), or taken over from
      -- an owner that died or stalled before it recorded a step (cd > 0).
      local cd = redis.call('HINCRBY', L, 'cd', 1)
      return { lane, cur[1], cur[2], cur[3], cur[4], cur[5], cur[6], cur[7] or '', payload, cd, '', '' }
    end
    redis.call('HDEL', L, 'cp', 'cs', 'cv', 'ca', 'cf', 'ch', 'skip', 'cd')
  end
  local pos = tonumber(redis.call('HGET', L, 'next') or '1')
  local stored = redis.call('HGET', E, pos)
  local from, why = '', ''
  if not stored then
    local first, reason = gap(lane, L, E, pos)
    if not first then
      letGo(L, lane)
      return 'empty'
    end
    from, why, pos = tostring(pos), reason, first
    stored = redis.call('HGET', E, pos)
  elseif redis.call('HEXISTS', L, 'gp') == 1 then
    -- The missing position came.
    redis.call('HDEL', L, 'gp', 'gs')
    redis.call('ZREM', GAPS, lane)
  end
  local seq, prev, payload
  if string.sub(lane, 1, 2) == 'a|' then
    seq, prev, payload = split(stored)
  else
    seq = tostring(redis.call('INCR', SEQ))
    prev = redis.call('HGET', L, 'last') or ''
    payload = stored
  end
  redis.call('HSET', L, 'cp', pos, 'cs', seq, 'cv', prev, 'ca', '0', 'cf', '', 'ch', '0', 'cd', '1')
  return { lane, tostring(pos), seq, prev, '0', '', '0', '', payload, 1, from, why }
end

local function claim(lane, L, E)
  redis.call('HDEL', L, 'q')
  local owner = redis.call('HGET', L, 'owner')
  -- Owned by this worker (another of its slots has it, whatever its lease
  -- says) or by another live one.
  if owner and (owner == W or alive(owner)) then
    redis.call('LREM', MINE, 1, lane)
    return 'owned'
  end
  if redis.call('HEXISTS', L, 'halt') == 1 then
    letGo(L, lane)
    return 'halted'
  end
  local due = redis.call('ZSCORE', RETRY, lane)
  if due then
    if tonumber(due) > now then
      letGo(L, lane)
      return 'waiting'
    end
    redis.call('ZREM', RETRY, lane)
  end
  redis.call('HSET', L, 'owner', W)
  return head(lane, L, E)
end

-- Whether this worker owns the lane and is on the event at `pos`.
local function mine(L, pos)
  local f = redis.call('HMGET', L, 'owner', 'cp')
  return f[1] == W and f[2] == pos
end

local replies = {}
local i = 4
while i <= #ARGV do
  local op, n = ARGV[i], tonumber(ARGV[i + 1])
  local a = i + 2
  local reply
  if op == 'TAKE' then
    reply = {}
    for _ = 1, alive(W) and tonumber(ARGV[a]) or 0 do
      local lane = redis.call('RPOPLPUSH', READY, MINE)
      if not lane then break end
      local r = claim(lane, P .. 'l:' .. lane, P .. 'e:' .. lane)
      if type(r) == 'table' then reply[#reply + 1] = r end
    end
  elseif op == 'CLAIM' then
    local lane = ARGV[a]
    local L, E = nextKeys(2)
    if alive(W) then
      reply = claim(lane, L, E)
    else
      redis.call('LREM', MINE, 1, lane)
      redis.call('HDEL', L, 'q')
      enqueue(L, lane)
      reply = 'lost'
    end
  elseif op == 'DONE' then
    -- What finishing the event and then head() would do, without reading
    -- back the fields it has just written (the busiest step: one per event).
    local lane, pos = ARGV[a], ARGV[a + 1]
    local L, E = nextKeys(2)
    local fanOut = {}
    for f = 1, n - 2 do
      local A, AE = nextKeys(2)
      fanOut[f] = { ARGV[a + 1 + f], A, AE }
    end
    local f = redis.call('HMGET', L, 'owner', 'cp', 'cs', 'cv', 'skip')
    if f[1] ~= W or f[2] ~= pos then
      reply = 'lost'
    else
      local done = f[3]
      if #fanOut > 0 then
        local stored = redis.call('HGET', E, pos)
        if stored then
          local value = done .. '|' .. f[4] .. '|' .. stored
          for _, target in ipairs(fanOut) do
            local p = redis.call('HINCRBY', target[2], 'tail', 1)
            redis.call('HSET', target[3], p, value)
            redis.call('INCR', PENDING)
            enqueue(target[2], target[1])
          end
        end
      end
      redis.call('HDEL', E, pos)
      redis.call('DECR', PENDING)
      local nextPos = tonumber(pos) + 1
      local stored = redis.call('HGET', E, nextPos)
      if not stored then
        redis.call('HSET', L, 'next', nextPos, 'last', done)
        redis.call('HDEL', L, 'cp', 'cs', 'cv', 'ca', 'cf', 'ch', 'skip', 'cd', 'owner')
        redis.call('LREM', MINE, 1, lane)
        -- Later positions wait behind a missing one: its wait starts now (it cannot be over yet).
        gap(lane, L, E, nextPos)
        reply = 'empty'
      else
        local seq, prev, payload
        if string.sub(lane, 1, 2) == 'a|' then
          seq, prev, payload = split(stored)
        else
          seq, prev, payload = tostring(redis.call('INCR', SEQ)), done, stored
        end
        redis.call('HSET', L, 'next', nextPos, 'last', done, 'cp', nextPos, 'cs', seq, 'cv', prev, 'ca', '0', 'cf', '', 'ch', '0', 'cd', '1')
        if f[5] then redis.call('HDEL', L, 'skip') end
        reply = { lane, tostring(nextPos), seq, prev, '0', '', '0', '', payload, 1, '', '' }
      end
    end
  elseif op == 'LATER' or op == 'HALT' then
    local lane, pos = ARGV[a], ARGV[a + 1]
    local L = nextKeys(1)
    if not mine(L, pos) then
      reply = 'lost'
    else
      -- The current event stays, with its attempts so far, until the retry
      -- is due or an operator resumes the lane.
      local b = op == 'LATER' and a + 3 or a + 2
      redis.call('HSET', L, 'ca', ARGV[b], 'cf', ARGV[b + 1], 'ch', ARGV[b + 2], 'cd', '0')
      redis.call('HDEL', L, 'skip')
      if op == 'LATER' then
        redis.call('ZADD', RETRY, now + tonumber(ARGV[a + 2]), lane)
      else
        redis.call('HSET', L, 'halt', ARGV[a + 5])
        redis.call('ZADD', HALTED, now, lane)
      end
      letGo(L, lane)
      reply = 'ok'
    end
  elseif op == 'RELEASE' then
    local lane = ARGV[a]
    local L = nextKeys(1)
    if redis.call('HGET', L, 'owner') == W then
      -- Handed back unrun: this hand-out was no delivery.
      if tonumber(redis.call('HGET', L, 'cd') or '0') > 0 then redis.call('HINCRBY', L, 'cd', -1) end
      letGo(L, lane)
      enqueue(L, lane)
    end
    reply = 'ok'
  else
    return redis.error_reply('unknown ordered step ' .. tostring(op))
  end
  replies[#replies + 1] = reply
  i = a + n
end
return replies
