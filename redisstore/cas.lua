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
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if cur then return {0, cur} end
elseif cur ~= ARGV[2] then
  if cur then return {0, cur} end
  return {0}
end
redis.call('SET', KEYS[1], ARGV[3])
return {1}
