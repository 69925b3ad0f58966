-- toolerr's compare-and-swap of one breaker state, shared by every language's
-- Redis store (Go: redisstore embeds this file; the Python, Node and Rust
-- stores read the same file): the breaker logic stays in toolerr's core, and
-- Redis only makes one change atomic.
--
-- KEYS[1]  the breaker's key (toolerr:breaker:<tool> by default)
-- ARGV[1]  "1" when the key must be absent, "0" when it must hold ARGV[2]
-- ARGV[2]  the bytes the caller read (ignored when ARGV[1] is "1")
-- ARGV[3]  the bytes to store
--
-- Returns {1} when ARGV[3] was stored; {0} when the key is absent (and had to
-- hold ARGV[2]); {0, current} when it holds other bytes than expected.
--
-- A key of another Redis type (a list, a hash) reads as the text below, as
-- every store's GET reads it (Go: redisstore.WrongTypeState): not a breaker
-- state, so the caller repairs it, and SET replaces the key whatever its type.
local cur = redis.pcall('GET', KEYS[1])
if type(cur) == 'table' and cur.err then
  if string.sub(cur.err, 1, 9) ~= 'WRONGTYPE' then return cur end
  cur = 'toolerr: the key holds another Redis type than a string (WRONGTYPE)'
end
if ARGV[1] == '1' then
  if cur then return {0, cur} end
elseif cur ~= ARGV[2] then
  if cur then return {0, cur} end
  return {0}
end
redis.call('SET', KEYS[1], ARGV[3])
return {1}
